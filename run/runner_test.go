package run_test

import (
	"context"
	"math"
	"testing"

	"formation/artifact"
	"formation/internal/testutil"
	"formation/run"
	"formation/runtime/trace"
)

func plan(n int) artifact.FormationPlan {
	p := artifact.FormationPlan{}
	for i := 0; i < n; i++ {
		p.Steps = append(p.Steps, artifact.PlanStep{StepType: artifact.StepSeedConcept, Payload: map[string]any{"i": i}})
	}
	return p
}

// runPlan drives p on one goroutine through step.
func runPlan(p artifact.FormationPlan, step run.StepFunc) (run.Pass, error) {
	return run.Runner{Steps: []run.StepFunc{step}}.Run(context.Background(), p)
}

func TestHaltAtThresholdInclusive(t *testing.T) {
	for _, c := range []struct {
		v      float64
		halted bool
		reason string
	}{
		{1e-3, true, "versor_condition 1.000e-03 >= 1e-06"},
		{1.0e-6, true, "versor_condition 1.000e-06 >= 1e-06"},
		{1.0e-7, false, ""},
		{math.NaN(), true, "versor_condition nan >= 1e-06"},
	} {
		p, err := runPlan(plan(3), func(_ context.Context, i int, _ artifact.PlanStep) (run.Observation, error) {
			v := 0.0
			if i == 1 {
				v = c.v
			}
			return run.Observation{TraceHash: "t", VersorCondition: v, Accepted: true, HasProvenance: true}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if p.Output.Halted != c.halted || p.Output.HaltReason != c.reason {
			t.Fatalf("v=%g: %+v", c.v, p.Output)
		}
		if c.halted && (p.Output.HaltStepIndex != 1 || len(p.Output.Results) != 1) {
			t.Fatalf("v=%g: halting step recorded or wrong index: %+v", c.v, p.Output)
		}
		if !c.halted && (p.Output.HaltStepIndex != -1 || len(p.Output.Results) != 3) {
			t.Fatalf("v=%g: %+v", c.v, p.Output)
		}
	}
}

func TestTypedHaltFromRuntime(t *testing.T) {
	p, err := runPlan(plan(2), func(_ context.Context, i int, _ artifact.PlanStep) (run.Observation, error) {
		return run.Observation{}, &run.HaltError{Reason: "closure violated"}
	})
	if err != nil || !p.Output.Halted || p.Output.HaltStepIndex != 0 || p.Output.HaltReason != "closure violated" {
		t.Fatalf("%+v %v", p.Output, err)
	}
}

func TestConditionRepr(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0e+00", math.Copysign(0, -1): "0.0e+00", 9.3e-9: "9.300e-09", 1e-7: "1.000e-07"} {
		if got := run.ConditionRepr(v); got != want {
			t.Errorf("%g: %s want %s", v, got, want)
		}
	}
}

// The shim hands the runtime's text of a condition over as the record's
// (Observation.ConditionRepr) for every condition but NaN: the two write
// the same text for each of them.
func TestRuntimeConditionIsRepr(t *testing.T) {
	for _, v := range testutil.FloatSamples() {
		if math.IsNaN(v) {
			continue
		}
		if got, want := trace.FormatCondition(v), run.ConditionRepr(v); got != want {
			t.Errorf("%g: the runtime writes %q, the record %q", v, got, want)
		}
	}
}
