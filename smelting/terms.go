package smelting

import (
	"encoding/binary"
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
	var block []byte
	return lowerInto(&block, s, 0)
}

// lowerInto is lower, writing a lower-cased ASCII copy at the end of
// *block, which it replaces with a new one of at least chunk bytes when
// the copy does not fit (pattern_v3 lets the sentences of a text share
// blocks that way instead of allocating one copy each). A string it
// returned stays valid: bytes of a block are written once, and a full
// block is replaced, never reused.
func lowerInto(block *[]byte, s string, chunk int) string {
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
	if cap(*block)-len(*block) < len(s) {
		*block = make([]byte, 0, max(chunk, len(s)))
	}
	start := len(*block)
	*block = append(*block, s...)
	b := (*block)[start:]
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if w&highBits != 0 {
			break // a byte that is not ASCII: the loop below finds it
		}
		binary.LittleEndian.PutUint64(b[i:], lowerWord(w))
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c >= utf8.RuneSelf {
			return relparse.Lower(s) // the bytes written stay unused
		}
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// highBits has the high bit of each byte of a word set.
const highBits = 0x8080808080808080

// lowerWord lower-cases the eight ASCII bytes of w at once: for each byte,
// adding 0x80-'A' sets its high bit when it is 'A' or above, adding
// 0x80-'Z'-1 when it is above 'Z' (no carry crosses bytes: each is below
// 0x80), and the capitals get 0x20 added.
func lowerWord(w uint64) uint64 {
	const ones = 0x0101010101010101
	atLeastA := w + ones*(0x80-'A')
	aboveZ := w + ones*(0x80-'Z'-1)
	capitals := (atLeastA &^ aboveZ) & highBits
	return w | capitals>>2
}
