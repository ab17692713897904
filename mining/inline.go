package mining

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// inlineSpan is a stretch of a line being read: a link's text is read in
// place, between its brackets, and reading resumes after the link's
// destination.
type inlineSpan struct{ start, limit, resume int }

// inlineLine reads one line's inline content. Every look-ahead the syntax
// needs (the bracket closing a '[', the next ')' or ']' or '>', the end of
// a comment) is answered from indexes built in one pass over the line, and
// a link's text is read by an explicit stack of spans rather than by
// recursion, so that the work is linear in the line (a look-up is a binary
// search) and a hostile nesting depth costs heap, not goroutine stack.
type inlineLine struct {
	w        *blockWriter
	t        []byte
	opens    []int // unescaped '[' positions, ascending
	closeOf  []int // the matching ']' of opens[k], or -1
	parens   []int // ')' positions
	squares  []int // ']' positions
	angles   []int // '>' positions
	lts      []int // '<' positions
	comments []int // positions where "-->" starts
}

// inline writes one line's inline content: see markdownText.
func inline(w *blockWriter, t []byte) {
	l := newInlineLine(w, t)
	spans := []inlineSpan{{start: 0, limit: len(t), resume: len(t)}}
	i := 0
	for len(spans) > 0 {
		sp := spans[len(spans)-1]
		if i >= sp.limit {
			i = sp.resume
			spans = spans[:len(spans)-1]
			continue
		}
		w.work++
		var inner *inlineSpan
		i, inner = l.step(sp, i)
		if inner != nil {
			spans = append(spans, *inner)
		}
	}
}

// newInlineLine indexes t in one pass. Brackets pair as a stack; a
// backslash escapes the byte after it, as the inline reading does.
func newInlineLine(w *blockWriter, t []byte) *inlineLine {
	l := &inlineLine{w: w, t: t}
	var open []int // indexes into l.opens still waiting for their ']'
	for j := 0; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case '[':
			open = append(open, len(l.opens))
			l.opens = append(l.opens, j)
			l.closeOf = append(l.closeOf, -1)
		case ']':
			if n := len(open); n > 0 {
				l.closeOf[open[n-1]] = j
				open = open[:n-1]
			}
		}
	}
	for j, c := range t {
		switch c {
		case ')':
			l.parens = append(l.parens, j)
		case ']':
			l.squares = append(l.squares, j)
		case '<':
			l.lts = append(l.lts, j)
		case '>':
			l.angles = append(l.angles, j)
			if j >= 2 && t[j-1] == '-' && t[j-2] == '-' {
				l.comments = append(l.comments, j-2)
			}
		}
	}
	w.work += len(t)
	return l
}

// nextAt returns the first position in the ascending list that is at least
// from, or -1 when there is none before limit.
func nextAt(list []int, from, limit int) int {
	k, _ := slices.BinarySearch(list, from)
	if k == len(list) || list[k] >= limit {
		return -1
	}
	return list[k]
}

// step reads the construct at t[i] within sp and returns where reading
// goes on, and the span of a link's text when one is entered.
func (l *inlineLine) step(sp inlineSpan, i int) (int, *inlineSpan) {
	t, w := l.t, l.w
	c := t[i]
	switch {
	case c == '\\' && i+1 < sp.limit && isASCIIPunct(t[i+1]):
		w.writeByte(t[i+1])
		return i + 2, nil
	case c == '`':
		return l.codeSpan(sp, i), nil
	case c == '!' && i+1 < sp.limit && t[i+1] == '[':
		return l.link(sp, i+1)
	case c == '[':
		return l.link(sp, i)
	case c == '<':
		return l.inlineTag(sp, i), nil
	case c == '*':
		return i + 1, nil
	case c == '_' && !intraword(t[sp.start:sp.limit], i-sp.start):
		return i + 1, nil
	}
	w.writeByte(c)
	return i + 1, nil
}

