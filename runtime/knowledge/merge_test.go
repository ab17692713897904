package knowledge

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"formation/runtime/epistemic"
	"formation/runtime/text"
)

// mergeByMap is mergeTriples as it was before it took records in key
// order without a map: every record through the map, then a sort.
func mergeByMap(in []Triple) []Triple {
	merged := map[Key]Triple{}
	for _, t := range in {
		n := Triple{Head: text.Term(t.Head), Relation: text.Relation(t.Relation), Tail: text.Term(t.Tail)}
		st, _ := status(t.Status, func() string { return "" })
		if prev, seen := merged[n.Key()]; seen {
			st = epistemic.MoreDoubtful(prev.Status, st)
			n.Sources = prev.Sources
		}
		n.Sources = mergeCitations(n.Sources, t.Sources)
		n.Status = st
		merged[n.Key()] = n
	}
	out := make([]Triple, 0, len(merged))
	for _, t := range merged {
		out = append(out, t)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key().less(out[b].Key()) })
	return out
}

// TestMergeTriplesInOrderIsMerge holds mergeTriples to the map merge for
// records in key order (taken as they come), records that leave that
// order part way (merged from there) and records with repeated keys,
// spellings that normalise alike, several statuses and citations.
func TestMergeTriplesInOrderIsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	statuses := []epistemic.Status{"", epistemic.Speculative, epistemic.Coherent, epistemic.Contested, epistemic.Falsified}
	cite := func() Citation {
		return Citation{SourceSHA: strings.Repeat(string("abc"[r.IntN(3)]), 64), Span: "span " + string(rune('a'+r.IntN(4)))}
	}
	for trial := range 200 {
		var in []Triple
		for range r.IntN(60) {
			head := []string{"Alpha", "alpha", "beta", "Gamma ray", "delta"}[r.IntN(5)]
			t := Triple{Head: head, Relation: []string{"causes", "is_a", "precedes"}[r.IntN(3)],
				Tail: []string{"x", "y", "Z"}[r.IntN(3)], Status: statuses[r.IntN(len(statuses))]}
			for range 1 + r.IntN(2) {
				t.Sources = append(t.Sources, cite())
			}
			in = append(in, t)
		}
		if trial%3 == 0 { // in key order, unique: the path without a map throughout
			in = mergeByMap(in)
		}
		if trial%3 == 1 { // in order up to a point, then anything
			sorted := mergeByMap(in)
			cut := len(sorted) / 2
			in = append(slices.Clone(sorted[:cut]), in...)
		}
		want := mergeByMap(in)
		got, err := mergeTriples(in, true, "triple")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: mergeTriples\n got %v\nwant %v", trial, got, want)
		}
	}
}
