package mining

import (
	"os"
	"regexp"
	"testing"

	"formation/internal/testutil"
)

func TestHTMLText(t *testing.T) {
	in := `<!doctype html><html><head><title>Ignored title</title><style>p{}</style></head>
<body><h1>Light</h1>
<p>Light is defined as   electromagnetic
radiation.<script>alert("never run")</script> A <b>lens</b> bends light.</p>
<ul><li>Refraction bends light</li><li>Reflection &amp; mirrors</li></ul>
<table><tr><td>cell one</td><td>cell two</td></tr></table>
<p>first line<br>second line</p>
<pre>keep   this
  spacing</pre><!-- a comment -->
<template><p>hidden</p></template><noscript>no script text</noscript>
<p>Caf&eacute; &lt;tag&gt; text</p></body></html>`
	got, err := Extract("html", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "Light\n\nLight is defined as electromagnetic radiation. A lens bends light.\n\nRefraction bends light\n\nReflection & mirrors\n\ncell one\n\ncell two\n\nfirst line\n\nsecond line\n\nCafé <tag> text\n"
	if string(got) != want {
		t.Errorf("html text:\n got %q\nwant %q", got, want)
	}
}

// TestCodeIsNotProse: preformatted HTML and Markdown code blocks, HTML
// comments and raw HTML blocks never reach the text, and what is around
// them stays in separate blocks.
func TestCodeIsNotProse(t *testing.T) {
	cases := []struct{ format, in, want string }{
		{"html", "<p>Before.</p><pre>A lens is a curved glass.\n\nx := 1</pre><p>After.</p>", "Before.\n\nAfter.\n"},
		{"html", "text<pre class=example>int main() { return 0; }</pre>more", "text\n\nmore\n"},
		{"html", "<div class=example><pre>$ make demo</pre></div><p>Done.</p>", "Done.\n"},
		{"html", "<xmp>The sky is green.</xmp>ok <listing>Water is dry.</listing>", "ok\n"},
		{"html", "<p>Inline <code>x := 1</code> code stays.</p>", "Inline x := 1 code stays.\n"},
		{"markdown", "Before.\n\n```\nA lens is a curved glass.\n```\n\nAfter.\n", "Before.\n\nAfter.\n"},
		{"markdown", "Before.\n\n~~~~js\n```\nnot closed by a shorter fence\n```\n~~~~\nAfter.\n", "Before.\n\nAfter.\n"},
		{"markdown", "Para.\n\n    indented code is code\n\n* item\n", "Para.\n\nitem\n"},
		{"markdown", "# Title\n\n<!--introduced_in=v0.1.25-->\n\nText.\n", "Title\n\nText.\n"},
		{"markdown", "<!-- YAML\nadded: v0.1.99\nchanges:\n  - description: The object is a map.\n-->\n\nText.\n", "Text.\n"},
		{"markdown", "Text <!-- hidden --> shown.\n", "Text  shown.\n"},
		{"markdown", "<pre>\nThe sky is green.\n</pre>\nAfter.\n", "After.\n"},
		{"markdown", "<PRE class=x>\ncode</pre>\n<script>\nalert(1)\n</script>\n<style>p{}</style>\nAfter.\n", "After.\n"},
		{"markdown", "<prefix> is not a pre tag\n", "is not a pre tag\n"},
		{"markdown", "[pip-tools] is a package; [Other Label] too; [undefined] stays.\n\n[pip-tools]: https://example.org\n[other   label]:\n  https://example.org\n", "pip-tools is a package; Other Label too; [undefined] stays.\n\nhttps://example.org\n"},
		{"markdown", "## Heading\nA paragraph.\n- item one\n- item two\n\n| a | b |\n|---|---|\n| c | d |\n", "Heading\n\nA paragraph.\n\nitem one\n\nitem two\n\na\n\nb\n\nc\n\nd\n"},
	}
	for _, c := range cases {
		got, err := Extract(c.format, []byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("Extract(%s, %q) = %q, %v; want %q", c.format, c.in, got, err, c.want)
			continue
		}
		checkExtracted(t, c.format, []byte(c.in), got)
	}
}

func TestHTMLTextEdgeCases(t *testing.T) {
	cases := map[string]string{
		"":                                  "",
		"plain words":                       "plain words\n",
		"<p>unclosed <div>nested":           "unclosed\n\nnested\n",
		"<svg><text>drawn</text></svg>body": "body\n",
		"a<span> </span>b":                  "a b\n",
	}
	for in, want := range cases {
		got, err := Extract("html", []byte(in))
		if err != nil || string(got) != want {
			t.Errorf("Extract(html, %q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Extract("html", []byte("<p>\xff</p>")); err == nil {
		t.Error("invalid UTF-8 must be refused")
	}
}

func TestMarkdownText(t *testing.T) {
	in := "# Light\n\nLight is defined as *electromagnetic* radiation.\nIt travels **fast**.\n\n" +
		"Setext heading\n==============\n" +
		"- Refraction bends light\n- A [prism](https://example.org/p) produces a `spectrum`\n1. Glass belongs_to optics\n\n" +
		"```go\nfmt.Println(\"code is not prose\")\n```\n\n" +
		"> Quoted _claim_ here.\n\n" +
		"| term | meaning |\n|------|:-------:|\n| lens | glass |\n\n" +
		"![an image alt](img.png) and <em>inline</em> html and <https://example.org>\n\n" +
		"[ref]: https://example.org\n\n---\n    indented code\n\\*literal star\\*\r\n"
	got, err := Extract("markdown", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "Light\n\nLight is defined as electromagnetic radiation.\nIt travels fast.\n\nSetext heading\n\n" +
		"Refraction bends light\n\nA prism produces a spectrum\n\nGlass belongs_to optics\n\n" +
		"Quoted claim here.\n\nterm\n\nmeaning\n\nlens\n\nglass\n\n" +
		"an image alt and inline html and https://example.org\n\n*literal star*\n"
	if string(got) != want {
		t.Errorf("markdown text:\n got %q\nwant %q", got, want)
	}
}

func TestPlainTextIsRaw(t *testing.T) {
	raw := []byte("Light\r\nis  light.\n")
	got, err := Extract("text", raw)
	if err != nil || string(got) != string(raw) {
		t.Errorf("plain text must be used as it is: %q %v", got, err)
	}
	if _, err := Extract("text", []byte{0xc3}); err == nil {
		t.Error("invalid UTF-8 text must be refused")
	}
	if _, err := Extract("pdf", raw); err == nil {
		t.Error("an unknown format must be refused")
	}
}

// TestExtractorVersionPinsXNet keeps ExtractorVersion honest: the HTML
// extractor's behaviour is golang.org/x/net's, so its version is in the
// string and must be the one go.mod requires.
func TestExtractorVersionPinsXNet(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(root + "/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`golang\.org/x/net (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require golang.org/x/net")
	}
	want := "golang.org/x/net@" + string(m[1])
	if !regexp.MustCompile(regexp.QuoteMeta(want) + `(;|$)`).MatchString(ExtractorVersion) {
		t.Errorf("ExtractorVersion %q does not name %s", ExtractorVersion, want)
	}
}
