package relparse

import (
	"strings"
	"unicode/utf8"

	"formation/artifact"
)

// numRelations is the size of the vocabulary.
const numRelations = 17

// vocabulary is the relation vocabulary in priority order: this order, not
// the position in the sentence, decides which predicate wins. It is returned
// by value so that no caller can change it.
func vocabulary() [numRelations]string {
	return [numRelations]string{
		"belongs_to", "contrasts_with", "is_caused_by", "is_defined_as", "is_verified_as",
		"has_steps", "corrects", "recalls", "grounds", "reveals", "precedes", "follows",
		"produces", "causes", "means", "is", "has",
	}
}

// markers are the leading discourse markers, tried in this order.
func markers() [8]string {
	return [8]string{"actually", "no,", "no", "indeed", "really", "in fact", "rather", "instead"}
}

// Relations returns the relation vocabulary in priority order.
func Relations() []string {
	v := vocabulary()
	return v[:]
}

// Priority returns the index of rel in Relations, or -1 when rel is not a
// relation of the vocabulary.
func Priority(rel string) int {
	// A switch compiles to a length-and-value search; this runs once per word
	// of every smelted sentence.
	switch rel {
	case "belongs_to":
		return 0
	case "contrasts_with":
		return 1
	case "is_caused_by":
		return 2
	case "is_defined_as":
		return 3
	case "is_verified_as":
		return 4
	case "has_steps":
		return 5
	case "corrects":
		return 6
	case "recalls":
		return 7
	case "grounds":
		return 8
	case "reveals":
		return 9
	case "precedes":
		return 10
	case "follows":
		return 11
	case "produces":
		return 12
	case "causes":
		return 13
	case "means":
		return 14
	case "is":
		return 15
	case "has":
		return 16
	}
	return -1
}

// IsRelation reports whether rel is one of the vocabulary's relations.
func IsRelation(rel string) bool { return Priority(rel) >= 0 }

// Parse reads text as "<head> <relation> <tail>" (see the package doc). The
// returned head and tail are lower-cased, single-spaced, trimmed, free of a
// leading or trailing article, and never empty.
func Parse(text string) (artifact.Triple, bool) {
	if text == "" || !utf8.ValidString(text) {
		return artifact.Triple{}, false
	}
	s := Normalize(text)
	if s == "" {
		return artifact.Triple{}, false
	}
	first := firstOccurrences(s)
	vocab := vocabulary()
	for p, at := range first {
		if at < 0 {
			continue
		}
		rel := vocab[p]
		head := StripArticles(TrimSpace(s[:at]))
		tail := StripArticles(TrimSpace(s[at+len(rel):]))
		if head != "" && tail != "" {
			return artifact.Triple{Head: head, Relation: rel, Tail: tail}, true
		}
	}
	return artifact.Triple{}, false
}

// Normalize is step 1 of Parse: trim, drop one leading marker, collapse
// whitespace, delete trailing ".?!,;:" punctuation, lower-case, trim.
func Normalize(text string) string {
	s := dropMarker(TrimSpace(text))
	s = CollapseSpace(s)
	s = strings.TrimRight(s, ".?!,;:")
	return TrimSpace(Lower(s))
}

// dropMarker removes the first matching leading discourse marker. The test is
// on the lower-cased text; every rune that lower-cases into a marker letter is
// ASCII (the Kelvin sign maps to 'k', which no marker holds), so an ASCII
// case-insensitive prefix test is the same test and byte offsets agree.
func dropMarker(s string) string {
	for _, m := range markers() {
		if len(s) <= len(m) || !equalFoldASCII(s[:len(m)], m) {
			continue
		}
		switch s[len(m)] {
		case ' ':
			return s[len(m)+1:]
		case ',', ';':
			return TrimLeftSpace(s[len(m)+1:])
		}
	}
	return s
}

// equalFoldASCII compares s with the lower-case ASCII word m, folding only
// ASCII capitals in s.
func equalFoldASCII(s, m string) bool {
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

// TrimLeftSpace removes leading IsSpace runes (Python's str.lstrip()).
func TrimLeftSpace(s string) string { return strings.TrimLeftFunc(s, IsSpace) }

// firstOccurrences returns, per relation (by priority index), the byte offset
// of its first whole-word occurrence in s, or -1. Every relation consists of
// word characters only, so a whole-word occurrence is exactly a maximal run
// of word characters equal to the relation: one scan over the runs finds them
// all.
func firstOccurrences(s string) [numRelations]int {
	var first [numRelations]int
	for i := range first {
		first[i] = -1
	}
	for i := 0; i < len(s); {
		start := i
		i = wordEnd(s, i)
		if i == start {
			_, w := decodeRune(s, i)
			i += w
			continue
		}
		if p := Priority(s[start:i]); p >= 0 && first[p] < 0 {
			first[p] = start
		}
	}
	return first
}

// wordEnd returns the end of the run of word characters starting at s[i:]
// (i itself when s[i:] does not start with one).
func wordEnd(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !isASCIIWord(c) {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !IsWordRune(r) {
			return i
		}
		i += w
	}
	return i
}

// StripArticles drops one leading and one trailing article token ("a",
// "an", "the") from a trimmed, single-spaced, lower-case phrase, as Parse
// does for heads and tails; a lone article leaves nothing.
func StripArticles(s string) string {
	if s == "" {
		return s
	}
	if tok, rest, found := strings.Cut(s, " "); isArticle(tok) {
		if !found {
			return ""
		}
		s = rest
	}
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		if isArticle(s[i+1:]) {
			s = s[:i]
		}
	} else if isArticle(s) {
		return ""
	}
	return s
}

func isArticle(tok string) bool { return tok == "a" || tok == "an" || tok == "the" }
