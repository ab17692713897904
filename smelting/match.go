package smelting

import "unicode/utf8"

// The original smelter ran Python regular expressions with IGNORECASE over
// a whitespace-collapsed sentence. The functions here reproduce exactly
// what those patterns accept, by hand, because Go's regexp is several times
// too slow for the stage's throughput target. Two facts make hand matching
// simple: the sentence is trimmed and single-spaced (every `\s+` is one
// space), and the term group `[a-z][a-z\- ]{0,40}?` is lazy, so the match is
// the shortest term after which the rest of the pattern holds.

// maxTermRunes bounds the term group: one letter plus at most 40 more.
const maxTermRunes = 41

// Code points other than ASCII letters that Python's IGNORECASE matching
// equates with an ASCII letter: KELVIN SIGN with 'k', LATIN SMALL LETTER
// LONG S with 's', and both dotted capital and dotless small I with 'i'.
const (
	kelvinSign = 0x212A
	longS      = 0x017F
	dottedI    = 0x0130
	dotlessI   = 0x0131
)

// foldAt matches the rune at s[i:] against the lower-case ASCII letter x as
// an IGNORECASE pattern letter would, returning the rune's byte length.
func foldAt(s string, i int, x byte) (int, bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		return 1, c|0x20 == x // x is a letter, so only x and its capital qualify
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	switch r {
	case kelvinSign:
		return w, x == 'k'
	case longS:
		return w, x == 's'
	case dottedI, dotlessI:
		return w, x == 'i'
	}
	return w, false
}

// matchWord matches the lower-case ASCII word at s[i:] case-insensitively
// and returns the offset after it.
func matchWord(s string, i int, word string) (int, bool) {
	for k := 0; k < len(word); k++ {
		if i >= len(s) {
			return 0, false
		}
		w, ok := foldAt(s, i, word[k])
		if !ok {
			return 0, false
		}
		i += w
	}
	return i, true
}

// matchSpaced matches " w1 w2 …" (each word after one space) at s[i:] and
// returns the offset after the last word.
func matchSpaced(s string, i int, words ...string) (int, bool) {
	for _, w := range words {
		if i >= len(s) || s[i] != ' ' {
			return 0, false
		}
		var ok bool
		if i, ok = matchWord(s, i+1, w); !ok {
			return 0, false
		}
	}
	return i, true
}

// restAfterSpace returns the offset of the non-empty rest of s after a
// space at s[i], as `\s+(.+?)\s*$` needs on a trimmed sentence.
func restAfterSpace(s string, i int) (int, bool) {
	if i+1 < len(s) && s[i] == ' ' {
		return i + 1, true
	}
	return 0, false
}

// isTermStart is the class `[a-z]` under IGNORECASE.
func isTermStart(r rune) bool {
	return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') ||
		r == kelvinSign || r == longS || r == dottedI || r == dotlessI
}

// isASCIITermByte reports an ASCII letter, or (when not first) a space or
// hyphen: the ASCII part of isTermStart and isTermRune.
func isASCIITermByte(c byte, first bool) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (!first && (c == ' ' || c == '-'))
}

// isTermRune is the class `[a-z\- ]` under IGNORECASE.
func isTermRune(r rune) bool { return r == ' ' || r == '-' || isTermStart(r) }

// termEnds lists where the term group `([a-z][a-z\- ]{0,40}?)` starting
// at some offset of a sentence may end, shortest first: after one to 41
// term characters (the first a letter), where the sentence ends or a space
// or comma follows. Every continuation the smelter matches after a term
// starts with one of those, so no other end can match. The lazy group
// takes the first end at which the rest of its pattern holds (first).
// Computing the ends once serves every pattern that starts at the same
// offset; lead records, for an end followed by a space, the ASCII letter
// the next word's first character folds to, so that a pattern only tries
// the ends where its keyword could follow.
type termEnds struct {
	n    int
	at   [maxTermRunes]int
	lead [maxTermRunes]byte
}

