package pipeline_test

import (
	"context"
	"fmt"
	"testing"

	"formation/artifact"
	"formation/forge"
	"formation/runtime"
	"formation/stage"
)

// The most tails forge lets one head have under one relation is the most
// one walk answers: every walk step of such a pair must reach its tail.
func TestFanoutBoundIsTheWalkBound(t *testing.T) {
	if forge.MaxFanout != runtime.DefaultMaxWalkNodes {
		t.Fatalf("forge.MaxFanout %d, runtime.DefaultMaxWalkNodes %d", forge.MaxFanout, runtime.DefaultMaxWalkNodes)
	}
}

// A head with as many tails under one relation as a walk answers ratifies
// through the real runtime, every walk step reaching its tail; a head with
// one more is quarantined by forge, and the rest of the course still
// ratifies. Before forge bounded the fan-out, such a subject (GNU info
// manuals: "default is" 79 times) failed G4 on the 15 tails the walk left
// out.
func TestFanoutAtTheBoundRatifiesPastItIsQuarantined(t *testing.T) {
	ctx := context.Background()
	b := microCourse()
	src := b.Relations[0].Sources
	hub := func(head string, n int) {
		for i := range n {
			b.Relations = append(b.Relations, artifact.RelationCandidate{Head: head, Relation: "produces",
				Tail: fmt.Sprintf("spark %d", i), Sources: src, State: artifact.StateProposed})
		}
	}
	hub("candle", forge.MaxFanout)
	hub("lamp", forge.MaxFanout+1)
	f := newFixture(t, b)
	for _, step := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run, f.p.Ratify} {
		if res, err := step(ctx, microSubject); err != nil {
			t.Fatalf("%s: %v", res.Stage, err)
		}
	}
	vts := decodeRef[artifact.ValidatedTripleSet](t, f, "forge")
	per := map[string]int{}
	for _, r := range vts.Relations {
		per[r.Head]++
	}
	lamp := 0
	for _, q := range vts.Quarantined {
		if q.Head == "lamp" && q.RejectionReason == forge.ReasonFanoutExceeded {
			lamp++
		}
	}
	if per["candle"] != forge.MaxFanout || per["lamp"] != 0 || lamp != forge.MaxFanout+1 {
		t.Fatalf("candle validated %d, lamp validated %d and quarantined %d", per["candle"], per["lamp"], lamp)
	}
	rep := decodeRef[artifact.MasteryReport](t, f, "ratify")
	if !rep.Ratified {
		t.Fatalf("not ratified: %v", rep.FailureReasons)
	}
}

// decodeRef decodes the subject's latest output of a stage.
func decodeRef[T any](t *testing.T, f fixture, stageName string) T {
	t.Helper()
	v, err := artifact.Decode[T](stageOutput(t, f, stageName))
	must(t, err)
	return v
}
