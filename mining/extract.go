package mining

import (
	"unicode/utf8"

	"formation/courses"
)

// ExtractorVersion names the behaviour of the text extractors: the HTML
// extractor (html-text/2, on golang.org/x/net/html at the version pinned in
// go.mod) and the Markdown extractor (markdown-text/3). Plain text is
// used as it is. Any change to what an extractor outputs for the same bytes
// must change this string, which is part of the mine stage's cache key. A
// test keeps the x/net version here equal to go.mod's.
const ExtractorVersion = "html-text/2+golang.org/x/net@v0.62.0;markdown-text/3;plain-text/1"

// Extract returns the text of raw bytes in the given document format.
// Extracted text is block-structured: headings, paragraphs, list items and
// table cells are separated by a blank line, which the smelter treats as a
// sentence boundary, so that a heading never runs into the sentence after
// it. For plain text the text is raw itself (same object, same digest).
func Extract(format string, raw []byte) ([]byte, error) {
	if !utf8.Valid(raw) {
		return nil, refuse(CodeInvalidUTF8, "the %s source is not valid UTF-8", format)
	}
	switch format {
	case courses.FormatText:
		return raw, nil
	case courses.FormatMarkdown:
		return markdownText(raw), nil
	case courses.FormatHTML:
		return htmlText(raw)
	}
	return nil, refuse(CodeUnsupported, "format %q is not a document format", format)
}

// blockWriter accumulates extracted text block by block. Inline text is
// added to the current block; a block break finishes it (trimmed, dropped
// when empty) and separates it from the previous one by a blank line.
type blockWriter struct {
	out  []byte
	cur  []byte
	refs map[string]bool // Markdown: the link labels the document defines
	work int             // Markdown: steps of the inline reading, which tests bound
}

func (w *blockWriter) write(s string) { w.cur = append(w.cur, s...) }

func (w *blockWriter) writeByte(c byte) { w.cur = append(w.cur, c) }

// endBlock finishes the current block.
func (w *blockWriter) endBlock() {
	b := trimASCIISpace(w.cur)
	w.cur = w.cur[:0]
	if len(b) == 0 {
		return
	}
	if len(w.out) > 0 {
		w.out = append(w.out, '\n', '\n')
	}
	w.out = append(w.out, b...)
}

// bytes finishes the text: blocks, then one final newline (none when empty).
func (w *blockWriter) bytes() []byte {
	w.endBlock()
	if len(w.out) == 0 {
		return []byte{}
	}
	return append(w.out, '\n')
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func trimASCIISpace(b []byte) []byte {
	for len(b) > 0 && isASCIISpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isASCIISpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