func findTermEnds(s string, from int) termEnds {
	var t termEnds
	for i, n := from, 0; i < len(s) && n < maxTermRunes; n++ {
		if c := s[i]; c < utf8.RuneSelf && isASCIITermByte(c, n == 0) {
			i++ // the common case, without decoding
		} else {
			r, w := decodeAt(s, i)
			if (n == 0 && !isTermStart(r)) || !isTermRune(r) {
				break
			}
			i += w
		}
		if i == len(s) || s[i] == ' ' || s[i] == ',' {
			t.at[t.n] = i
			t.lead[t.n] = leadLetter(s, i)
			t.n++
		}
	}
	return t
}

// leadLetter returns the ASCII letter that the character after the space
// at s[i] folds to under IGNORECASE, or 0.
func leadLetter(s string, i int) byte {
	if i+1 >= len(s) || s[i] != ' ' {
		return 0
	}
	r, _ := decodeAt(s, i+1)
	switch {
	case 'a' <= r && r <= 'z':
		return byte(r)
	case 'A' <= r && r <= 'Z':
		return byte(r) + 'a' - 'A'
	case r == kelvinSign:
		return 'k'
	case r == longS:
		return 's'
	case r == dottedI, r == dotlessI:
		return 'i'
	}
	return 0
}

// first returns the first end at which cont holds, trying only the ends
// whose next word starts with lead (any end when lead is 0).
func (t *termEnds) first(lead byte, cont func(end int) bool) (int, bool) {
	for k, end := range t.at[:t.n] {
		if (lead == 0 || t.lead[k] == lead) && cont(end) {
			return end, true
		}
	}
	return 0, false
}

// wholeTerm reports whether all of s[from:] is one term group followed by
// `\s*$`: a term letter, then at most 40 term characters to the end.
func wholeTerm(s string, from int) bool {
	n := 0
	for i := from; i < len(s); n++ {
		r, w := decodeAt(s, i)
		if n == maxTermRunes || (n == 0 && !isTermStart(r)) || !isTermRune(r) {
			return false
		}
		i += w
	}
	return n > 0
}

// decodeAt decodes the rune at s[i:] with an ASCII fast path.
func decodeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// pattern is the part of an original pattern after its term group: the
// letter its keyword starts with, and a matcher that returns the offset of
// the second group when s[end:] continues the pattern after a term ending
// at end.
type pattern struct {
	lead byte
	cont func(s string, end int) (int, bool)
}

// definitionPatterns are the three concept patterns of the original, in the
// order they are tried: "X is defined as Y", "X means Y", "X is a/an Y".
func definitionPatterns() [3]pattern {
	return [3]pattern{
		{'i', func(s string, end int) (int, bool) {
			j, ok := matchSpaced(s, end, "is", "defined", "as")
			if !ok {
				return 0, false
			}
			return restAfterSpace(s, j)
		}},
		{'m', func(s string, end int) (int, bool) {
			j, ok := matchSpaced(s, end, "means")
			if !ok {
				return 0, false
			}
			return restAfterSpace(s, j)
		}},
		{'i', isAnArticle},
	}
}

// isAnArticle continues "X is a Y" and "X is an Y": `\s+is\s+an?\s+(.+?)`.
// The optional 'n' is greedy, so "an" is tried before "a".
func isAnArticle(s string, end int) (int, bool) {
	j, ok := matchSpaced(s, end, "is")
	if !ok {
		return 0, false
	}
	if k, ok := matchSpaced(s, j, "an"); ok {
		if at, ok := restAfterSpace(s, k); ok {
			return at, true
		}
	}
	if k, ok := matchSpaced(s, j, "a"); ok {
		return restAfterSpace(s, k)
	}
	return 0, false
}

// matchDefinition tries the concept patterns in order on the cleaned
// sentence s, whose term ends from offset 0 are ends. For each pattern
// that matches, accept judges the raw term and definition; the first
// accepted pair is returned (a pattern whose term is not a valid term
// gives way to the next one, as in the original).
func matchDefinition(s string, ends *termEnds, accept func(term, def string) bool) bool {
	for _, p := range definitionPatterns() {
		var defAt int
		end, ok := ends.first(p.lead, func(end int) bool {
			var ok bool
			defAt, ok = p.cont(s, end)
			return ok
		})
		if ok && accept(s[:end], s[defAt:]) {
			return true
		}
	}
	return false
}

