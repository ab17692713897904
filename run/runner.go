package run

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"formation/artifact"
	"formation/runtime/algebra"
)

// Observation is what one step produced.
type Observation struct {
	TraceHash       string
	VersorCondition float64
	Accepted        bool
	HasProvenance   bool
	Event           any // the runtime's TurnEvent for the step, kept in the run record
	// Unreached, when not empty, says what the step's utterance reads as
	// when a user types it: the user's path does not reach the step.
	Unreached string
}

// Unreached is a step whose utterance, typed by a user, does not reach it.
type Unreached struct {
	Index     int
	StepType  string
	Utterance string
	Reading   string // what the runtime read instead
}

// StepFunc drives one plan step through the runtime.
type StepFunc func(ctx context.Context, index int, step artifact.PlanStep) (Observation, error)

// HaltError is returned by a StepFunc whose runtime refused to commit a state
// (a closure violation surfaced as a typed error); the runner records it as
// a halt at that step, exactly like a measured violation.
type HaltError struct {
	Reason string
}

func (e *HaltError) Error() string { return e.Reason }

// Pass is one pass over a plan: the results and the events of each step,
// and the steps a user's own words do not reach (not part of the record:
// their results say so, the stage audits them).
type Pass struct {
	Output    artifact.RunOutput
	Events    []any
	Unreached []Unreached
}

// RunPlan drives the steps in order. The halting step is not recorded, as in
// the original; unlike the original, NaN halts too (a NaN condition is not
// closure).
func RunPlan(ctx context.Context, plan artifact.FormationPlan, step StepFunc) (Pass, error) {
	p := Pass{Output: artifact.RunOutput{Results: []artifact.StepResult{}, HaltStepIndex: -1}, Events: []any{}}
	for i, s := range plan.Steps {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		obs, err := step(ctx, i, s)
		if he, ok := err.(*HaltError); ok {
			p.Output.Halted, p.Output.HaltStepIndex, p.Output.HaltReason = true, i, he.Reason
			return p, nil
		}
		if err != nil {
			return p, fmt.Errorf("run: step %d (%s): %w", i, s.StepType, err)
		}
		if math.IsNaN(obs.VersorCondition) || obs.VersorCondition >= algebra.ClosureBound {
			p.Output.Halted, p.Output.HaltStepIndex = true, i
			p.Output.HaltReason = haltReason(obs.VersorCondition)
			return p, nil
		}
		p.Output.Results = append(p.Output.Results, artifact.StepResult{
			StepType: s.StepType, Payload: s.Payload, TraceHash: obs.TraceHash,
			VersorConditionRepr: ConditionRepr(obs.VersorCondition),
			Accepted:            obs.Accepted, HasProvenance: obs.HasProvenance,
		})
		p.Events = append(p.Events, obs.Event)
		if obs.Unreached != "" {
			u, _ := s.Payload["utterance"].(string)
			p.Unreached = append(p.Unreached, Unreached{Index: i, StepType: s.StepType, Utterance: u, Reading: obs.Unreached})
		}
	}
	return p, nil
}

// haltReason is the halt reason a run record keeps for a state at condition
// v, measured or refused by the runtime. The bound prints as Go's shortest
// %g form ("1e-06"), the text run records have always held.
func haltReason(v float64) string {
	return "versor_condition " + ConditionRepr(v) + " >= " + strconv.FormatFloat(algebra.ClosureBound, 'g', -1, 64)
}

// ConditionRepr renders a versor condition without a float: "0.0e+00" for
// zero (either sign), "nan" for NaN, otherwise C's %.3e.
func ConditionRepr(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case v == 0:
		return "0.0e+00"
	}
	return strconv.FormatFloat(v, 'e', 3, 64)
}
