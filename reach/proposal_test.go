package reach

import (
	"bytes"
	"crypto/ed25519"
	"testing"
	"time"

	"formation/runtime/knowledge"
	"formation/teaching"
)

// A decided proposal keeps the original it derives from (review and the
// proposals mining adapter read it by its id); once pruned, the copy names
// nothing, so gc can drop the user's words.
func TestProposalKeepsItsOriginalUntilPruned(t *testing.T) {
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	p := teaching.NewRelation(teaching.Triple{Head: "lens", Relation: "causes", Tail: "refraction"}, false,
		"No, a lens causes refraction.", "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", "s1", 3)
	id, err := p.Digest()
	if err != nil {
		t.Fatal(err)
	}
	k, err := knowledge.NewKnowledge(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rev := teaching.Reviewer{ID: "curator-1", Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))}
	decided, err := teaching.Decide(p, id, true, teaching.Coheres, teaching.Judge(p, k), rev, at)
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := teaching.Pruned(decided, at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rec  teaching.Proposal
		want []Edge
	}{
		{"original", p, nil},
		{"decided", decided, []Edge{{Digest: id, Kind: Proposal}}},
		{"pruned", pruned, nil},
	} {
		raw, err := tc.rec.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		kind, names, err := Of(Unknown, raw)
		if err != nil || kind != Proposal {
			t.Fatalf("%s: sniffed as %q: %v", tc.name, kind, err)
		}
		if len(names.Objects) != len(tc.want) || len(tc.want) == 1 && names.Objects[0] != tc.want[0] {
			t.Errorf("%s: names %v, want %v", tc.name, names.Objects, tc.want)
		}
	}
}
