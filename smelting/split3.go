package smelting

import (
	"unicode/utf8"
)

// maxParenSentence bounds how far an open parenthesis keeps a sentence
// going: code and stray brackets must not glue a whole block together.
const maxParenSentence = 600

// forEachSentenceV3 calls fn with the byte range [start, end) of every
// sentence of text, in order, as PatternV3 cuts them. A sentence ends:
//
//   - at a run of white space holding a blank line;
//   - at a line break after which the text is indented differently (plain
//     text lays out structure by indentation: a declaration and its
//     comment, a heading and its paragraph, a paragraph and a code block),
//     or after which a list item starts ("• ", "- ", "* ", "+ ", "1. ",
//     "1) "); the indentation of a list item's text is taken after its
//     marker, so its wrapped lines continue it;
//   - at white space after '.', '?' or '!' (and any closing quotes and
//     brackets right after it), unless the period ends an abbreviation
//     ("e.g.", "i.e.", "Dr.", "vs.", "No. 5"), an initial ("J. Smith"), or
//     the terminator is inside parentheses opened in this sentence (a
//     parenthesis closing right after it ends the sentence only when the
//     sentence is that parenthesis).
//
// As in forEachSentence, a sentence runs from its first to its last
// non-space character, and fn learns whether it holds white space other
// than single spaces.
func forEachSentenceV3(text string, fn func(start, end int, spaced bool)) {
	i := skipSpace(text, 0)
	start, spaced, depth := i, false, 0
	indent := indentAt(text, lineStart(text, i), i)
	for i < len(text) {
		if i = skipPlain(text, i, start); i == len(text) {
			break
		}
		c := text[i]
		if c < utf8.RuneSelf && !isASCIISpace(c) {
			switch c {
			case '(', '[':
				depth++
			case ')', ']':
				if depth > 0 {
					depth--
				}
			}
			i++
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
		newIndent := indent
		if breaks > 0 {
			newIndent = indentAt(text, lastLineStart(text, i, runEnd), runEnd)
		}
		end := breaks >= 2 ||
			(breaks == 1 && (newIndent != indent || listMarkerLen(text, runEnd) > 0)) ||
			terminatedAt(text, start, i, runEnd, depth)
		if end {
			fn(start, i, spaced)
			start, spaced, depth = runEnd, false, 0
		} else if runEnd-i != 1 || text[i] != ' ' {
			spaced = true
		}
		indent = newIndent
		i = runEnd
	}
	if end := trimRightSpace(text, len(text)); end > start {
		fn(start, end, spaced)
	}
}

// skipPlain returns the offset of the first byte at or after i that may
// matter to forEachSentenceV3: white space, a bracket or a non-ASCII byte,
// passing by the single spaces between two words, which end nothing (a
// letter or digit before the space cannot end a sentence, and no new line
// starts). Most bytes of prose are passed here, in a loop kept small.
func skipPlain(text string, i, start int) int {
	for i < len(text) {
		c := text[i]
		switch {
		case hasClass(c, classPlain):
			i++
		case c == ' ' && i > start && i+1 < len(text) && plainWordEnd(text[i-1]) && hasClass(text[i+1], classPlain):
			i += 2
		default:
			return i
		}
	}
	return i
}

// lineStart returns the offset of the start of the line holding text[i].
func lineStart(text string, i int) int {
	for i > 0 && text[i-1] != '\n' && text[i-1] != '\r' {
		i--
	}
	return i
}

// lastLineStart returns the offset after the last line break of the white
// space run text[from:to].
func lastLineStart(text string, from, to int) int {
	for j := to; j > from; j-- {
		if isASCIIBreak(text[j-1]) {
			return j
		}
	}
	return from
}

// indentAt returns the column at which the text of a line starts: the
// width of its leading spaces and tabs (a tab advances to the next
// multiple of 8) up to text[at], plus the width of a list marker there.
func indentAt(text string, lineStart, at int) int {
	col := 0
	for j := lineStart; j < at; j++ {
		switch text[j] {
		case '\t':
			col += 8 - col%8
		default:
			col++
		}
	}
	_, width := listMarker(text, at)
	return col + width
}

// listMarkerLen returns the byte length of a list marker at text[i:] with
// the spaces after it ("• ", "- ", "* ", "+ ", "12. ", "3) "), or 0.
func listMarkerLen(text string, i int) int {
	n, _ := listMarker(text, i)
	return n
}

// listMarker returns the byte length and the width in columns of a list
// marker at text[i:] with the spaces after it, or 0, 0.
func listMarker(text string, i int) (int, int) {
	n, wide := 0, 0
	switch {
	case i < len(text) && (text[i] == '-' || text[i] == '*' || text[i] == '+'):
		n = 1
	case len(text)-i >= 3 && text[i:i+3] == "•":
		n, wide = 3, 2 // one column for three bytes
	default:
		for n < 3 && i+n < len(text) && '0' <= text[i+n] && text[i+n] <= '9' {
			n++
		}
		if n == 0 || i+n >= len(text) || (text[i+n] != '.' && text[i+n] != ')') {
			return 0, 0
		}
		n++
	}
	if i+n >= len(text) || text[i+n] != ' ' {
		return 0, 0
	}
	for i+n < len(text) && text[i+n] == ' ' {
		n++
	}
	return n, n - wide
}

// terminatedAt reports whether the sentence text[start:ws] ends at the
// white space text[ws:next]: its last characters are a terminator and
// closing quotes or brackets, the terminator is not inside parentheses
// this sentence opened, and a final period does not end an abbreviation or
// an initial.
func terminatedAt(text string, start, ws, next, depth int) bool {
	if ws > start && plainWordEnd(text[ws-1]) {
		return false // most words end neither in a terminator nor in a closing mark
	}
	j := ws
	paren := false
	for j > start && isClosing(text, j) {
		_, w := utf8.DecodeLastRuneInString(text[start:j])
		paren = paren || text[j-1] == ')'
		j -= w
	}
	if j == start || !isTerminator(text[j-1]) {
		return false
	}
	if paren && text[start] != '(' {
		return false // "(such as pip install .) are …": the period is inside a parenthesis
	}
	if depth > 0 && ws-start < maxParenSentence {
		return false
	}
	if text[j-1] != '.' {
		return true
	}
	return !abbreviationBefore(text, start, j-1, next)
}

// plainWordEnd reports an ASCII letter or digit: a byte that neither
// terminates a sentence nor closes a quotation or bracket.
func plainWordEnd(c byte) bool { return hasClass(c, classAlnum) }

// isClosing reports whether the rune ending at text[:j] closes a quotation
// or a bracket.
func isClosing(text string, j int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:j])
	switch r {
	case ')', ']', '"', '\'', '\u2019', '\u201D', '\u00BB':
		return true
	}
	return false
}

