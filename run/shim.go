package run

import (
	"context"
	"errors"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/runtime"
	"formation/runtime/field"
	"formation/runtime/knowledge"
	"formation/runtime/trace"
)

// Options adjust DrivePlan; the zero value is the production run.
type Options struct {
	// Operator, when not nil, replaces the field operator (tests inject a
	// drifting one).
	Operator field.Operator
	// OnStep, when not nil, is called after every step of either pass, for
	// a progress display.
	OnStep func()
}

// DrivePlan builds the course's knowledge index once and runs the whole plan
// twice through the real runtime, each pass in a runtime of its own and each
// step in a fresh session over that index. An input that cannot be run is
// refused with an *Error; a pass that breaks closure is a result.
func DrivePlan(ctx context.Context, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, loaded *packs.Loaded, opts Options) ([2]Pass, error) {
	var passes [2]Pass
	k, err := knowledge.FromVTS(vts)
	if err != nil {
		return passes, rejected(ReasonKnowledgeRejected, err)
	}
	for i := range passes {
		mem := &lastEvent{}
		rt, err := runtime.New(runtime.Config{Knowledge: k, Safety: loaded.Safety, Manifold: loaded.Manifold, Sink: mem, Operator: opts.Operator})
		if err != nil {
			return passes, &Error{Reason: ReasonSafetyPackInvalid, Code: exitcode.SealInvalid, Err: err}
		}
		passes[i], err = RunPlan(ctx, plan, counted(shim(rt, mem), opts.OnStep))
		if err != nil {
			return passes, err
		}
	}
	return passes, nil
}

// counted calls onStep after each step that step runs.
func counted(step StepFunc, onStep func()) StepFunc {
	if onStep == nil {
		return step
	}
	return func(ctx context.Context, i int, s artifact.PlanStep) (Observation, error) {
		obs, err := step(ctx, i, s)
		onStep()
		return obs, err
	}
}

// shim is the step function over the runtime: one fresh session per step,
// the typed step passed beside the utterance, the observation mapped by the
// runtime's own rules (runtime.Session.Observe). A replay assertion takes no
// turn: it binds the trace hashes of the pass so far.
func shim(rt *runtime.Runtime, mem *lastEvent) StepFunc {
	var prior []string
	return func(ctx context.Context, _ int, step artifact.PlanStep) (Observation, error) {
		sess := rt.NewSession()
		utterance, hint, ok, err := runtime.StepFromPlan(step)
		if err != nil {
			return Observation{}, rejected(ReasonPlanStepRejected, err)
		}
		var obs runtime.Observation
		var event any = map[string]any{"step_type": step.StepType}
		if !ok {
			if obs, err = sess.ReplayObservation(prior); err != nil {
				return Observation{}, err
			}
			event = map[string]any{"step_type": step.StepType, "trace_hash": obs.TraceHash, "bound_trace_hashes": len(prior)}
		} else {
			resp, err := sess.Turn(ctx, utterance, hint)
			var ce *field.ClosureError
			if errors.As(err, &ce) {
				// The runtime refused to commit the state: a halt at this
				// step, worded like a measured violation.
				return Observation{}, &HaltError{Reason: haltReason(ce.Condition)}
			}
			if err != nil {
				return Observation{}, err
			}
			obs = sess.Observe(*hint, resp)
			if ev, ok := mem.take(); ok {
				event = ev
			}
		}
		prior = append(prior, obs.TraceHash)
		return Observation{TraceHash: obs.TraceHash, VersorCondition: obs.VersorCondition,
			Accepted: obs.Accepted, HasProvenance: obs.HasProvenance, Event: event}, nil
	}
}

// lastEvent is the shim's event sink: each step runs at most one turn, whose
// event the shim takes right after it.
type lastEvent struct {
	ev  trace.TurnEvent
	has bool
}

func (l *lastEvent) Emit(_ context.Context, e trace.TurnEvent) error {
	l.ev, l.has = e, true
	return nil
}

func (l *lastEvent) take() (trace.TurnEvent, bool) {
	ev, ok := l.ev, l.has
	l.has = false
	return ev, ok
}
