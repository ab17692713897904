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
		passes[i], err = RunPlan(ctx, plan, counted(shim(rt, mem, counterSet(vts)), opts.OnStep))
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
//
// It also takes the user's path: every seed, every introduction and every
// false claim that restates one of the set's counter-claims must be reached
// by the utterance alone, read as a user's input (runtime.ReadsAs). A
// legitimate step that is not is not accepted (G4 fails); a counter-claim
// probe that is not counts as accepted (G3 fails), since its rejection was
// shown only on a path no user takes. Either way the observation names what
// the utterance was read as.
func shim(rt *runtime.Runtime, mem *lastEvent, counters map[artifact.Triple]bool) StepFunc {
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
		var unreached string
		if ok && mustReach(*hint, counters) {
			if u, same := rt.ReadsAs(utterance, *hint); !same {
				obs.Accepted = hint.Kind == runtime.HintFalseClaim
				unreached = u.Describe()
			}
		}
		prior = append(prior, obs.TraceHash)
		return Observation{TraceHash: obs.TraceHash, VersorCondition: obs.VersorCondition,
			Accepted: obs.Accepted, HasProvenance: obs.HasProvenance, Event: event, Unreached: unreached}, nil
	}
}

// mustReach says which steps a user must reach with the step's own words:
// the set's concepts and relations, and its counter-claims.
func mustReach(h runtime.StepHint, counters map[artifact.Triple]bool) bool {
	switch h.Kind {
	case runtime.HintSeedConcept, runtime.HintIntroduceRelation:
		return true
	case runtime.HintFalseClaim:
		return counters[artifact.Triple{Head: h.Head, Relation: h.Relation, Tail: h.Tail}]
	}
	return false
}

func counterSet(vts artifact.ValidatedTripleSet) map[artifact.Triple]bool {
	out := make(map[artifact.Triple]bool, len(vts.Counters))
	for _, c := range vts.Counters {
		out[c.Triple()] = true
	}
	return out
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
