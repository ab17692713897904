package smelting

import (
	"unicode/utf8"

	"formation/relparse"
)

// forEachSentence calls fn with the byte range [start, end) of every
// sentence of text, in order. A sentence runs from its first to its last
// non-space character, so text[start:end] is the sentence exactly as it
// stands in the text, terminator included.
//
// A sentence ends at a run of whitespace that directly follows '.', '?' or
// '!' (the original's rule, applied to the raw text instead of a flattened
// copy so that offsets stay exact), or at a run of whitespace holding a
// blank line (this smelter's addition: extracted documents separate
// headings, paragraphs and list items by a blank line, and a heading must
// not run into the sentence after it). Whitespace is Python's (relparse).
//
// fn also learns whether the sentence holds whitespace other than single
// spaces, so that only those sentences are copied to be collapsed.
func forEachSentence(text string, fn func(start, end int, spaced bool)) {
	i := skipSpace(text, 0)
	start := i
	spaced := false
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf && !isASCIISpace(c) {
			i++ // the common case, kept out of spaceRun
			continue
		}
		runEnd, breaks := spaceRun(text, i)
		if runEnd == i {
			i += runeLen(text, i)
			continue
		}
		if runEnd == len(text) {
			break
		}
		if isTerminator(text[i-1]) || breaks >= 2 {
			fn(start, i, spaced)
			start, spaced = runEnd, false
		} else if runEnd-i != 1 || text[i] != ' ' {
			spaced = true
		}
		i = runEnd
	}
	if end := trimRightSpace(text, len(text)); end > start {
		fn(start, end, spaced)
	}
}

func isTerminator(c byte) bool { return c == '.' || c == '?' || c == '!' }

// spaceRun returns the end of the whitespace run starting at text[i:] (i
// itself when text[i:] does not start with whitespace) and the number of
// line breaks it holds, counting "\r\n" once. Line breaks are those of
// Python's str.splitlines.
func spaceRun(text string, i int) (end, breaks int) {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if !isASCIISpace(c) {
				return i, breaks
			}
			if isASCIIBreak(c) && !(c == '\r' && i+1 < len(text) && text[i+1] == '\n') {
				breaks++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		if !relparse.IsSpace(r) {
			return i, breaks
		}
		if r == 0x85 || r == 0x2028 || r == 0x2029 {
			breaks++
		}
		i += w
	}
	return i, breaks
}

// isASCIISpace is relparse.IsSpace for a byte below 0x80.
func isASCIISpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F)
}

// isASCIIBreak reports the ASCII line breaks of str.splitlines: \n, \v, \f,
// \r and the separators U+001C..U+001E (not U+001F, which is whitespace but
// no line break).
func isASCIIBreak(c byte) bool {
	return (c >= '\n' && c <= '\r') || (c >= 0x1C && c <= 0x1E)
}

// skipSpace returns the offset of the first non-space character at or after i.
func skipSpace(text string, i int) int {
	end, _ := spaceRun(text, i)
	return end
}

// trimRightSpace returns the end of text[:end] without its trailing whitespace.
func trimRightSpace(text string, end int) int {
	for end > 0 {
		c := text[end-1]
		if c < utf8.RuneSelf {
			if !isASCIISpace(c) {
				return end
			}
			end--
			continue
		}
		r, w := utf8.DecodeLastRuneInString(text[:end])
		if !relparse.IsSpace(r) {
			return end
		}
		end -= w
	}
	return end
}

// runeLen is the byte length of the rune at text[i:] (1 for a byte that
// does not start a valid rune, which never happens after Smelt's UTF-8 check).
func runeLen(text string, i int) int {
	if text[i] < utf8.RuneSelf {
		return 1
	}
	_, w := utf8.DecodeRuneInString(text[i:])
	return w
}
