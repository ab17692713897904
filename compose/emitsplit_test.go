package compose

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"formation/compose/fixtures"
)

// emitWith writes v as EmitYAML does, with the given number of workers.
func emitWith(v any, workers int) ([]byte, error) {
	e := emitter{buf: make([]byte, 0, 4096), workers: workers}
	if err := e.node(v, 0); err != nil {
		return nil, err
	}
	return e.bytes(), nil
}

// longBody has lists past splitItems at several depths: a mapping's list,
// a list nested in a list item, and one whose length does not divide.
func longBody() map[string]any {
	items := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			switch i % 3 {
			case 0:
				out[i] = map[string]any{"head": fmt.Sprint("term", i), "sources": []any{map[string]any{"span": strings.Repeat("x", i%90)}}}
			case 1:
				out[i] = fmt.Sprint("item ", i, ": with a colon")
			default:
				out[i] = []any{i, true, nil}
			}
		}
		return out
	}
	return map[string]any{
		"relations": items(splitItems*2 + 1),
		"walks":     []any{items(splitItems + 7), map[string]any{}},
		"short":     items(5),
	}
}

// TestSplitListIsOneEmitter holds the parts written side by side equal to
// the bytes one emitter writes, for any number of workers, on a long body
// and on a real course.
func TestSplitListIsOneEmitter(t *testing.T) {
	in := fixtures.Synthetic(3000)
	course, err := Render(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]any{"long": longBody(), "course": course} {
		want, err := emitWith(body, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 3, 8} {
			got, err := emitWith(body, workers)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s, %d workers: %d bytes (%v), one emitter wrote %d", name, workers, len(got), err, len(want))
			}
		}
	}
}

// TestSplitListReportsFirstError: with bad items in several parts, the
// error is the first bad item's, at its index in the whole list.
func TestSplitListReportsFirstError(t *testing.T) {
	body := longBody()
	list := body["relations"].([]any)
	list[len(list)-1] = 1.5
	list[splitItems+3] = "bad \xff"
	for _, workers := range []int{1, 2, 3} {
		_, err := emitWith(body, workers)
		var ce *Error
		if !errors.As(err, &ce) || ce.Kind != KindInvalidUTF8 || ce.Path != fmt.Sprintf(`$."relations"[%d]`, splitItems+3) {
			t.Fatalf("%d workers: %v", workers, err)
		}
	}
}
