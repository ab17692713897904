package mining

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pathological returns Markdown shapes that made the inline reading
// quadratic or deeper, at about n bytes each: nested and unclosed
// brackets, links nested in links' text, runs of '<', unclosed
// destinations and comments, emphasis runs.
func pathological(n int) map[string]string {
	return map[string]string{
		"nested-brackets":    strings.Repeat("[", n/2) + strings.Repeat("]", n/2),
		"nested-links":       strings.Repeat("[", n/5) + "x" + strings.Repeat("](u)", n/5),
		"nested-images":      strings.Repeat("![", n/4) + "x" + strings.Repeat("]", n/4),
		"unclosed-brackets":  strings.Repeat("[", n),
		"unclosed-angles":    strings.Repeat("<", n-1) + ">",
		"unclosed-dests":     strings.Repeat("[a](", n/4),
		"unclosed-comments":  strings.Repeat("<!--", n/4),
		"emphasis":           strings.Repeat("*a_", n/3),
		"nested-labels":      "[a]: /u\n" + strings.Repeat("[", n/2) + "a" + strings.Repeat("]", n/2),
		"backtick-staircase": staircase(n),
	}
}

// staircase is runs of backticks of falling length, none of which closes.
func staircase(n int) string {
	var b strings.Builder
	for k := 1; b.Len() < n; k++ {
		b.WriteString(strings.Repeat("`", k))
		b.WriteString(" a ")
	}
	return b.String()
}

// TestInlineWorkIsLinear bounds the inline reading's work counter (loop
// steps, bytes scanned and indexed) by a constant times the input on every
// pathological shape, at two sizes: a quadratic reading would exceed it by
// orders of magnitude at the larger.
func TestInlineWorkIsLinear(t *testing.T) {
	for _, n := range []int{1_000, 64_000} {
		for name, doc := range pathological(n) {
			if name == "backtick-staircase" {
				continue // bounded separately: see below
			}
			w := blockWriter{refs: linkLabels([]byte(doc))}
			for _, line := range strings.Split(doc, "\n") {
				inline(&w, []byte(line))
			}
			if limit := 8 * len(doc); w.work > limit {
				t.Errorf("%s at %d bytes: %d steps, want at most %d", name, len(doc), w.work, limit)
			}
		}
	}
}

// TestBacktickStaircaseIsSubquadratic: an unclosed backtick run is looked
// for once per run, and the runs that can fail have falling lengths, so
// there are at most about the square root of the line's length of them.
func TestBacktickStaircaseIsSubquadratic(t *testing.T) {
	doc := staircase(64_000)
	w := blockWriter{}
	inline(&w, []byte(doc))
	if limit := 2 * len(doc) * 400; w.work > limit {
		t.Fatalf("%d steps on %d bytes, want at most %d", w.work, len(doc), limit)
	}
}

// TestPathologicalMarkdownText: a 400 KB line of each shape extracts to
// well-formed text, and nested links keep their text.
func TestPathologicalMarkdownText(t *testing.T) {
	for name, doc := range pathological(400_000) {
		got, err := Extract("markdown", []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkExtracted(t, "markdown", []byte(doc), got)
	}
	got, _ := Extract("markdown", []byte("[[[x](a) y](b) z](c) and [w]\n\n[w]: /u\n"))
	if want := "x y z and w\n"; string(got) != want {
		t.Fatalf("nested links read %q, want %q", got, want)
	}
}

// TestInlineTagHoldingAngleIsText: "<a<b>" is not a tag: the first '<' is
// text and the tag "<b>" is dropped.
func TestInlineTagHoldingAngleIsText(t *testing.T) {
	got, _ := Extract("markdown", []byte("x <a<b> y\n"))
	if want := "x <a y\n"; string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// BenchmarkPathologicalMarkdown mines each 400 KB shape (make bench).
func BenchmarkPathologicalMarkdown(b *testing.B) {
	for name, doc := range pathological(400_000) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := Extract("markdown", []byte(doc)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWritePathologicalSeeds keeps small copies of the shapes in the fuzz
// seed corpus (FORMATION_WRITE_SEEDS=1 rewrites them).
func TestWritePathologicalSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzMarkdownText")
	for name, doc := range pathological(2_000) {
		path := filepath.Join(dir, "pathological-"+name)
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", doc)
		if os.Getenv("FORMATION_WRITE_SEEDS") == "1" {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("seed %s is missing or stale (FORMATION_WRITE_SEEDS=1 go test -run WritePathologicalSeeds ./mining)", path)
		}
	}
}
