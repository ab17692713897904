package knowledge

import (
	"reflect"
	"testing"

	"formation/runtime/epistemic"
)

func TestAssessHeldAndUngrounded(t *testing.T) {
	k := loadOptics(t)
	o := NewOverlay(k)
	a := o.Assess(Claim{Key: Key{"Light", "reveals", "Truth"}}, 0)
	if a.Verdict != Held || !a.HasRecord || a.Record.Key() != (Key{"light", "reveals", "truth"}) || a.Status != epistemic.Speculative {
		t.Fatalf("held claim: %+v", a)
	}
	a = o.Assess(Claim{Key: Key{"lens", "causes", "light"}}, 1)
	if a.Verdict != Ungrounded || a.HasRecord || a.Status != epistemic.Speculative {
		t.Fatalf("ungrounded claim: %+v", a)
	}
	a = o.Assess(Claim{Key: Key{"lens", "causes", "rainbow"}}, 2)
	if a.Verdict != UnknownTerms {
		t.Fatalf("claim with an unknown term: %+v", a)
	}
	if got := len(o.Assertions()); got != 2 {
		t.Fatalf("%d assertions recorded; claims with unknown terms are not recorded", got)
	}
}

// Rule 1: a positive claim equal to a counter-claim contradicts it, and both
// sides become Contested in the session only.
func TestCounterClaimContradiction(t *testing.T) {
	k := loadOptics(t)
	o := NewOverlay(k)
	a := o.Assess(Claim{Key: Key{"light", "is", "sound"}}, 0)
	if a.Verdict != Contradicted || a.Status != epistemic.Contested || a.Record.Status != epistemic.Contested {
		t.Fatalf("counter match: %+v", a)
	}
	if !reflect.DeepEqual(a.Contested, []Key{{"light", "is", "sound"}}) {
		t.Fatalf("contested %v", a.Contested)
	}
	if as := o.Assertions(); as[0].Status != epistemic.Contested {
		t.Fatalf("asserted claim status %q", as[0].Status)
	}
	if c, _ := k.Counter(Key{"light", "is", "sound"}); c.Status != epistemic.Speculative {
		t.Fatal("the shared knowledge changed")
	}
	// The negation of a counter-claim agrees with the knowledge.
	o2 := NewOverlay(k)
	a = o2.Assess(Claim{Key: Key{"lens", "reflects", "all light"}, Negated: true}, 0)
	if a.Verdict != Held || a.Record.Key() != (Key{"lens", "reflects", "all light"}) {
		t.Fatalf("negated counter: %+v", a)
	}
}

// Rule 2: denying a held triple contradicts it; the triple stops being
// load-bearing in this session but not in another.
func TestNegationContestsHeldTriple(t *testing.T) {
	k := loadOptics(t)
	o := NewOverlay(k)
	a := o.Assess(Claim{Key: Key{"prism", "causes", "dispersion"}, Negated: true}, 0)
	if a.Verdict != Contradicted || a.Status != epistemic.Contested {
		t.Fatalf("negated held triple: %+v", a)
	}
	held, _ := k.Triple(Key{"prism", "causes", "dispersion"})
	if o.TripleStatus(held) != epistemic.Contested {
		t.Fatal("triple not contested in the session")
	}
	if held.Status != epistemic.Speculative || NewOverlay(k).TripleStatus(held) != epistemic.Speculative {
		t.Fatal("contest leaked out of the session")
	}
	a = o.Assess(Claim{Key: Key{"prism", "causes", "dispersion"}}, 1)
	if a.Verdict != Contradicted {
		t.Fatalf("a contested triple still confirms: %+v", a)
	}
	// An earlier agreement with a triple is on the triple's side when it is
	// later denied.
	o = NewOverlay(k)
	o.Assess(Claim{Key: Key{"light", "reveals", "truth"}}, 0)
	o.Assess(Claim{Key: Key{"light", "reveals", "truth"}, Negated: true}, 1)
	for _, as := range o.Assertions() {
		if as.Status != epistemic.Contested {
			t.Fatalf("assertion %+v not contested", as)
		}
	}
}

// Rule 3: a session contradicting its own earlier assertion contests both.
func TestSelfContradiction(t *testing.T) {
	k := loadOptics(t)
	o := NewOverlay(k)
	if a := o.Assess(Claim{Key: Key{"lens", "causes", "image"}}, 0); a.Verdict != Ungrounded {
		t.Fatalf("first: %+v", a)
	}
	a := o.Assess(Claim{Key: Key{"lens", "causes", "image"}, Negated: true}, 1)
	if a.Verdict != Contradicted || !reflect.DeepEqual(a.Contested, []Key{{"lens", "causes", "image"}}) {
		t.Fatalf("second: %+v", a)
	}
	for _, as := range o.Assertions() {
		if as.Status != epistemic.Contested {
			t.Fatalf("assertion %+v not contested", as)
		}
	}
}
