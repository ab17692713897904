package runtime

import (
	"context"
	"reflect"
	"testing"

	"formation/runtime/trace"
)

// A reset session is a new one: conversations of one to three turns (with
// and without typed hints) answer and emit the same, turn by turn, on a
// session reset after every conversation before it as on a fresh session,
// and ReadsAs reads the same after them.
func TestResetIsNewSession(t *testing.T) {
	k, terms := syntheticKnowledge(t, 1000)
	var freshEvents, resetEvents trace.Memory
	fresh := newFixture(t, k, func(c *Config) { c.Sink = &freshEvents })
	again := newFixture(t, k, func(c *Config) { c.Sink = &resetEvents })
	inputs := append(append([]string{}, mixedInputs...), benchInputs(k, terms)...)
	ts := k.Triples()
	hints := []*StepHint{nil, {Kind: HintSeedConcept, Head: terms[3]}, {Kind: HintWalkStep, Head: ts[5].Head, Relation: ts[5].Relation},
		{Kind: HintIntroduceRelation, Head: ts[7].Head, Relation: ts[7].Relation, Tail: ts[7].Tail},
		{Kind: HintFalseClaim, Head: ts[9].Head, Relation: ts[9].Relation, Tail: terms[11]}}
	reused := again.rt.NewSession()
	ctx := context.Background()
	for i := range inputs {
		reused.Reset()
		s := fresh.rt.NewSession()
		for n := 0; n <= i%3 && i+n < len(inputs); n++ {
			in, hint := inputs[i+n], hints[(i+n)%len(hints)]
			want, wantErr := s.Turn(ctx, in, hint)
			got, gotErr := reused.Turn(ctx, in, hint)
			if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("conversation %d, turn %d %q: reset session %+v (%v), fresh %+v (%v)", i, n, in, got, gotErr, want, wantErr)
			}
			if hint != nil {
				u1, ok1 := s.ReadsAs(in, *hint)
				u2, ok2 := reused.ReadsAs(in, *hint)
				if !reflect.DeepEqual(u1, u2) || ok1 != ok2 {
					t.Fatalf("%q: reads as %+v %v after a reset, %+v %v fresh", in, u2, ok2, u1, ok1)
				}
			}
		}
		if reused.Condition() != s.Condition() || reused.Halted() != nil || !reflect.DeepEqual(reused.Overlay().Assertions(), s.Overlay().Assertions()) {
			t.Fatalf("conversation %d: the reset session ends in another state", i)
		}
	}
	if got, want := resetEvents.Events(), freshEvents.Events(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ: %d after resets, %d fresh", len(got), len(want))
	}
}
