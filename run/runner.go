package run

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"

	"formation/artifact"
	"formation/canon"
	"formation/internal/freelist"
	"formation/runtime/algebra"
	"formation/runtime/trace"
)

// Observation is what one step produced.
type Observation struct {
	TraceHash       string
	VersorCondition float64
	Accepted        bool
	HasProvenance   bool
	Event           any // the runtime's TurnEvent for the step, kept in the events object
	// Unreached, when not empty, says what the step's utterance reads as
	// when a user types it: the user's path does not reach the step.
	Unreached string
	// Utterance is the step's utterance, named in an Unreached record.
	Utterance string
	// ConditionRepr, when not empty, is ConditionRepr(VersorCondition),
	// which the step function had at hand (the runtime writes the same
	// text for every condition but NaN).
	ConditionRepr string
}

// Unreached is a step whose utterance, typed by a user, does not reach it.
type Unreached struct {
	Index     int
	StepType  string
	Utterance string
	Reading   string // what the runtime read instead
}

// StepFunc drives one plan step that is not a replay assertion.
type StepFunc func(ctx context.Context, index int, step artifact.PlanStep) (Observation, error)

// ReplayFunc observes a replay assertion over prior, the trace hashes of
// every earlier step of the pass, in step order.
type ReplayFunc func(ctx context.Context, index int, step artifact.PlanStep, prior []string) (Observation, error)

// HaltError is returned by a StepFunc whose runtime refused to commit a state
// (a closure violation surfaced as a typed error); the runner records it as
// a halt at that step, exactly like a measured violation.
type HaltError struct {
	Reason string
}

func (e *HaltError) Error() string { return e.Reason }

// Pass is one pass over a plan: the results of each step, and the steps a
// user's own words do not reach (not part of the record: their results say
// so, the stage audits them). The steps' events are not kept: the runner
// hands each one on as it is recorded (Runner.Event).
type Pass struct {
	Output    artifact.RunOutput
	Unreached []Unreached
}

// Runner drives one pass over a plan. Every step but a replay assertion is
// a session of its own, so the steps run on len(Steps) goroutines at once,
// each with its own step function; what they observe is taken in step order,
// so the pass, and the order in which Event hears the events, is the same
// for any number of them. A replay assertion waits for every earlier step.
type Runner struct {
	// Steps are the step functions, one per goroutine; each is called by
	// its own goroutine only. At least one.
	Steps []StepFunc
	// Replay observes the plan's replay assertions.
	Replay ReplayFunc
	// Event, when not nil, hears the canonical JSON of each recorded step's
	// event, in step order. It must not keep the slice: its buffer is
	// reused for a later step's event once Event returns.
	Event func(event []byte) error
	// OnStep, when not nil, is called after each step taken, in step order.
	OnStep func()
	// Payloads, when not nil, hold the plan's step payloads as canonical
	// bytes, the steps themselves none (compile.CompileEncoded):
	// each worker decodes the payload of the step it takes.
	Payloads *artifact.PlanPayloads
}

// outcome is what a worker hands back for one step.
type outcome struct {
	obs   Observation
	event []byte
	err   error
	// encodeErr is an event that would not encode: an error only if the
	// step is recorded (a halting step's event never is).
	encodeErr error
}

// Run drives the steps. The halting step is not recorded, as in the
// original; unlike the original, NaN halts too (a NaN condition is not
// closure). Steps past the first halt or error may have run on other
// goroutines; nothing of theirs is kept.
func (r Runner) Run(ctx context.Context, plan artifact.FormationPlan) (Pass, error) {
	if len(r.Steps) == 0 {
		return Pass{}, fmt.Errorf("run: a runner needs at least one step function")
	}
	// Room for every step's result at once: grown by doubling, a
	// million-step pass copied its results twenty times over and touched
	// twice their 75 MB of fresh memory.
	p := Pass{Output: artifact.RunOutput{Results: make([]artifact.StepResult, 0, len(plan.Steps)), HaltStepIndex: -1}}
	// Recorded events' buffers go back to the workers: the events writer
	// copies an event as it takes it, so its buffer is free once recorded
	// (at 10,000 relations, 57 MB of events a run that were otherwise each
	// allocated once and collected). Room for every step in flight and one
	// for each worker's step.
	bufs := freelist.New[[]byte](r.window() + len(r.Steps))
	work, slots, stop := r.start(ctx, plan, bufs)
	defer stop()
	window := len(slots)
	next := 0 // the next step to hand to a worker
	for i, s := range plan.Steps {
		for ; next < len(plan.Steps) && next < i+window; next++ {
			if plan.Steps[next].StepType != artifact.StepReplayAssertion {
				work <- next
			}
		}
		if err := ctx.Err(); err != nil {
			return p, err
		}
		var out outcome
		if s.StepType == artifact.StepReplayAssertion {
			out = r.replay(ctx, i, s, p.Output.Results)
		} else {
			out = <-slots[i%window]
		}
		if r.OnStep != nil {
			r.OnStep()
		}
		halted, err := r.record(&p, i, s, out)
		if halted || err != nil {
			return p, err
		}
		if out.event != nil {
			bufs.Put(out.event)
		}
	}
	return p, nil
}

