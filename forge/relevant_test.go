package forge

import (
	"reflect"
	"testing"

	"formation/artifact"
)

// TestRelevantKeepsTheResult: validating against only the relevant existing
// triples gives exactly the result of validating against all of them, and
// the triples that touch neither a candidate nor a hint term are left out.
func TestRelevantKeepsTheResult(t *testing.T) {
	f := newFixture(t)
	src := f.cite(primarySHA, "First focus, then blur.")
	smelted := artifact.SmeltedBundle{
		Relations: []artifact.RelationCandidate{
			rc("Light", "is", "wave", f.cite(primarySHA, "Light is wave.")),
			rc("lens", "is", "glass", f.cite(primarySHA, "Lens is glass.")),
			rc("focus", "precedes", "blur", f.cite(primarySHA, "focus precedes blur.")),
		},
		OrderingHints: []artifact.OrderingHint{oh("focus", "blur", src), oh("optics", "focus"), oh("Mirror", "focus")},
	}
	existing := []artifact.Triple{
		{Head: "light", Relation: "is", Tail: "WAVE"},      // a candidate: R4 drops it
		{Head: "Optics", Relation: "has", Tail: "history"}, // names a hint term
		{Head: "prism", Relation: "has", Tail: "mirror"},   // names a hint term as tail
		{Head: "prism", Relation: "produces", Tail: "spectrum"},
		{Head: "lens", Relation: "is", Tail: "plastic"},
		{Head: "light", Relation: "is", Tail: "wave"}, // a duplicate in another case
	}
	rel := Relevant(existing, smelted, nil)
	want := []artifact.Triple{{Head: "light", Relation: "is", Tail: "wave"}, {Head: "optics", Relation: "has", Tail: "history"},
		{Head: "prism", Relation: "has", Tail: "mirror"}}
	if !reflect.DeepEqual(rel, want) {
		t.Fatalf("Relevant = %v, want %v", rel, want)
	}
	all, some := f.cfg, f.cfg
	all.Existing, some.Existing = existing, rel
	a, b := validate(t, all, smelted), validate(t, some, smelted)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("results differ:\nall      %+v\nrelevant %+v", a, b)
	}
	if len(a.VTS.Relations) != 2 || len(a.VTS.OrderingHints) != 3 {
		t.Fatalf("fixture lost its point: relations %+v hints %+v", a.VTS.Relations, a.VTS.OrderingHints)
	}
}