// abbreviationBefore reports whether the period at text[dot] ends an
// abbreviation or an initial rather than the sentence; next is where the
// text goes on.
func abbreviationBefore(text string, start, dot, next int) bool {
	w := dot
	for w > start && !isASCIISpace(text[w-1]) && text[w-1] != '(' && text[w-1] != '[' {
		w--
	}
	word := text[w:dot]
	if word == "" {
		return false
	}
	follow := byte(0)
	if next < len(text) {
		follow = text[next]
	}
	switch {
	case dottedAbbreviation(word):
		return true
	case len(word) == 1 && 'A' <= word[0] && word[0] <= 'Z':
		return initialBefore(text, start, w) && 'A' <= follow && follow <= 'Z'
	}
	switch lowerASCII(word) {
	case "e.g", "i.e", "eg", "ie", "cf", "vs", "viz", "approx", "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "al", "resp", "incl", "esp":
		return true
	case "no", "nos", "fig", "figs", "eq", "eqs", "vol", "pp", "sec", "ch":
		return '0' <= follow && follow <= '9'
	case "etc":
		return 'a' <= follow && follow <= 'z'
	}
	return false
}

// dottedAbbreviation reports a word of one- or two-letter parts joined by
// periods: "e.g", "i.e", "U.S", "a.m".
func dottedAbbreviation(w string) bool {
	parts, n := 1, 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '.':
			if n == 0 {
				return false
			}
			parts, n = parts+1, 0
		case ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
			if n++; n > 2 {
				return false
			}
		default:
			return false
		}
	}
	return parts > 1 && n > 0
}

// initialBefore reports whether a single capital at text[w] reads as an
// initial: it opens the sentence, or the word before it is capitalised or
// is itself an initial ("John F. Kennedy", "J. R. Smith").
func initialBefore(text string, start, w int) bool {
	k := w
	for k > start && isASCIISpace(text[k-1]) {
		k--
	}
	if k == start {
		return true
	}
	p := k
	for p > start && !isASCIISpace(text[p-1]) {
		p--
	}
	prev := text[p:k]
	return prev != "" && 'A' <= prev[0] && prev[0] <= 'Z' && (len(prev) > 2 || prev[len(prev)-1] == '.')
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
