package run

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"formation/artifact"
	"formation/packs"
	"formation/runtime/field"
	"formation/runtime/knowledge"
)

// A very large plan runs in shards: shard i of K drives, in both passes,
// the steps whose index is i modulo K, each in a fresh session exactly as
// DrivePlan would; the merge then walks the plan in order over what the
// shards observed and computes the replay assertions, which bind the trace
// hashes of every earlier step and so belong to no shard. Since every step
// runs in a session of its own over a read-only runtime, a step observes the
// same thing whichever process runs it and in whatever order, and the merged
// passes equal DrivePlan's.

// MaxShards bounds the number of shards of one run.
const MaxShards = 1024

// ReasonShardInconsistent: the shards handed to a merge do not cover the
// plan's steps exactly (a step missing, foreign or out of range).
const ReasonShardInconsistent = "shard_inconsistent"

// Shard names one of Count shards.
type Shard struct {
	Index int
	Count int
}

// ParseShard reads "i/K" (0 ≤ i < K ≤ MaxShards).
func ParseShard(s string) (Shard, error) {
	is, ks, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/K", s)
	}
	i, err1 := strconv.Atoi(is)
	k, err2 := strconv.Atoi(ks)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/K with integers i and K", s)
	}
	sh := Shard{Index: i, Count: k}
	return sh, sh.Check()
}

// Check refuses a shard outside 0 ≤ Index < Count ≤ MaxShards.
func (s Shard) Check() error {
	if err := CheckShards(s.Count); err != nil {
		return err
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d of %d: the index must be in [0, %d)", s.Index, s.Count, s.Count)
	}
	return nil
}

// CheckShards refuses a shard count outside [1, MaxShards].
func CheckShards(k int) error {
	if k < 1 || k > MaxShards {
		return fmt.Errorf("%d shards: want between 1 and %d", k, MaxShards)
	}
	return nil
}

// Name is the shard's name in refs: "i-of-K".
func (s Shard) Name() string { return fmt.Sprintf("%d-of-%d", s.Index, s.Count) }

// Owns reports whether the plan step at index belongs to the shard. Replay
// assertions belong to no shard; the caller skips them.
func (s Shard) Owns(index int) bool { return index%s.Count == s.Index }

// ShardStep is what one step observed in its shard, kept until the merge.
// The versor condition is kept exactly (Go's shortest round-trip form; a
// canonical document holds no float) because the merge decides halts on it
// as the Runner does.
type ShardStep struct {
	Step            int    `json:"step"`
	TraceHash       string `json:"trace_hash"`
	VersorCondition string `json:"versor_condition"`
	Accepted        bool   `json:"accepted"`
	HasProvenance   bool   `json:"has_provenance"`
	// Halt, when not empty, is the reason the runtime refused to commit the
	// step's state (a HaltError); the other fields are then empty.
	Halt  string `json:"halt,omitempty"`
	Event any    `json:"event"`
	// Unreached, when not empty, says what the step's utterance reads as
	// when a user types it (Observation.Unreached).
	Unreached string `json:"unreached,omitempty"`
}

// ShardRun is what one shard observed: for each of the two passes, its
// steps in step order.
type ShardRun struct {
	Passes [][]ShardStep `json:"passes"`
}

// DriveShard runs the shard's steps of both passes through the real
// runtime, each in a fresh session, and returns what each observed, in step
// order per pass. A pass stops after its first step that halts: no later
// step can appear in the merged record.
func DriveShard(ctx context.Context, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, loaded *packs.Loaded, operator field.Operator, shard Shard) (ShardRun, error) {
	out := ShardRun{Passes: make([][]ShardStep, 2)}
	if err := shard.Check(); err != nil {
		return out, err
	}
	k, err := knowledge.FromVTS(vts)
	if err != nil {
		return out, rejected(ReasonKnowledgeRejected, err)
	}
	counters := counterSet(vts)
	for pass := range out.Passes {
		step, _, err := passStep(k, counters, loaded, operator, nil)
		if err != nil {
			return out, err
		}
		out.Passes[pass] = []ShardStep{}
		for i, s := range plan.Steps {
			if !shard.Owns(i) || s.StepType == artifact.StepReplayAssertion {
				continue
			}
			if err := ctx.Err(); err != nil {
				return out, err
			}
			obs, err := step(ctx, i, s)
			if he, ok := err.(*HaltError); ok {
				out.Passes[pass] = append(out.Passes[pass], ShardStep{Step: i, Halt: he.Reason})
				break
			}
			if err != nil {
				return out, fmt.Errorf("run: step %d (%s): %w", i, s.StepType, err)
			}
			out.Passes[pass] = append(out.Passes[pass], ShardStep{Step: i, TraceHash: obs.TraceHash,
				VersorCondition: strconv.FormatFloat(obs.VersorCondition, 'g', -1, 64),
				Accepted:        obs.Accepted, HasProvenance: obs.HasProvenance, Event: obs.Event, Unreached: obs.Unreached})
			if breaksClosure(obs.VersorCondition) {
				break
			}
		}
	}
	return out, nil
}