// codeSpan copies the content of a `code span` starting at t[i]; an
// unmatched backtick run is text.
func (l *inlineLine) codeSpan(sp inlineSpan, i int) int {
	t, w := l.t, l.w
	n := 0
	for i+n < sp.limit && t[i+n] == '`' {
		n++
	}
	closing := bytes.Index(t[i+n:sp.limit], t[i:i+n])
	if closing < 0 {
		w.work += sp.limit - i
		w.write(string(t[i : i+n]))
		return i + n
	}
	w.work += closing
	w.write(string(bytes.TrimSpace(t[i+n : i+n+closing])))
	return i + n + closing + n
}

// link handles "[text](dest)", "[text][ref]" and a shortcut "[label]" the
// document defines at t[i] == '[': it enters the text, so that emphasis
// inside is dropped too, and resumes after the link. Anything else is a
// literal '['.
func (l *inlineLine) link(sp inlineSpan, i int) (int, *inlineSpan) {
	end := -1
	if k, ok := slices.BinarySearch(l.opens, i); ok {
		end = l.closeOf[k]
	}
	if end < 0 || end >= sp.limit {
		l.w.writeByte('[')
		return i + 1, nil
	}
	text := &inlineSpan{start: i + 1, limit: end}
	next := end + 1
	switch {
	case next < sp.limit && l.t[next] == '(':
		if close := nextAt(l.parens, next, sp.limit); close >= 0 {
			text.resume = close + 1
			return i + 1, text
		}
	case next < sp.limit && l.t[next] == '[':
		if close := nextAt(l.squares, next, sp.limit); close >= 0 {
			text.resume = close + 1
			return i + 1, text
		}
	case l.isLabel(i, end):
		text.resume = next
		return i + 1, text
	}
	l.w.writeByte('[')
	return i + 1, nil
}

// isLabel reports whether the text of the brackets at i names a link the
// document defines. Text holding a '[' is never a label (a label holds no
// unescaped bracket); that keeps nested brackets from normalising the
// rest of their line once per level.
func (l *inlineLine) isLabel(i, end int) bool {
	if len(l.w.refs) == 0 || nextAt(l.opens, i+1, end) >= 0 {
		return false
	}
	text := l.t[i+1 : end]
	l.w.work += len(text)
	return l.w.refs[linkLabel(text)]
}

// inlineTag drops an inline HTML tag (<em>, </a>, <br/>) or comment
// (<!-- … --> within the line) or keeps the address of an autolink
// (<https://…>); a lone '<' is text, and so is a '<' whose would-be tag
// holds another '<' (neither a tag nor an autolink can), which keeps a run
// of '<' from re-reading the rest of its line.
func (l *inlineLine) inlineTag(sp inlineSpan, i int) int {
	t, w := l.t, l.w
	if bytes.HasPrefix(t[i:sp.limit], []byte("<!--")) {
		if end := nextAt(l.comments, i+4, sp.limit-2); end >= 0 {
			return end + 3
		}
	}
	end := nextAt(l.angles, i, sp.limit)
	if end < 0 || nextAt(l.lts, i+1, end) >= 0 {
		w.writeByte('<')
		return i + 1
	}
	body := t[i+1 : end]
	switch {
	case bytes.Contains(body, []byte("://")) && bytes.IndexByte(body, ' ') < 0:
		w.write(string(body))
	case len(body) > 0 && (isASCIILetter(body[0]) || (body[0] == '/' && len(body) > 1 && isASCIILetter(body[1]))):
	default:
		w.writeByte('<')
		return i + 1
	}
	w.work += len(body)
	return end + 1
}

// intraword reports whether the '_' at t[i] sits between two word runes
// (as in snake_case or belongs_to), where it is text, not emphasis.
func intraword(t []byte, i int) bool {
	if i == 0 || i+1 >= len(t) {
		return false
	}
	before, _ := utf8.DecodeLastRune(t[:i])
	after, _ := utf8.DecodeRune(t[i+1:])
	return isWord(before) && isWord(after)
}
