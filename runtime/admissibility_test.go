package runtime

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"formation/packs"
	"formation/runtime/admissibility"
	"formation/runtime/algebra"
	"formation/runtime/field"
	"formation/runtime/knowledge"
	"formation/runtime/refusal"
)

const testSHA = "1111111111111111111111111111111111111111111111111111111111111111"

func cite(span string) []knowledge.Citation {
	return []knowledge.Citation{{SourceSHA: testSHA, Span: span}}
}

// fanKnowledge holds head --rel--> each tail.
func fanKnowledge(t *testing.T, head, rel string, tails ...string) *knowledge.Knowledge {
	t.Helper()
	var ts []knowledge.Triple
	for _, tl := range tails {
		ts = append(ts, knowledge.Triple{Head: head, Relation: rel, Tail: tl, Sources: cite(head + " " + rel + " " + tl)})
	}
	k, err := knowledge.NewKnowledge(nil, ts)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// scores computes, independently of the walk, what each tail scores against
// the relation's blade.
func scores(rel string, tails []string) []admissibility.Scored {
	cands := make([]admissibility.Candidate, len(tails))
	for i, tl := range tails {
		cands[i] = admissibility.Candidate{Index: i, Label: tl, Versor: field.TermRotor(tl)}
	}
	return admissibility.Score(cands, relationBlade(rel))
}

// findPair searches tail names t0, t1, ... for a sorted pair whose margin
// verdict is want; the search is deterministic.
func findPair(t *testing.T, rel string, want bool) []string {
	t.Helper()
	for i := 0; i < 200; i++ {
		for j := i + 1; j < 200; j++ {
			tails := []string{fmt.Sprintf("t%03d", i), fmt.Sprintf("t%03d", j)}
			v := admissibility.CheckMargin(admissibility.Rank(scores(rel, tails)), admissibility.DefaultMargin)
			if v.Admitted == want {
				return tails
			}
		}
	}
	t.Fatalf("no pair with margin verdict %v", want)
	return nil
}

// Contract (margin): the walk admits the top-ranked tail only when the
// margin gate admits; otherwise it refuses with inner_loop_exhaustion and the
// full ranking as evidence.
func TestMarginModeConstrainsWalks(t *testing.T) {
	for _, want := range []bool{true, false} {
		tails := findPair(t, "causes", want)
		k := fanKnowledge(t, "source", "causes", tails...)
		f := newFixture(t, k, func(c *Config) { c.AdmissibilityMode = admissibility.Margin })
		r := turn(t, f.rt.NewSession(), "What does source cause?")
		v := admissibility.CheckMargin(admissibility.Rank(scores("causes", tails)), admissibility.DefaultMargin)
		if want {
			if r.Kind != KindWalk || len(r.WalkTails) != 1 || r.WalkTails[0] != v.Top.Label {
				t.Fatalf("margin admits %q: response %+v", v.Top.Label, r)
			}
			continue
		}
		if r.RefusalReason != refusal.InnerLoopExhaustion || r.Surface == "" || len(r.WalkTails) != 0 {
			t.Fatalf("margin refuses (%s): response %+v", v.Reason, r)
		}
	}
	// Off mode answers with both tails of the same knowledge.
	tails := findPair(t, "causes", false)
	f := newFixture(t, fanKnowledge(t, "source", "causes", tails...), nil)
	if r := turn(t, f.rt.NewSession(), "What does source cause?"); !slices.Equal(r.WalkTails, tails) {
		t.Fatalf("unconstrained walk: %+v", r.WalkTails)
	}
}

// Contract (threshold): the walk answers with exactly the tails whose score
// is strictly above the threshold, and refuses when none is.
func TestThresholdModeConstrainsWalks(t *testing.T) {
	var tails []string
	for i := 0; i < 12; i++ {
		tails = append(tails, fmt.Sprintf("t%03d", i))
	}
	k := fanKnowledge(t, "source", "causes", tails...)
	f := newFixture(t, k, func(c *Config) { c.AdmissibilityMode = admissibility.Threshold })
	r := turn(t, f.rt.NewSession(), "What does source cause?")
	adm, rej := admissibility.CheckThreshold(scores("causes", tails), 0)
	if len(adm) == 0 || len(rej) == 0 {
		t.Fatalf("fixture should both admit and reject: %d/%d", len(adm), len(rej))
	}
	var want []string
	for _, a := range adm {
		want = append(want, a.Label)
	}
	if !slices.Equal(r.WalkTails, want) {
		t.Fatalf("threshold walk reached %v, want %v", r.WalkTails, want)
	}
	// A threshold above every score exhausts the step.
	top := admissibility.Rank(scores("causes", tails))[0].Score
	f = newFixture(t, k, func(c *Config) {
		c.AdmissibilityMode, c.AdmissibilityThreshold = admissibility.Threshold, top
	})
	r = turn(t, f.rt.NewSession(), "What does source cause?")
	if r.RefusalReason != refusal.InnerLoopExhaustion || r.Kind != KindRefusal || r.Surface == "" {
		t.Fatalf("exhausted threshold walk: %+v", r)
	}
}

// Contract (rotor): with a frame, a step whose rotors all leave the frame's
// half-space refuses with rotor_rejection; e5 is orthogonal to every even
// state, so every score is 0 and nothing is admitted.
func TestRotorRejectionRefuses(t *testing.T) {
	e5, _ := algebra.Blade(5, 1)
	f := newFixture(t, nil, func(c *Config) { c.Frame = e5 })
	s := f.rt.NewSession()
	r := turn(t, s, "What does light produce?")
	if r.RefusalReason != refusal.RotorRejection || r.Surface == "" || len(r.WalkTails) != 0 {
		t.Fatalf("rotor rejection: %+v", r)
	}
	// The frame checks the sandwich of the real field: the scalar frame
	// admits iff the field's scalar part is positive.
	f = newFixture(t, nil, func(c *Config) { c.Frame = algebra.One() })
	s = f.rt.NewSession()
	r = turn(t, s, "What does light produce?")
	state, _ := s.field.State()
	if admitted := state[0] > 0; admitted != (r.Kind == KindWalk) {
		t.Fatalf("scalar frame with field scalar %v: %+v", state[0], r)
	}
}

func TestExhaustionIsTyped(t *testing.T) {
	e5, _ := algebra.Blade(5, 1)
	f := newFixture(t, nil, func(c *Config) { c.Frame = e5 })
	s := f.rt.NewSession()
	turn(t, s, "What is light?")
	st, _ := s.field.State()
	_, err := s.walk(&turnState{}, "light", "produces", st)
	var ee *admissibility.ExhaustionError
	if !errors.As(err, &ee) || ee.Reason != refusal.RotorRejection || ee.RegionLabel != "relation:produces" || ee.StepIndex != 0 ||
		len(ee.RejectedAttempts) != 1 || !ee.RejectedAttempts[0].Rotor || ee.RejectedAttempts[0].Label != "image" {
		t.Fatalf("exhaustion %+v", ee)
	}
}

func TestConfigValidation(t *testing.T) {
	safety, m := loadPacks(t)
	k := opticsKnowledge(t)
	if _, err := New(Config{Knowledge: k, Safety: safety, Manifold: m, AdmissibilityMode: "fuzzy"}); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown mode: %v", err)
	}
	var spe *packs.SafetyPackError
	if _, err := New(Config{Knowledge: k, Safety: safety}); !errors.As(err, &spe) {
		t.Errorf("runtime without a manifold: %v, want *packs.SafetyPackError", err)
	}
	if _, err := New(Config{Knowledge: k, Manifold: m}); !errors.As(err, &spe) {
		t.Errorf("runtime without a safety pack: %v, want *packs.SafetyPackError", err)
	}
	if _, err := New(Config{Safety: safety, Manifold: m}); !errors.Is(err, ErrConfig) {
		t.Errorf("no knowledge: %v", err)
	}
}