// stepsInFlight is how many steps per worker may be handed out ahead of the
// one being recorded. The recorder shares the cores with the workers and is
// scheduled only when a worker blocks or is preempted, which Go does after
// 10 ms; the workers must not run out of steps before then, or they block
// on an empty queue and each wake-up leaves a core idle for a while. At
// 32 steps a worker (under a millisecond of turns) a go tool trace of the
// 10,000-relation run stage showed 1,137 such waits and 0.29 core-seconds
// idle over the passes; at 512 (about 12 ms) it showed 75 waits and 0.06.
// The outcomes held stay small: an event each, about 2 KB.
const stepsInFlight = 512

// window is how many steps may be in flight at once over all the workers.
func (r Runner) window() int { return stepsInFlight * len(r.Steps) }

// start runs one worker per step function. Step i's outcome arrives on
// slots[i % len(slots)]; the caller hands out a step only when its slot has
// been emptied, so no send ever blocks and the steps in flight (and the
// events held) stay bounded. stop cancels what is still running and waits
// for every worker.
func (r Runner) start(ctx context.Context, plan artifact.FormationPlan, bufs freelist.List[[]byte]) (work chan<- int, slots []chan outcome, stop func()) {
	window := r.window()
	slots = make([]chan outcome, window)
	for i := range slots {
		slots[i] = make(chan outcome, 1)
	}
	ctx, cancel := context.WithCancel(ctx)
	queue := make(chan int, window)
	var wg sync.WaitGroup
	for _, step := range r.Steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				buf, _ := bufs.Get() // nil when none is free
				slots[i%window] <- r.drive(ctx, step, i, plan.Steps[i], buf)
			}
		}()
	}
	return queue, slots, func() {
		cancel()
		close(queue)
		wg.Wait()
	}
}

// drive runs one step on a worker and encodes its event there, so that
// encoding runs in parallel too.
func (r Runner) drive(ctx context.Context, step StepFunc, i int, s artifact.PlanStep, buf []byte) outcome {
	if err := ctx.Err(); err != nil {
		return outcome{err: err}
	}
	if r.Payloads != nil && s.Payload == nil {
		payload, err := r.Payloads.Payload(i)
		if err != nil {
			return outcome{err: err}
		}
		s.Payload = payload
	}
	obs, err := step(ctx, i, s)
	return r.encode(obs, err, buf)
}

func (r Runner) replay(ctx context.Context, i int, s artifact.PlanStep, done []artifact.StepResult) outcome {
	if r.Replay == nil {
		return outcome{err: fmt.Errorf("run: no replay function for a replay assertion")}
	}
	prior := make([]string, len(done))
	for j, d := range done {
		prior[j] = d.TraceHash
	}
	obs, err := r.Replay(ctx, i, s, prior)
	return r.encode(obs, err, nil)
}

// encode encodes obs's event into buf (which may be nil). The encoded
// event is all the recorder needs of it, so the outcome lets go of the
// event itself: with a few thousand steps in flight, the decoded events
// (their surfaces, tokens and citations) were megabytes held for nothing.
func (r Runner) encode(obs Observation, err error, buf []byte) outcome {
	out := outcome{obs: obs, err: err}
	if err == nil && r.Event != nil {
		if ev, ok := obs.Event.(trace.TurnEvent); ok {
			out.event, out.encodeErr = trace.AppendEvent(buf[:0], &ev)
		} else {
			out.event, out.encodeErr = canon.Marshal(obs.Event)
		}
		out.obs.Event = nil
	}
	return out
}

// record adds step i's outcome to the pass; halted is true when the pass
// ends at it.
func (r Runner) record(p *Pass, i int, s artifact.PlanStep, out outcome) (halted bool, err error) {
	if he, ok := out.err.(*HaltError); ok {
		p.Output.Halted, p.Output.HaltStepIndex, p.Output.HaltReason = true, i, he.Reason
		return true, nil
	}
	if out.err != nil {
		return true, fmt.Errorf("run: step %d (%s): %w", i, s.StepType, out.err)
	}
	obs := out.obs
	if breaksClosure(obs.VersorCondition) {
		p.Output.Halted, p.Output.HaltStepIndex = true, i
		p.Output.HaltReason = haltReason(obs.VersorCondition)
		return true, nil
	}
	if out.encodeErr != nil {
		return true, fmt.Errorf("run: step %d (%s): event: %w", i, s.StepType, out.encodeErr)
	}
	repr := obs.ConditionRepr
	if repr == "" {
		repr = ConditionRepr(obs.VersorCondition)
	}
	p.Output.Results = append(p.Output.Results, artifact.StepResult{
		StepType: s.StepType, Payload: s.Payload, TraceHash: obs.TraceHash,
		VersorConditionRepr: repr,
		Accepted:            obs.Accepted, HasProvenance: obs.HasProvenance,
	})
	if r.Event != nil {
		if err := r.Event(out.event); err != nil {
			return true, fmt.Errorf("run: step %d (%s): event: %w", i, s.StepType, err)
		}
	}
	if obs.Unreached != "" {
		p.Unreached = append(p.Unreached, Unreached{Index: i, StepType: s.StepType, Utterance: obs.Utterance, Reading: obs.Unreached})
	}
	return false, nil
}

// breaksClosure is the halting test on a measured condition.
func breaksClosure(v float64) bool { return math.IsNaN(v) || v >= algebra.ClosureBound }

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
