package mining

import (
	"bytes"
	"unicode"
)

// markdownText extracts the prose of a Markdown document (markdown-text/3).
// It is a small, line-based reading of the common syntax, not a full
// CommonMark renderer; what it does is fixed by this list and its tests:
//   - fenced code blocks (``` or ~~~) and indented code blocks that do not
//     continue a paragraph are dropped;
//   - HTML comments (<!-- … -->, on one line or several) and the raw HTML
//     blocks that hold no prose (<pre>, <script>, <style>, <textarea>, up
//     to their closing tag) are dropped, so that neither metadata kept in
//     comments nor code becomes text;
//   - ATX headings (# …) and setext headings (a line underlined with === or
//     ---) become blocks of their own; thematic breaks end a block;
//   - list items, blockquote lines ('>' stripped) and table cells each start
//     a block; table separator rows and link reference definitions are
//     dropped;
//   - inline: links and images keep their text ([text](url) → text,
//     [text][ref] → text, [label] → label when the document defines the
//     label, ![alt](url) → alt), code spans keep their content, emphasis markers
//     (* and _ at word edges) and inline HTML tags are dropped, backslash
//     escapes keep the escaped character; a '<' whose would-be tag holds
//     another '<' is text, and bracketed text holding a '[' is never a
//     shortcut label;
//   - the reading is linear in the line however the brackets nest (see
//     inlineLine);
//   - paragraph lines keep their line breaks; blocks are separated by a
//     blank line.
func markdownText(raw []byte) []byte {
	w := blockWriter{refs: linkLabels(raw)}
	var fence []byte  // the open fence's marker run, nil outside code
	var closer []byte // what ends the open HTML block, nil outside one
	for _, line := range bytes.Split(raw, []byte{'\n'}) {
		line = bytes.TrimSuffix(line, []byte{'\r'})
		switch {
		case fence != nil:
			if closesFence(line, fence) {
				fence = nil
			}
		case closer != nil:
			if bytes.Contains(bytes.ToLower(line), closer) {
				closer = nil
			}
		default:
			fence, closer = markdownLine(&w, line)
		}
	}
	return w.bytes()
}

// markdownLine handles one line outside a fenced block or an HTML block
// and returns the fence marker when the line opens a fenced block, or what
// closes the HTML block it opens.
func markdownLine(w *blockWriter, line []byte) (fence, closer []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		w.endBlock()
		return nil, nil
	}
	if indentWidth(line) < 4 {
		if c, ok := htmlBlock(bytes.TrimLeft(line, " ")); ok {
			w.endBlock()
			return nil, c
		}
	}
	return proseLine(w, line), nil
}

// htmlBlock recognises a line opening an HTML block that holds no prose: a
// comment, or a pre, script, style or textarea element. It returns what
// closes the block, or nil when the line closes it already.
func htmlBlock(t []byte) ([]byte, bool) {
	if bytes.HasPrefix(t, []byte("<!--")) {
		if bytes.Contains(t[4:], []byte("-->")) {
			return nil, true
		}
		return []byte("-->"), true
	}
	low := bytes.ToLower(t)
	for _, tag := range []string{"pre", "script", "style", "textarea"} {
		open := []byte("<" + tag)
		if !bytes.HasPrefix(low, open) || (len(low) > len(open) && !bytes.ContainsAny(low[len(open):len(open)+1], " \t>")) {
			continue
		}
		closeTag := []byte("</" + tag + ">")
		if bytes.Contains(low, closeTag) {
			return nil, true
		}
		return closeTag, true
	}
	return nil, false
}

// proseLine handles one line that is neither blank nor raw HTML and
// returns the fence marker when the line opens a fenced block.
func proseLine(w *blockWriter, line []byte) []byte {
	if indentWidth(line) >= 4 && len(w.cur) == 0 {
		return nil // indented code block
	}
	t := bytes.TrimLeft(line, " \t")
	if f := fenceMarker(t); f != nil {
		w.endBlock()
		return f
	}
	for len(t) > 0 && t[0] == '>' { // blockquote markers
		t = bytes.TrimLeft(t[1:], " \t")
	}
	if len(t) == 0 { // an empty quoted line separates paragraphs
		w.endBlock()
		return nil
	}
	switch {
	case setextUnderline(t) && len(w.cur) > 0:
		w.endBlock()
		return nil
	case thematicBreak(t):
		w.endBlock()
		return nil
	case linkDefinition(t):
		return nil
	}
	if h, ok := atxHeading(t); ok {
		w.endBlock()
		inline(w, h)
		w.endBlock()
		return nil
	}
	if t[0] == '|' {
		pipeRow(w, t)
		return nil
	}
	if item, ok := listItem(t); ok {
		w.endBlock()
		t = item
	} else if len(w.cur) > 0 {
		w.writeByte('\n')
	}
	before := len(w.cur)
	inline(w, t)
	if len(bytes.TrimSpace(w.cur[before:])) == 0 {
		// The line held only markup ("<a>"): drop it, with its line
		// break, so that no blank line appears inside the paragraph.
		w.cur = bytes.TrimRight(w.cur[:before], "\n")
	}
	return nil
}