// matchOrdering applies the original's ordering patterns to the cleaned
// sentence s and returns the raw (after, before) terms of the first pattern
// that matches: "Before A, B" (B before A), then "A requires B", then
// "A depends on B" (B before A in both). As in the original, the first
// pattern that matches decides, even if its terms are later rejected. ends
// are the term ends of s from offset 0.
func matchOrdering(s string, ends *termEnds) (after, before string, ok bool) {
	if after, before, ok = matchBefore(s); ok {
		return after, before, true
	}
	for _, p := range orderingPatterns() {
		var at int
		end, ok := ends.first(p.lead, func(end int) bool {
			var ok bool
			at, ok = p.cont(s, end)
			return ok
		})
		if ok {
			return s[:end], s[at:], true
		}
	}
	return "", "", false
}

// orderingPatterns are "A requires B" and "A depends on B" after A; the
// offset they return is B's.
func orderingPatterns() [2]pattern {
	return [2]pattern{
		{'r', func(s string, end int) (int, bool) { return verbThenTerm(s, end, "requires") }},
		{'d', func(s string, end int) (int, bool) { return verbThenTerm(s, end, "depends", "on") }},
	}
}

// verbThenTerm is `\s+<words>\s+(B)\s*$` with B a whole term.
func verbThenTerm(s string, end int, words ...string) (int, bool) {
	j, ok := matchSpaced(s, end, words...)
	if !ok || j >= len(s) || s[j] != ' ' || !wholeTerm(s, j+1) {
		return 0, false
	}
	return j + 1, true
}

// matchBefore is `^before\s+(A)\s*,\s*(B)\s*$`.
func matchBefore(s string) (after, before string, ok bool) {
	j, ok := matchWord(s, 0, "before")
	if !ok || j >= len(s) || s[j] != ' ' {
		return "", "", false
	}
	var at int
	ends := findTermEnds(s, j+1)
	end, ok := ends.first(0, func(end int) bool {
		k := skipOneSpace(s, end)
		if k >= len(s) || s[k] != ',' {
			return false
		}
		at = skipOneSpace(s, k+1)
		return wholeTerm(s, at)
	})
	if !ok {
		return "", "", false
	}
	return s[j+1 : end], s[at:], true
}

// skipOneSpace is `\s*` on a single-spaced sentence.
func skipOneSpace(s string, i int) int {
	if i < len(s) && s[i] == ' ' {
		return i + 1
	}
	return i
}

// counterMarkers are the original's counter-claim openings, tried in order
// on the lower-cased sentence. Each keeps its trailing space, so "Notably"
// does not open a counter-claim.
func counterMarkers() [7]string {
	return [7]string{
		"it is a misconception that ",
		"it is a common misconception that ",
		"contrary to common belief, ",
		"contrary to popular belief, ",
		"contrary to belief, ",
		"it is not true that ",
		"not ",
	}
}

// counterMarkerLen returns the byte length of the counter marker s opens
// with, or 0. The markers are ASCII and no character outside ASCII
// lower-cases into a prefix of one (the Kelvin sign becomes 'k', which no
// marker holds; 'İ' becomes "i" plus a combining dot), so comparing ASCII
// bytes case-insensitively is the original's test on the lower-cased text,
// and the marker's length is the same in the original-case sentence.
func counterMarkerLen(s string) int {
	for _, m := range counterMarkers() {
		if hasPrefixFold(s, m) {
			return len(m)
		}
	}
	return 0
}

// hasPrefixFold reports whether s starts with the lower-case ASCII string
// m, folding only ASCII capitals in s.
func hasPrefixFold(s, m string) bool {
	if len(s) < len(m) {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != m[i] {
			return false
		}
	}
	return true
}
