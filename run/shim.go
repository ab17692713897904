package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/runtime"
	"formation/runtime/field"
	"formation/runtime/knowledge"
	"formation/runtime/trace"
)

// Options adjust DrivePlan; the zero value is the production run on one
// goroutine, its events discarded.
type Options struct {
	// Operator, when not nil, replaces the field operator (tests inject a
	// drifting one).
	Operator field.Operator
	// OnStep, when not nil, is called after every step of either pass, in
	// step order, for a progress display.
	OnStep func()
	// Jobs is how many steps of a pass run at once, each goroutine with a
	// runtime of its own over the one read-only knowledge index; below 1
	// means 1. The passes and the events are the same for any value.
	Jobs int
	// Events, when not nil, receives the events object as the steps are
	// recorded: a canonical JSON array of one array per pass, holding each
	// recorded step's TurnEvent in step order.
	Events io.Writer
	// Payloads, when not nil, are the plan's payloads as canonical bytes and
	// the plan's steps carry none (see Runner.Payloads).
	Payloads *artifact.PlanPayloads
}

// DrivePlan builds the course's knowledge index once and runs the whole plan
// twice through the real runtime, each pass in runtimes of its own and each
// step in a fresh session over that index. An input that cannot be run is
// refused with an *Error; a pass that breaks closure is a result.
func DrivePlan(ctx context.Context, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, loaded *packs.Loaded, opts Options) ([2]Pass, error) {
	ix, err := NewIndex(vts)
	if err != nil {
		return [2]Pass{}, err
	}
	return DriveIndexed(ctx, plan, ix, loaded, opts)
}

// Index is what the passes take from a course's validated set: its
// knowledge index and its counter-claims. It is read only, so any number
// of passes may share it.
type Index struct {
	k        *knowledge.Knowledge
	counters map[artifact.Triple]bool
}

// NewIndex builds the runtime's index of a validated set, which DrivePlan
// builds first: a caller may build it while it prepares the plan, from a
// set it has checked, and then drive the plan with DriveIndexed. A set the
// runtime cannot take is refused with an *Error (knowledge_rejected), as
// DrivePlan refuses it.
func NewIndex(vts artifact.ValidatedTripleSet) (*Index, error) {
	k, err := knowledge.FromVTS(vts)
	if err != nil {
		return nil, rejected(ReasonKnowledgeRejected, err)
	}
	return &Index{k: k, counters: counterSet(vts)}, nil
}

// DriveIndexed is DrivePlan over a set already indexed (NewIndex): the
// passes, their events and their refusals are DrivePlan's.
func DriveIndexed(ctx context.Context, plan artifact.FormationPlan, ix *Index, loaded *packs.Loaded, opts Options) ([2]Pass, error) {
	var (
		passes [2]Pass
		err    error
	)
	k, counters := ix.k, ix.counters
	events := newEventsWriter(opts.Events)
	for i := range passes {
		r := Runner{OnStep: opts.OnStep, Payloads: opts.Payloads}
		rotors := runtime.NewRotorMemo() // one per pass, shared by its workers
		for range max(opts.Jobs, 1) {
			step, rt, err := passStep(k, counters, loaded, opts.Operator, rotors)
			if err != nil {
				return passes, err
			}
			r.Steps = append(r.Steps, step)
			if r.Replay == nil {
				r.Replay = replayStep(rt)
			}
		}
		if events != nil {
			r.Event = events.event
		}
		if err := events.beginPass(); err != nil {
			return passes, err
		}
		if passes[i], err = r.Run(ctx, plan); err != nil {
			return passes, err
		}
		if err := events.endPass(); err != nil {
			return passes, err
		}
	}
	return passes, events.close()
}

// passStep is one worker's step function in a pass: a runtime of its own
// over the shared knowledge and the pass's shared word-rotor memo, the shim
// over it.
func passStep(k *knowledge.Knowledge, counters map[artifact.Triple]bool, loaded *packs.Loaded, operator field.Operator, rotors *field.Rotors) (StepFunc, *runtime.Runtime, error) {
	mem := &lastEvent{}
	// The shim records each turn's outcome only (Observe and the event), so
	// the verdicts are brief.
	rt, err := runtime.New(runtime.Config{Knowledge: k, Safety: loaded.Safety, Manifold: loaded.Manifold, Sink: mem, Operator: operator, Rotors: rotors,
		BriefVerdicts: true})
	if err != nil {
		return nil, nil, &Error{Reason: ReasonSafetyPackInvalid, Code: exitcode.SealInvalid, Err: err}
	}
	return shim(rt, mem, counters), rt, nil
}

