package forge

import (
	"bytes"
	"slices"
	"testing"

	"formation/artifact"
)

// richBundle mixes every outcome: byte-checked and curated citations,
// duplicates spelled differently, malformed and screened candidates, a
// conflicting definition, an ordering cycle.
func richBundle(f *fixture) artifact.SmeltedBundle {
	lensGlass := f.cite(primarySHA, "Lens is glass.")
	sec1, sec2 := f.cite(secondary1, "Sun produces light."), f.cite(secondary2, "The sun produces light.")
	return artifact.SmeltedBundle{
		Relations: []artifact.RelationCandidate{
			rc("lens", "is", "glass", lensGlass),
			rc("Lens", "is", "Glass", plain(curatedSHA, "Lens is glass."), lensGlass),
			rc("sun", "produces", "light", sec1),
			rc("sun", "produces", "light", sec2),
			rc("lens", "belongs_to", "optics", plain(curatedSec, "Lens belongs to optics."), f.cite(secondary3, "Lenses belong to optics.")),
			rc("the lens", "is", "glass", lensGlass),
			rc("self", "is", "mirror", lensGlass),
			rc("prism", "has", "facets", plain("../x", "x"), lensGlass),
			rc("focus", "precedes", "exposure", f.cite(llmSHA, "Focus precedes exposure.")),
		},
		Counters: []artifact.CounterCandidate{
			rc("lens", "is", "flat", f.cite(primarySHA, "Not lens is flat.")),
			rc("Lens", "is", "flat", f.cite(secondary1, "Not lens is flat!")),
			rc("light", "is", "self", lensGlass),
		},
		Concepts: []artifact.ConceptCandidate{
			cc("lens", "a refracting element", lensGlass),
			cc("Lens", "a curved glass", plain(curatedSHA, "Lens: a curved glass.")),
			cc("sun", "a star", sec1, sec2),
			cc("truth", "what is the case", lensGlass),
		},
		OrderingHints: []artifact.OrderingHint{
			oh("lens", "glass"), oh("glass", "optics"), oh("optics", "lens"),
			oh("sun", "light", sec1), oh("Sun", "Light", sec2), oh("light", "unknown"),
		},
	}
}

// permuted returns the bundle with every list reversed and rotated and every
// citation list reversed: the same input in another order.
func permuted(b artifact.SmeltedBundle, rot int) artifact.SmeltedBundle {
	reorder := func(n int) []int {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = (n - 1 - i + rot) % max(n, 1)
		}
		return idx
	}
	var out artifact.SmeltedBundle
	for _, i := range reorder(len(b.Relations)) {
		c := b.Relations[i]
		c.Sources = reversed(c.Sources)
		out.Relations = append(out.Relations, c)
	}
	for _, i := range reorder(len(b.Counters)) {
		c := b.Counters[i]
		c.Sources = reversed(c.Sources)
		out.Counters = append(out.Counters, c)
	}
	for _, i := range reorder(len(b.Concepts)) {
		c := b.Concepts[i]
		c.Sources = reversed(c.Sources)
		out.Concepts = append(out.Concepts, c)
	}
	for _, i := range reorder(len(b.OrderingHints)) {
		h := b.OrderingHints[i]
		h.Sources = reversed(h.Sources)
		out.OrderingHints = append(out.OrderingHints, h)
	}
	return out
}

func reversed(refs []artifact.SourceRef) []artifact.SourceRef {
	out := slices.Clone(refs)
	slices.Reverse(out)
	return out
}

func TestOrderIndependence(t *testing.T) {
	f := newFixture(t)
	b := richBundle(f)
	want := encodeResult(t, validate(t, f.cfg, b))
	for rot := 0; rot < 5; rot++ {
		if got := encodeResult(t, validate(t, f.cfg, permuted(b, rot))); !bytes.Equal(got, want) {
			t.Fatalf("rotation %d changed the output:\n%s\nwant\n%s", rot, got, want)
		}
	}
	// The allow-list's construction order does not matter either.
	entries := f.cfg.Allowlist.Entries()
	slices.Reverse(entries)
	f.cfg.Allowlist, _ = NewAllowlist(entries)
	if got := encodeResult(t, validate(t, f.cfg, b)); !bytes.Equal(got, want) {
		t.Fatal("allow-list order changed the output")
	}
}

func TestOutputSorted(t *testing.T) {
	f := newFixture(t)
	res := validate(t, f.cfg, richBundle(f))
	v := res.VTS
	if !slices.IsSortedFunc(v.Relations, func(a, b artifact.RelationCandidate) int { return compareTriple(a.Triple(), b.Triple()) }) ||
		!slices.IsSortedFunc(v.Counters, func(a, b artifact.RelationCandidate) int { return compareTriple(a.Triple(), b.Triple()) }) ||
		!slices.IsSortedFunc(v.Quarantined, compareCandidate) ||
		!slices.IsSortedFunc(v.Concepts, compareConcept) ||
		!slices.IsSortedFunc(v.OrderingHints, compareHint) ||
		!slices.IsSortedFunc(res.Findings, Finding.compare) {
		t.Fatalf("output not sorted: %+v", res)
	}
	for _, list := range [][]artifact.RelationCandidate{v.Relations, v.Counters, v.Quarantined} {
		for _, c := range list {
			if !slices.IsSortedFunc(c.Sources, compareSource) {
				t.Errorf("%q: sources not sorted", c.Triple())
			}
		}
	}
	if len(v.Relations) != 3 || len(v.Concepts) != 2 || len(v.Counters) != 1 || len(v.OrderingHints) != 1 {
		t.Errorf("unexpected outcome counts: %d relations %d concepts %d counters %d hints\n%+v",
			len(v.Relations), len(v.Concepts), len(v.Counters), len(v.OrderingHints), v)
	}
}
