package smelting

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"formation/artifact"
)

// FuzzSmelt smelts arbitrary text (seed corpus: testdata/fuzz/FuzzSmelt)
// with the default smelter, and with PatternV2 for the span contract, and
// checks that Smelt never panics, refuses exactly the texts that are
// not UTF-8, cites only spans whose bytes are text[start:end], produces
// output the canonical encoder accepts, and gives the same bytes when the
// text arrives as two entries in either order.
func FuzzSmelt(f *testing.F) {
	f.Add("Wisdom is defined as practical judgment. Not fire causes smoke.")
	f.Add("No mammal is a reptile.\n\nA lens is a curved piece of glass!")
	f.Fuzz(func(t *testing.T, text string) {
		out, err := smeltOne(text)
		if !utf8.ValidString(text) {
			if !errors.Is(err, ErrInvalidText) {
				t.Fatalf("text that is not UTF-8 must be refused with ErrInvalidText, got %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Smelt: %v", err)
		}
		forEachRef(out, func(ref artifact.SourceRef) { checkRef(t, ref, text) })
		e := plainEntry(text, "file")
		old, err := SmeltWith(artifact.OreBundle{SubjectID: "fuzz", Entries: []artifact.OreEntry{e}}, map[string][]byte{e.SourceSHA: []byte(text)}, Options{Extractor: PatternV2})
		if err != nil {
			t.Fatalf("Smelt %s: %v", PatternV2, err)
		}
		forEachRef(old, func(ref artifact.SourceRef) { checkRef(t, ref, text) })
		enc, err := artifact.Encode(out)
		if err != nil {
			t.Fatalf("the bundle does not encode: %v", err)
		}
		again, err := smeltOne(text)
		if err != nil {
			t.Fatal(err)
		}
		if enc2, _ := artifact.Encode(again); !bytes.Equal(enc, enc2) {
			t.Fatal("two smelts of one text differ")
		}
		checkSplitOrder(t, text)
	})
}

func smeltOne(text string) (artifact.SmeltedBundle, error) {
	e := plainEntry(text, "file")
	return Smelt(artifact.OreBundle{SubjectID: "fuzz", Entries: []artifact.OreEntry{e}}, map[string][]byte{e.SourceSHA: []byte(text)})
}

// checkSplitOrder cuts text in two at a rune boundary and smelts the
// halves as two entries, in both orders: the output must not change.
func checkSplitOrder(t *testing.T, text string) {
	t.Helper()
	cut := len(text) / 2
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	a, b := text[:cut], text[cut:]
	texts := map[string][]byte{digest(a): []byte(a), digest(b): []byte(b)}
	ea, eb := plainEntry(a, "file"), plainEntry(b, "file")
	var encs [2][]byte
	for i, order := range [2][]artifact.OreEntry{{ea, eb}, {eb, ea}} {
		out, err := Smelt(artifact.OreBundle{SubjectID: "fuzz", Entries: order}, texts)
		if err != nil {
			t.Fatal(err)
		}
		if encs[i], err = artifact.Encode(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(encs[0], encs[1]) {
		t.Fatalf("entry order changed the output for the halves %q and %q", a, b)
	}
}
