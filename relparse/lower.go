package relparse

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lower lower-cases s the way Python's str.lower() does. It differs from
// strings.ToLower in the two places Python applies the full Unicode mappings:
// 'İ' (U+0130) becomes "i̇" (U+0069 U+0307), and a capital sigma in final
// position (preceded by a cased letter, not followed by one, ignoring
// case-ignorable characters in both directions) becomes 'ς' (U+03C2).
// Bytes that are not valid UTF-8 are kept as they are.
func Lower(s string) string {
	i := firstNonLower(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteString(s[:i])
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			b.WriteByte(s[i])
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ':
			b.WriteRune(sigma(s, i, w))
		default:
			b.WriteRune(lowerRune(r))
		}
		i += w
	}
	return b.String()
}

// firstNonLower returns the offset of the first byte that is an ASCII
// capital or not ASCII: everything before it is already lower-case.
func firstNonLower(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return i
		}
	}
	return len(s)
}

// sigma picks the lower-case form of the capital sigma at s[i:i+w]: final
// sigma when a cased letter precedes it and none follows it (skipping
// case-ignorable characters), as in CPython's handle_capital_sigma.
func sigma(s string, i, w int) rune {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if !isCaseIgnorable(r) {
			before = isCased(r)
			break
		}
	}
	if !before {
		return 'σ'
	}
	for j := i + w; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		j += n
		if !isCaseIgnorable(r) {
			if isCased(r) {
				return 'σ'
			}
			break
		}
	}
	return 'ς'
}

// isCased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func isCased(r rune) bool {
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// isCaseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk,
// and the Word_Break classes MidLetter, MidNumLet and Single_Quote.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2018, 0x2019, 0x2024,
		0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// lowerRune is unicode.ToLower, answered by arithmetic for the basic Greek
// and Cyrillic letters, whose capitals sit at a fixed distance from their
// small letters (TestLowerRune checks it against unicode.ToLower).
func lowerRune(r rune) rune {
	switch {
	case 0x3B1 <= r && r <= 0x3C9, 0x430 <= r && r <= 0x45F: // small letters
		return r
	case 0x391 <= r && r <= 0x3A9 && r != 0x3A2, 0x410 <= r && r <= 0x42F:
		return r + 0x20
	case 0x400 <= r && r <= 0x40F:
		return r + 0x50
	}
	return unicode.ToLower(r)
}