// replayStep observes a replay assertion in a fresh session of rt: it binds
// the trace hashes of the pass before it, and takes no turn.
func replayStep(rt *runtime.Runtime) ReplayFunc {
	return func(_ context.Context, _ int, step artifact.PlanStep, prior []string) (Observation, error) {
		obs, err := rt.NewSession().ReplayObservation(prior)
		if err != nil {
			return Observation{}, err
		}
		return Observation{TraceHash: obs.TraceHash, VersorCondition: obs.VersorCondition, Accepted: obs.Accepted,
			HasProvenance: obs.HasProvenance,
			Event:         map[string]any{"step_type": step.StepType, "trace_hash": obs.TraceHash, "bound_trace_hashes": len(prior)}}, nil
	}
}

// shim is the step function over the runtime: a fresh conversation per
// step, the typed step passed beside the utterance, the observation mapped
// by the runtime's own rules (runtime.Session.Observe). The conversation is
// one session reset before each step (runtime.Session.Reset: what
// NewSession gives, with the buffers of the steps before), so nothing one
// step sees depends on another; the session is the shim's own, and each
// worker of a pass has a shim over its own runtime. A replay
// assertion is not its to take: the runner observes it (replayStep) once
// every earlier step's trace hash is known.
//
// It also takes the user's path: every seed, every introduction and every
// false claim that restates one of the set's counter-claims must be reached
// by the utterance alone, read as a user's input (runtime.ReadsAs). A
// legitimate step that is not is not accepted (G4 fails); a counter-claim
// probe that is not counts as accepted (G3 fails), since its rejection was
// shown only on a path no user takes. Either way the observation names what
// the utterance was read as.
func shim(rt *runtime.Runtime, mem *lastEvent, counters map[artifact.Triple]bool) StepFunc {
	var sess *runtime.Session // each step's conversation, reset before it; only this worker's goroutine calls the shim
	return func(ctx context.Context, _ int, step artifact.PlanStep) (Observation, error) {
		utterance, hint, ok, err := runtime.StepFromPlan(step)
		if err != nil {
			return Observation{}, rejected(ReasonPlanStepRejected, err)
		}
		if !ok {
			return Observation{}, fmt.Errorf("run: a replay assertion is observed by the runner, over the pass's trace hashes")
		}
		if sess == nil {
			sess = rt.NewSession()
		} else {
			sess.Reset()
		}
		resp, err := sess.Turn(ctx, utterance, hint)
		if err != nil {
			// Only here: errors.As takes its target's address, which would
			// move it to the heap on every step.
			var ce *field.ClosureError
			if errors.As(err, &ce) {
				// The runtime refused to commit the state: a halt at this
				// step, worded like a measured violation.
				return Observation{}, &HaltError{Reason: haltReason(ce.Condition)}
			}
			return Observation{}, err
		}
		obs := sess.Observe(*hint, resp)
		var event any
		if ev, ok := mem.take(); ok {
			event = ev
		} else {
			event = map[string]any{"step_type": step.StepType}
		}
		var unreached string
		if mustReach(*hint, counters) {
			if u, same := sess.ReadsAs(utterance, *hint); !same {
				obs.Accepted = hint.Kind == runtime.HintFalseClaim
				unreached = u.Describe()
			}
		}
		repr := ""
		if !math.IsNaN(resp.Condition) {
			repr = resp.VersorCondition // trace.FormatCondition, which is ConditionRepr but for NaN
		}
		return Observation{TraceHash: obs.TraceHash, VersorCondition: obs.VersorCondition, ConditionRepr: repr,
			Accepted: obs.Accepted, HasProvenance: obs.HasProvenance, Event: event, Unreached: unreached, Utterance: utterance}, nil
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
