package text

import "strings"

// minSpelled is how many letters a word spelled letter by letter needs
// before it is joined ("e.g." stays as it is).
const minSpelled = 3

// singleLetter reports an ASCII letter at i with no letter or digit on
// either side.
func singleLetter(s string, i int) bool {
	return isASCIILetter(s[i]) && (i == 0 || !isASCIIAlnum(s[i-1])) && (i+1 == len(s) || !isASCIIAlnum(s[i+1]))
}

// spellSeparator reports the characters that separate the letters of a
// spelled-out word.
func spellSeparator(c byte) bool { return strings.IndexByte(". -_*", c) >= 0 }

// spelledRun returns the end of a run of single letters starting at i, all
// separated by the same one separator ("d.i.s", "s-a-f"), and how many
// letters it has.
func spelledRun(s string, i int) (end, letters int) {
	if !singleLetter(s, i) {
		return i, 0
	}
	end, letters = i+1, 1
	sep := byte(0)
	for end+1 < len(s) && spellSeparator(s[end]) && (sep == 0 || s[end] == sep) && singleLetter(s, end+1) {
		sep = s[end]
		end += 2
		letters++
	}
	return end, letters
}

func hasSpelled(s string) bool {
	for i := 0; i < len(s); i++ {
		if i+1 < len(s) && isASCIIAlnum(s[i]) && isASCIIAlnum(s[i+1]) {
			// A run of two or more letters and digits holds no single
			// letter: skip to its last byte.
			for i+1 < len(s) && isASCIIAlnum(s[i+1]) {
				i++
			}
			continue
		}
		if end, n := spelledRun(s, i); n >= minSpelled {
			return true
		} else if n > 0 {
			i = end - 1
		}
	}
	return false
}

// JoinSpelled writes every word spelled letter by letter ("d.i.s.a.b.l.e",
// "s-a-f-e-t-y", "i g n o r e": at least three single ASCII letters, all
// separated by the same one of . - _ * or a space) as the word it spells,
// and returns any other text unchanged. Two letters ("e.g.", "i.e.") stay
// as they are.
func JoinSpelled(s string) string {
	if !hasSpelled(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		end, n := spelledRun(s, i)
		switch {
		case n >= minSpelled:
			for k := i; k < end; k += 2 {
				b.WriteByte(s[k])
			}
			i = end
		case n > 0:
			b.WriteString(s[i:end])
			i = end
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isASCIIAlnum(c byte) bool { return isASCIILetter(c) || '0' <= c && c <= '9' }

// JoinHyphenated writes a word cut by hyphens ("dis-regard", "guide-lines",
// "in-struc-tions") as one word when known accepts the joined, lower-cased
// word; any other hyphenated word ("read-only") stays as it is. It copies
// the text only when it has a hyphen between letters.
func JoinHyphenated(s string, known func(string) bool) string {
	if !strings.Contains(s, "-") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !isASCIILetter(s[i]) || i > 0 && isASCIIAlnum(s[i-1]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		end, parts := hyphenChain(s, i)
		if parts > 1 {
			joined := strings.ToLower(strings.ReplaceAll(s[i:end], "-", ""))
			if known(joined) {
				b.WriteString(strings.ReplaceAll(s[i:end], "-", ""))
				i = end
				continue
			}
		}
		b.WriteString(s[i:end])
		i = end
	}
	return b.String()
}

// hyphenChain returns the end of the letters-and-hyphens run of words that
// starts at i ("guide-lines") and how many words it has.
func hyphenChain(s string, i int) (end, parts int) {
	end, parts = i, 1
	for end < len(s) && isASCIILetter(s[end]) {
		end++
	}
	for end+1 < len(s) && s[end] == '-' && isASCIILetter(s[end+1]) {
		end++
		parts++
		for end < len(s) && isASCIILetter(s[end]) {
			end++
		}
	}
	if end < len(s) && isASCIIAlnum(s[end]) {
		return end, 1 // a word with digits is not a hyphenated word
	}
	return end, parts
}
