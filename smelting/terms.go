package smelting

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"formation/relparse"
)

// maxTermTokens is the most words a concept or ordering term may have.
const maxTermTokens = 3

// normalTerm turns a raw term group into the term this smelter records:
// lower-cased with Python's rules, with a leading discourse marker and one
// leading and one trailing article removed exactly as the relation parser
// treats a head or tail (so "A lens is a curved glass" gives the concept
// "lens", the head its relation also has). It then applies the original's
// term test: one to three words, each a lower-case ASCII letter followed by
// lower-case ASCII letters and hyphens.
func normalTerm(raw string) (string, bool) {
	t := relparse.StripArticles(relparse.Normalize(raw))
	return t, validTerm(t)
}

// validTerm is the original's term test on a trimmed, single-spaced,
// lower-cased term.
func validTerm(t string) bool {
	if t == "" {
		return false
	}
	tokens := 1
	wordStart := true
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == ' ':
			if wordStart {
				return false // a doubled or leading space: not single-spaced
			}
			tokens++
			wordStart = true
		case 'a' <= c && c <= 'z':
			wordStart = false
		case c == '-' && !wordStart:
		default:
			return false
		}
	}
	return !wordStart && tokens <= maxTermTokens
}

// lowerTrim lower-cases and trims a captured group, as the original did
// with every group it kept.
func lowerTrim(s string) string { return relparse.TrimSpace(lower(s)) }

// hasWordPrefix reports whether s starts with the word w followed by a
// space.
func hasWordPrefix(s, w string) bool {
	return len(s) > len(w) && s[len(w)] == ' ' && strings.HasPrefix(s, w)
}

// lower is relparse.Lower (Python's str.lower) with a fast path for ASCII
// text, where Python's rule is exactly 'A'..'Z' to 'a'..'z'. Every
// sentence is lower-cased, so this one pass with at most one allocation
// matters for throughput.
func lower(s string) string {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return relparse.Lower(s)
		}
		if 'A' <= c && c <= 'Z' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, len(s))
	copy(b, s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return relparse.Lower(s)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	// b is never written again: the string may share its bytes, as
	// strings.Builder's does.
	return unsafe.String(unsafe.SliceData(b), len(b))
}