// MergeShards rebuilds both passes of DrivePlan from every shard's steps
// (shards[i] is shard i of len(shards)): a Runner walks the plan in order,
// taking each step's observation from its shard and computing each replay
// assertion over the trace hashes before it, so halts, results and events
// (written to opts.Events) come out as an unsharded run records them;
// opts.Jobs is not used, a merge runs no turn. Shards that do not cover the
// plan exactly are refused with an *Error (shard_inconsistent).
func MergeShards(ctx context.Context, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, loaded *packs.Loaded, opts Options, shards []ShardRun) ([2]Pass, error) {
	var passes [2]Pass
	byStep, err := indexShards(plan, shards)
	if err != nil {
		return passes, err
	}
	k, err := knowledge.FromVTS(vts)
	if err != nil {
		return passes, rejected(ReasonKnowledgeRejected, err)
	}
	events := newEventsWriter(opts.Events)
	for pass := range passes {
		_, rt, err := passStep(k, counterSet(vts), loaded, opts.Operator, nil)
		if err != nil {
			return passes, err
		}
		r := Runner{Steps: []StepFunc{shardStep(byStep[pass])}, Replay: replayStep(rt), OnStep: opts.OnStep}
		if events != nil {
			r.Event = events.event
		}
		if err := events.beginPass(); err != nil {
			return passes, err
		}
		if passes[pass], err = r.Run(ctx, plan); err != nil {
			return passes, err
		}
		if err := events.endPass(); err != nil {
			return passes, err
		}
	}
	return passes, events.close()
}

// shardStep is the observation of step i in a merge: the one its shard
// recorded.
func shardStep(steps map[int]ShardStep) StepFunc {
	return func(_ context.Context, i int, _ artifact.PlanStep) (Observation, error) {
		st, ok := steps[i]
		if !ok {
			return Observation{}, inconsistent(fmt.Errorf("step %d is in no shard", i))
		}
		if st.Halt != "" {
			return Observation{}, &HaltError{Reason: st.Halt}
		}
		v, err := strconv.ParseFloat(st.VersorCondition, 64)
		if err != nil {
			return Observation{}, inconsistent(fmt.Errorf("step %d: versor condition %q: %w", i, st.VersorCondition, err))
		}
		return Observation{TraceHash: st.TraceHash, VersorCondition: v, Accepted: st.Accepted,
			HasProvenance: st.HasProvenance, Event: st.Event, Unreached: st.Unreached}, nil
	}
}

// indexShards maps each pass's steps by index, refusing a step that its
// shard does not own, a replay assertion, an index outside the plan or a
// shard list that is not a whole count.
func indexShards(plan artifact.FormationPlan, shards []ShardRun) ([2]map[int]ShardStep, error) {
	var by [2]map[int]ShardStep
	if err := CheckShards(len(shards)); err != nil {
		return by, inconsistent(err)
	}
	for pass := range by {
		by[pass] = map[int]ShardStep{}
		for si, sh := range shards {
			owner := Shard{Index: si, Count: len(shards)}
			if len(sh.Passes) != len(by) {
				return by, inconsistent(fmt.Errorf("shard %s holds %d passes, not %d", owner.Name(), len(sh.Passes), len(by)))
			}
			for _, st := range sh.Passes[pass] {
				switch {
				case st.Step < 0 || st.Step >= len(plan.Steps):
					return by, inconsistent(fmt.Errorf("shard %s, pass %d: step %d is outside the plan's %d steps", owner.Name(), pass+1, st.Step, len(plan.Steps)))
				case !owner.Owns(st.Step) || plan.Steps[st.Step].StepType == artifact.StepReplayAssertion:
					return by, inconsistent(fmt.Errorf("shard %s, pass %d: step %d is not the shard's", owner.Name(), pass+1, st.Step))
				}
				if _, dup := by[pass][st.Step]; dup {
					return by, inconsistent(fmt.Errorf("shard %s, pass %d: step %d twice", owner.Name(), pass+1, st.Step))
				}
				by[pass][st.Step] = st
			}
		}
	}
	return by, nil
}

func inconsistent(err error) *Error { return rejected(ReasonShardInconsistent, err) }
