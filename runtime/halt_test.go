package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/packs"
	"formation/runtime/algebra"
	"formation/runtime/field"
	"formation/runtime/refusal"
)

// driftAfter returns an operator that is the production conjugation for the
// first n calls and then scales its result by 1+1e-3, a state no longer
// closed (versor condition ≈ 2e-3).
func driftAfter(n int) field.Operator {
	calls := 0
	return func(tr field.Transition) algebra.MV {
		calls++
		out := field.Conjugate(tr)
		if calls > n {
			out = algebra.Scale(out, 1+1e-3)
		}
		return out
	}
}

// No code path repairs a field state: an injected drifting operator yields a
// typed error, a refusal naming the closure boundary, and a halt.
func TestDriftingOperatorHaltsTheSession(t *testing.T) {
	f := newFixture(t, nil, func(c *Config) { c.Operator = driftAfter(2) })
	s := f.rt.NewSession()
	turn(t, s, "What is light?")
	good := turn(t, s, "What is lens?")
	before, _ := s.field.State()

	r, err := s.Turn(context.Background(), "What is refraction?", nil)
	var ce *field.ClosureError
	if !errors.As(err, &ce) || ce.Turn != 2 || ce.Condition < 1e-6 {
		t.Fatalf("drift returned %v", err)
	}
	if r.RefusalReason != refusal.ClosureViolation || !r.Halted || r.Condition != ce.Condition || r.Condition < 1e-6 {
		t.Fatalf("drift response %+v", r)
	}
	if !strings.Contains(r.Surface, "safety:preserve_versor_closure") || !slices.Contains(r.RefusalBoundaries, packs.BoundaryPreserveVersorClosure) {
		t.Fatalf("the refusal does not name the closure boundary: %q", r.Surface)
	}
	// The surface prints the bound from algebra.ClosureBound; its text is
	// kept in turn events and so must not move.
	if want := "I cannot proceed — boundary violated: safety:preserve_versor_closure. I cannot proceed: this turn's field state left versor closure (condition 2.001e-03, bound 1e-06). Nothing was repaired; this conversation is halted."; r.Surface != want {
		t.Fatalf("closure surface %q, want %q", r.Surface, want)
	}
	if r.SafetyVerdict.Upheld || r.VersorCondition != "2.001e-03" {
		t.Fatalf("verdict %+v, condition %s", r.SafetyVerdict, r.VersorCondition)
	}
	if after, _ := s.field.State(); after != before {
		t.Fatal("the drifted state was committed or the old one repaired")
	}
	if s.Condition() != good.Condition {
		t.Fatal("the committed condition changed")
	}

	r, err = s.Turn(context.Background(), "What is light?", nil)
	var he *field.HaltedError
	if !errors.As(err, &he) || r.RefusalReason != refusal.SessionHalted || !r.Halted || r.Surface == "" {
		t.Fatalf("turn after halt: %v %+v", err, r)
	}
	events := f.events.Events()
	if len(events) != 4 || !events[2].Halted || !events[3].Halted || events[2].RefusalReason != "closure_violation" {
		t.Fatalf("events %+v", events)
	}
	// The run stage reads the halt from the observation.
	if o := s.Observe(StepHint{Kind: HintSeedConcept, Head: "refraction"}, r); o.VersorCondition < 1e-6 {
		t.Fatalf("observation hides the drift: %+v", o)
	}
}

// A violated runtime-checkable boundary becomes a typed refusal naming it:
// citing a source outside the allow-list violates no_fabricated_source.
func TestFabricatedSourceRefuses(t *testing.T) {
	f := newFixture(t, nil, func(c *Config) { c.AllowedSourceSHAs = []string{testSHA} })
	r := turn(t, f.rt.NewSession(), "What is light?")
	if r.RefusalReason != refusal.SafetyBoundary || !slices.Equal(r.RefusalBoundaries, []string{packs.BoundaryNoFabricatedSource}) ||
		r.Surface != packs.RefusalPrefix+"safety:no_fabricated_source" || r.Kind != KindRefusal {
		t.Fatalf("fabricated source: %+v", r)
	}
	// With the default allow-list (the knowledge's own sources) it answers.
	g := newFixture(t, nil, nil)
	if r := turn(t, g.rt.NewSession(), "What is light?"); r.Refused() || !r.SafetyVerdict.Upheld || r.SafetyVerdict.RuntimeCheckableCount < 4 {
		t.Fatalf("upheld answer: %+v", r.SafetyVerdict)
	}
}

// A custom predicate registered on the safety check sees every turn.
func TestCustomPredicateRuns(t *testing.T) {
	check := packs.NewSafetyCheck()
	seen := 0
	if err := check.Register(packs.BoundaryNoSilentCorrection, func(e packs.SafetyContext) packs.SafetyCheckResult {
		seen++
		return packs.SafetyCheckResult{Upheld: e.LastRefusalWasTyped && e.HasRefusalEvidence, RuntimeCheckable: true}
	}); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, nil, func(c *Config) { c.SafetyCheck = check })
	s := f.rt.NewSession()
	for _, in := range mixedInputs {
		r, _ := s.Turn(context.Background(), in, nil)
		if slices.Contains(r.SafetyVerdict.Violated, packs.BoundaryNoSilentCorrection) {
			t.Fatalf("%q: a refusal was not typed", in)
		}
	}
	if seen != len(mixedInputs) {
		t.Fatalf("predicate ran %d times for %d turns", seen, len(mixedInputs))
	}
}