func indentWidth(line []byte) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

// fenceMarker returns the run of three or more backticks or tildes that
// opens a fenced code block, or nil.
func fenceMarker(t []byte) []byte {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return nil
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && bytes.IndexByte(t[n:], '`') >= 0) {
		return nil
	}
	return t[:n:n]
}

// closesFence reports whether line closes the fenced block opened by fence:
// at least as many of the same marker, then only spaces.
func closesFence(line, fence []byte) bool {
	t := bytes.TrimRight(bytes.TrimLeft(line, " "), " \t")
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && n == len(t)
}

// onlyRunes reports whether t (ignoring spaces) consists of at least min
// copies of one of the given marker bytes.
func onlyRunes(t []byte, markers string, min int) bool {
	var mark byte
	n := 0
	for _, c := range t {
		switch {
		case c == ' ' || c == '\t':
		case mark == 0 && bytes.IndexByte([]byte(markers), c) >= 0:
			mark = c
			n++
		case c == mark:
			n++
		default:
			return false
		}
	}
	return n >= min
}

func setextUnderline(t []byte) bool {
	t = bytes.TrimRight(t, " \t")
	return len(t) > 0 && bytes.IndexByte(t, ' ') < 0 && onlyRunes(t, "=-", 1)
}

func thematicBreak(t []byte) bool { return onlyRunes(t, "-*_", 3) }

// linkLabels returns the labels the document defines ("[label]: url"),
// lower-cased with white space collapsed, so that a shortcut link
// "[label]" can be rendered as its text.
func linkLabels(raw []byte) map[string]bool {
	var labels map[string]bool
	for _, line := range bytes.Split(raw, []byte{'\n'}) {
		t := bytes.TrimLeft(line, " ")
		if !linkDefinition(t) {
			continue
		}
		if labels == nil {
			labels = map[string]bool{}
		}
		labels[linkLabel(t[1:bytes.Index(t, []byte("]:"))])] = true
	}
	return labels
}

// linkLabel is a label's matching form: lower-cased, white space collapsed.
func linkLabel(b []byte) string {
	return string(bytes.ToLower(bytes.Join(bytes.Fields(b), []byte{' '})))
}

// linkDefinition recognises "[label]: destination".
func linkDefinition(t []byte) bool {
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	end := bytes.Index(t, []byte("]:"))
	return end > 1 && bytes.IndexByte(t[1:end], ']') < 0
}

// atxHeading returns the text of "# Heading ##".
func atxHeading(t []byte) ([]byte, bool) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return nil, false
	}
	h := bytes.TrimSpace(t[n:])
	if closing := bytes.TrimRight(h, "#"); len(closing) < len(h) && (len(closing) == 0 || closing[len(closing)-1] == ' ') {
		h = bytes.TrimSpace(closing)
	}
	return h, true
}

// listItem returns the text after a bullet ("- ", "* ", "+ ") or an
// ordered marker ("12. ", "3) ").
func listItem(t []byte) ([]byte, bool) {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return bytes.TrimLeft(t[2:], " \t"), true
	}
	n := 0
	for n < len(t) && n < 9 && '0' <= t[n] && t[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && (t[n+1] == ' ' || t[n+1] == '\t') {
		return bytes.TrimLeft(t[n+2:], " \t"), true
	}
	return nil, false
}

// pipeRow writes each cell of a pipe table row as its own block; the
// separator row (|---|:--:|) is dropped.
func pipeRow(w *blockWriter, t []byte) {
	if onlyRunes(bytes.Map(func(r rune) rune {
		if r == '|' || r == ':' {
			return ' '
		}
		return r
	}, t), "-", 1) {
		return
	}
	w.endBlock()
	for _, cell := range bytes.Split(bytes.Trim(bytes.TrimSpace(t), "|"), []byte{'|'}) {
		inline(w, bytes.TrimSpace(cell))
		w.endBlock()
	}
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func isASCIILetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

func isASCIIPunct(c byte) bool {
	return ('!' <= c && c <= '/') || (':' <= c && c <= '@') || ('[' <= c && c <= '`') || ('{' <= c && c <= '~')
}
