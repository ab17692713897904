package mining

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlText extracts the readable text of an HTML document (html-text/2):
//   - the document is parsed by the HTML5 tree builder, so implied tags,
//     entities and misnested markup resolve as a browser would;
//   - the contents of head, script, style, template, noscript, svg, math,
//     iframe, object, embed, canvas, textarea, select and datalist are
//     dropped (they are not prose, and nothing in them is ever run);
//   - preformatted blocks (pre, and the obsolete xmp, listing and
//     plaintext) are dropped too: they hold code, command lines and
//     program output, never sentences, and a claim read out of them would
//     be a misreading; they end the block around them;
//   - block elements (p, div, headings, li, td, br, …) end a block;
//   - inside a block, runs of HTML white space collapse to one space;
//   - comments, attributes and alt texts are dropped.
func htmlText(raw []byte) ([]byte, error) {
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return nil, refuse(CodeUnsupported, "HTML parse failed: %v", err)
	}
	var w blockWriter
	walkHTML(doc, &w)
	return w.bytes(), nil
}

// htmlFrame is one step of the iterative walk: entering a node, or leaving
// an element (to end its block).
type htmlFrame struct {
	n     *html.Node
	leave bool
}

// walkHTML visits the tree depth-first without recursion: a hostile
// document may nest deeper than a goroutine stack should go.
func walkHTML(root *html.Node, w *blockWriter) {
	stack := []htmlFrame{{n: root}}
	pendingSpace := false
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := f.n
		if f.leave {
			w.endBlock()
			pendingSpace = false
			continue
		}
		switch n.Type {
		case html.TextNode:
			pendingSpace = writeCollapsed(w, n.Data, pendingSpace)
			continue
		case html.ElementNode:
			if skippedElement(n.DataAtom) {
				continue
			}
			if preformatted(n.DataAtom) {
				w.endBlock()
				pendingSpace = false
				continue
			}
			if blockElement(n.DataAtom) {
				w.endBlock()
				pendingSpace = false
				stack = append(stack, htmlFrame{n: n, leave: true})
			}
		case html.DocumentNode:
		default:
			continue // comments, doctypes, raw nodes
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, htmlFrame{n: c})
		}
	}
}

// writeCollapsed appends s with runs of HTML white space collapsed to one
// space; a space at the end of s is held back (pending) until more text
// follows in the same block.
func writeCollapsed(w *blockWriter, s string, pending bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isASCIISpace(c) {
			pending = true
			continue
		}
		if pending && len(w.cur) > 0 {
			w.writeByte(' ')
		}
		pending = false
		w.writeByte(c)
	}
	return pending
}

func skippedElement(a atom.Atom) bool {
	switch a {
	case atom.Head, atom.Title, atom.Script, atom.Style, atom.Template, atom.Noscript,
		atom.Svg, atom.Math, atom.Iframe, atom.Object, atom.Embed, atom.Canvas,
		atom.Textarea, atom.Select, atom.Datalist:
		return true
	}
	return false
}

// preformatted reports the elements whose text is laid out by hand: code,
// command lines, program output.
func preformatted(a atom.Atom) bool {
	return a == atom.Pre || a == atom.Xmp || a == atom.Listing || a == atom.Plaintext
}

func blockElement(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Br,
		atom.Caption, atom.Dd, atom.Details, atom.Dialog, atom.Div, atom.Dl, atom.Dt,
		atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hgroup,
		atom.Hr, atom.Html, atom.Legend, atom.Li, atom.Main, atom.Menu, atom.Nav, atom.Ol,
		atom.P, atom.Section, atom.Summary, atom.Table, atom.Tbody, atom.Td,
		atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul:
		return true
	}
	return false
}
