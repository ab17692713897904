package smelting

import (
	"bytes"
	"testing"

	"formation/artifact"
)

// permutations returns every ordering of xs.
func permutations[T any](xs []T) [][]T {
	if len(xs) <= 1 {
		return [][]T{append([]T(nil), xs...)}
	}
	var out [][]T
	for i := range xs {
		rest := append(append([]T(nil), xs[:i]...), xs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]T{xs[i]}, p...))
		}
	}
	return out
}

// TestEntryOrderDoesNotMatter smelts the same entries in every order and
// requires byte-identical canonical output. The entries are chosen so that
// order could matter: two definitions of one term in different sources,
// one text listed twice under different adapters and dates, two table rows
// of one source, and one claim in three sources.
func TestEntryOrderDoesNotMatter(t *testing.T) {
	a := "Aperture means the opening of the lens. Light reveals texture. Photography requires exposure."
	b := "Aperture is an adjustable iris. Light reveals texture. It is a misconception that the flash is daylight."
	row1, row2 := "Light reveals texture.", "Exposure is a balance of light and time."
	table := "table bytes"
	row := func(text string) artifact.OreEntry {
		return artifact.OreEntry{SourceSHA: digest(table), Adapter: "table", RetrievedAt: testDate, TextSHA: digest(text), URL: "t#" + text[:4]}
	}
	again := plainEntry(a, "folder")
	again.RetrievedAt = "2026-01-01T00:00:00Z"
	entries := []artifact.OreEntry{plainEntry(a, "file"), plainEntry(b, "file"), again, row(row1), row(row2)}
	texts := map[string][]byte{digest(a): []byte(a), digest(b): []byte(b), digest(row1): []byte(row1), digest(row2): []byte(row2)}

	for _, id := range Extractors() {
		var first []byte
		for _, order := range permutations(entries) {
			out, err := SmeltWith(artifact.OreBundle{SubjectID: "s", Entries: order}, texts, Options{Extractor: id})
			if err != nil {
				t.Fatal(err)
			}
			enc, err := artifact.Encode(out)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = enc
				checkDeterminismFixture(t, out)
				continue
			}
			if !bytes.Equal(enc, first) {
				t.Fatalf("%s: entry order changed the output:\n%s\nvs\n%s", id, enc, first)
			}
		}
	}
}

// checkDeterminismFixture checks the choices the fixture exercises: the
// repeated text cites the smallest adapter, and the claim made by two
// sources and a table row cites all three texts.
func checkDeterminismFixture(t *testing.T, out artifact.SmeltedBundle) {
	t.Helper()
	for _, r := range out.Relations {
		if r.Head != "light" || r.Relation != "reveals" {
			continue
		}
		if len(r.Sources) != 3 {
			t.Fatalf("(light reveals texture) cites %d texts, want 3: %+v", len(r.Sources), r.Sources)
		}
		for _, ref := range r.Sources {
			if ref.Adapter == "folder" {
				t.Fatalf("the repeated text must cite the smallest (adapter, retrieved_at): %+v", ref)
			}
		}
		return
	}
	t.Fatal("(light reveals texture) missing")
}

// TestSmeltTwiceIdentical: the same input smelted twice gives the same bytes.
func TestSmeltTwiceIdentical(t *testing.T) {
	text := "Wisdom is defined as practical judgment. Calculus requires algebra. Not fire causes smoke. A lens is a curved glass."
	x, err := artifact.Encode(smeltPlain(t, text))
	if err != nil {
		t.Fatal(err)
	}
	y, err := artifact.Encode(smeltPlain(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Fatalf("two smelts differ:\n%s\n%s", x, y)
	}
}
