package run_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/run"
	"formation/runtime/algebra"
	"formation/runtime/field"
)

// shardAll drives every shard of k and round-trips each through its
// canonical encoding, as the store would.
func shardAll(t *testing.T, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, op field.Operator, k int) []run.ShardRun {
	t.Helper()
	loaded := shippedPacks(t)
	out := make([]run.ShardRun, k)
	for i := range k {
		steps, err := run.DriveShard(context.Background(), plan, vts, loaded, op, run.Shard{Index: i, Count: k})
		if err != nil {
			t.Fatalf("shard %d of %d: %v", i, k, err)
		}
		raw, err := artifact.Encode(steps)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = artifact.Decode[run.ShardRun](raw); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// sameEncoding compares two runs by the bytes a run record and its events
// object would hold.
func sameEncoding(t *testing.T, what string, want, got driven) {
	t.Helper()
	for i := range want.passes {
		a, err := artifact.Encode(want.passes[i].Output)
		if err != nil {
			t.Fatal(err)
		}
		b, err := artifact.Encode(got.passes[i].Output)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: pass %d output differs from the unsharded run's", what, i+1)
		}
	}
	if !bytes.Equal(want.events, got.events) {
		t.Fatalf("%s: the events differ from the unsharded run's", what)
	}
}

// merge merges shards, its events written to a buffer.
func merge(t *testing.T, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, op field.Operator, shards []run.ShardRun) (driven, error) {
	t.Helper()
	var events bytes.Buffer
	passes, err := run.MergeShards(context.Background(), plan, vts, shippedPacks(t), run.Options{Operator: op, Events: &events}, shards)
	return driven{passes: passes, events: events.Bytes()}, err
}

// Any number of shards, merged, gives DrivePlan's passes byte for byte,
// replay assertions included; more shards than steps leaves some empty.
func TestShardsMergeToDrivePlan(t *testing.T) {
	plan, vts := microPlan(t)
	loaded := shippedPacks(t)
	want := drive(t, plan, vts, loaded, run.Options{})
	replays := 0
	for _, s := range plan.Steps {
		if s.StepType == artifact.StepReplayAssertion {
			replays++
		}
	}
	if replays == 0 {
		t.Fatal("the micro-course has no replay assertion to merge")
	}
	for _, k := range []int{1, 2, 3, 4, 7, len(plan.Steps) + 3} {
		got, err := merge(t, plan, vts, nil, shardAll(t, plan, vts, nil, k))
		if err != nil {
			t.Fatalf("merge of %d shards: %v", k, err)
		}
		sameEncoding(t, "merge", want, got)
	}
}

// A runtime that refuses to commit halts every shard at its first step;
// the merge halts where the unsharded run does.
func TestShardsMergeAHalt(t *testing.T) {
	plan, vts := microPlan(t)
	drift := func(tr field.Transition) algebra.MV { return algebra.Scale(field.Conjugate(tr), 1+1e-3) }
	want := drive(t, plan, vts, shippedPacks(t), run.Options{Operator: drift})
	shards := shardAll(t, plan, vts, drift, 3)
	for i, sh := range shards {
		for pass, steps := range sh.Passes {
			if len(steps) != 1 || steps[0].Halt == "" {
				t.Fatalf("shard %d pass %d ran on past its halt: %+v", i, pass+1, steps)
			}
		}
	}
	got, err := merge(t, plan, vts, drift, shards)
	if err != nil {
		t.Fatal(err)
	}
	sameEncoding(t, "halted merge", want, got)
}

// A halt recorded by a shard in the middle of the plan stops the merged
// pass there: the steps before it are results, none after.
func TestMergeStopsAtTheFirstHalt(t *testing.T) {
	plan, vts := microPlan(t)
	shards := shardAll(t, plan, vts, nil, 2)
	at := 3
	if plan.Steps[at].StepType == artifact.StepReplayAssertion {
		t.Fatalf("step %d of the micro-course is a replay", at)
	}
	first := shards[at%2].Passes[0]
	for i := range first {
		if first[i].Step == at {
			first[i] = run.ShardStep{Step: at, Halt: "versor_condition 2.001e-03 >= 1e-06"}
		}
	}
	got, err := merge(t, plan, vts, nil, shards)
	if err != nil {
		t.Fatal(err)
	}
	o := got.passes[0].Output
	if !o.Halted || o.HaltStepIndex != at || len(o.Results) != at || len(eventsOf(t, got.events)[0]) != at || o.HaltReason != "versor_condition 2.001e-03 >= 1e-06" {
		t.Fatalf("pass 1: halted=%v at %d, %d results: %q", o.Halted, o.HaltStepIndex, len(o.Results), o.HaltReason)
	}
	if got.passes[1].Output.Halted || len(got.passes[1].Output.Results) != len(plan.Steps) {
		t.Fatalf("pass 2 halted too: %+v", got.passes[1].Output.Halted)
	}
}

// Shards that do not cover the plan exactly are refused, exit 65.
func TestMergeRefusesInconsistentShards(t *testing.T) {
	plan, vts := microPlan(t)
	good := shardAll(t, plan, vts, nil, 2)
	clone := func() []run.ShardRun {
		out := make([]run.ShardRun, len(good))
		for i, sh := range good {
			out[i].Passes = make([][]run.ShardStep, len(sh.Passes))
			for p := range sh.Passes {
				out[i].Passes[p] = append([]run.ShardStep{}, sh.Passes[p]...)
			}
		}
		return out
	}
	dropped := clone()
	dropped[1].Passes[1] = dropped[1].Passes[1][1:]
	foreign := clone()
	foreign[0].Passes[0] = append(foreign[0].Passes[0], good[1].Passes[0][0])
	outside := clone()
	outside[0].Passes[0] = append(outside[0].Passes[0], run.ShardStep{Step: len(plan.Steps) + 1})
	badCondition := clone()
	badCondition[0].Passes[0][0].VersorCondition = "zero"
	onePass := clone()
	onePass[1].Passes = onePass[1].Passes[:1]
	for name, c := range map[string]struct {
		shards []run.ShardRun
		detail string
	}{
		"missing step":  {dropped, "is in no shard"},
		"foreign step":  {foreign, "is not the shard's"},
		"outside":       {outside, "outside the plan"},
		"bad condition": {badCondition, "versor condition"},
		"no shards":     {nil, "0 shards"},
		"one pass":      {onePass, "holds 1 passes"},
	} {
		_, err := merge(t, plan, vts, nil, c.shards)
		var re *run.Error
		if !errors.As(err, &re) || re.Reason != run.ReasonShardInconsistent || exitcode.Of(err) != exitcode.Rejected || !strings.Contains(err.Error(), c.detail) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]run.Shard{"0/1": {0, 1}, "3/4": {3, 4}, "1023/1024": {1023, 1024}} {
		got, err := run.ParseShard(in)
		if err != nil || got != want || got.Name() != strings.Replace(in, "/", "-of-", 1) {
			t.Errorf("%s: %+v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "1", "4/4", "-1/4", "0/0", "0/1025", "a/4", "1/b", "1/2/3"} {
		if _, err := run.ParseShard(in); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
}
