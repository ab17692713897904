package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/run"
	"formation/stage"
	"formation/store"
)

// A very large subject's run step runs as K shards, each a process of its
// own (a pod on a cluster), and one merge:
//
//	formation run --shard i/K SUBJECT     (i = 0 … K-1, in any order, at once)
//	formation run --merge --shards K SUBJECT
//
// Shard i drives, in both passes, the plan steps whose index is i modulo K
// (run.DriveShard) and stores what they observed; its output is a RunShard
// under subjects/<s>/run-shards/<i>-of-<K>, cached under a key of its own.
// The merge checks that all K shards are there and were run for the
// subject's current course under the same runtime and packs, computes the
// replay assertions over every earlier trace hash (run.MergeShards) and
// stores the run record inside the run stage's own frame, under the run
// stage's cache key: the record is byte-identical to an unsharded run's, it
// moves subjects/<s>/run, and an unsharded run after a merge is a cache hit,
// as a merge after an unsharded run is.

// The reason codes of a merge's refusals (exit 65, one audit record each).
const (
	// ReasonShardMissing: some of the K shards have not been stored.
	ReasonShardMissing = "shard_missing"
	// ReasonShardCountMismatch: the shards stored were run for another
	// number of shards than the merge asks for.
	ReasonShardCountMismatch = "shard_count_mismatch"
	// ReasonShardPlanMismatch: a shard was run for another course (hence
	// another compiled plan), or under another runtime or other packs.
	ReasonShardPlanMismatch = "shard_plan_mismatch"
)

// RunShardVersion is the version of a shard's output: bump it when what a
// shard stores changes.
const RunShardVersion = "1"

// RunShard is the output of one shard: what it ran (subject, course, plan,
// run parameters, which shard of how many) and, by digest, its steps (a
// run.ShardRun). The merge reads the small head first and the steps only
// when it has to build the record.
type RunShard struct {
	Subject       string    `json:"subject"`
	CourseObject  string    `json:"course_object"`
	PlanSHA256    string    `json:"plan_sha256"`
	Run           RunParams `json:"run"`
	RunVersion    string    `json:"run_version"`
	Shard         int       `json:"shard"`
	Shards        int       `json:"shards"`
	StepsObject   string    `json:"steps_object"`
	SchemaVersion string    `json:"schema_version"`
}

// ShardRef is the ref of a subject's shard.
func ShardRef(subject string, s run.Shard) string {
	return shardRefPrefix(subject) + s.Name()
}

func shardRefPrefix(subject string) string { return "subjects/" + subject + "/run-shards/" }

// RunShard runs one shard of the subject's run step.
func (p *Pipeline) RunShard(ctx context.Context, subject string, shard run.Shard) (stage.Result, error) {
	if err := checkSubject(subject); err != nil {
		return stage.Result{}, err
	}
	if err := shard.Check(); err != nil {
		return stage.Result{}, exitcode.With(exitcode.Usage, err)
	}
	courseDigest, err := p.Env.ResolveRef(ctx, subject, "compose")
	if err != nil {
		return stage.Result{}, err
	}
	loaded, err := p.loadPacks(ctx)
	if err != nil {
		return stage.Result{}, err
	}
	params, err := runParams(loaded)
	if err != nil {
		return stage.Result{}, err
	}
	spec := runShardSpec(subject, RunShardParams{Run: params, RunVersion: RunVersion, Shard: shard.Index, Shards: shard.Count},
		RunShardInputs{Course: courseDigest})
	return p.Env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
		in, err := p.loadCourse(ctx, spec, courseDigest)
		if err != nil {
			return stage.Output{}, err
		}
		steps, err := run.DriveShard(ctx, in.Plan, in.VTS, loaded, nil, shard)
		if err != nil {
			return stage.Output{}, haltOf(err)
		}
		body, err := artifact.Encode(steps)
		if err != nil {
			return stage.Output{}, err
		}
		stepsDigest, err := p.Env.Store.Put(ctx, body)
		if err != nil {
			return stage.Output{}, err
		}
		p.logf("run %s: shard %s of %d steps", subject, shard.Name(), len(in.Plan.Steps))
		return stage.Output{Artifact: RunShard{Subject: subject, CourseObject: courseDigest, PlanSHA256: in.Plan.PlanSHA256,
			Run: params, RunVersion: RunVersion, Shard: shard.Index, Shards: shard.Count, StepsObject: stepsDigest,
			SchemaVersion: artifact.SchemaVersion}}, nil
	})
}

// MergeRun merges the subject's K shards into its run record.
func (p *Pipeline) MergeRun(ctx context.Context, subject string, shards int) (stage.Result, error) {
	if err := checkSubject(subject); err != nil {
		return stage.Result{}, err
	}
	if err := run.CheckShards(shards); err != nil {
		return stage.Result{}, exitcode.With(exitcode.Usage, err)
	}
	courseDigest, err := p.Env.ResolveRef(ctx, subject, "compose")
	if err != nil {
		return stage.Result{}, err
	}
	loaded, err := p.loadPacks(ctx)
	if err != nil {
		return stage.Result{}, err
	}
	params, err := runParams(loaded)
	if err != nil {
		return stage.Result{}, err
	}
	spec := runSpec(subject, params, RunInputs{Course: courseDigest})
	heads, err := p.shardHeads(ctx, spec, params, courseDigest, shards)
	if err != nil {
		return stage.Result{}, err
	}
	return p.runFrame(ctx, spec, courseDigest, loaded, p.driveShards(spec, heads))
}

// shardHeads reads the heads of the K shards and refuses, audited, a
// missing shard, a wrong count and a shard of another plan.
func (p *Pipeline) shardHeads(ctx context.Context, spec stage.Spec, params RunParams, courseDigest string, count int) ([]RunShard, error) {
	refuse := func(reason, format string, args ...any) error {
		return p.Env.Refuse(ctx, spec, &stage.Halt{Code: exitcode.Rejected, Reason: reason, Detail: fmt.Sprintf(format, args...)})
	}
	heads := make([]RunShard, count)
	var missing []string
	for i := range heads {
		sh := run.Shard{Index: i, Count: count}
		digest, found, err := p.shardDigest(ctx, ShardRef(spec.Subject, sh))
		if err != nil {
			return nil, err
		}
		if !found {
			missing = append(missing, sh.Name())
			continue
		}
		if heads[i], err = stage.Load[RunShard](ctx, p.Env, spec, digest); err != nil {
			return nil, err
		}
	}
	if len(missing) > 0 {
		others, err := p.otherShardCounts(ctx, spec.Subject, count)
		if err != nil {
			return nil, err
		}
		if len(missing) == count && len(others) > 0 {
			return nil, refuse(ReasonShardCountMismatch, "a merge of %d shards, but the subject's shards were run as %s", count, strings.Join(others, ", "))
		}
		return nil, refuse(ReasonShardMissing, "%d of %d shards missing: %s", len(missing), count, strings.Join(missing, ", "))
	}
	for i, h := range heads {
		name := run.Shard{Index: i, Count: count}.Name()
		switch {
		case h.Shard != i || h.Shards != count || h.Subject != spec.Subject:
			return nil, refuse(ReasonShardCountMismatch, "ref %s names shard %d-of-%d of subject %s", name, h.Shard, h.Shards, h.Subject)
		case h.CourseObject != courseDigest:
			return nil, refuse(ReasonShardPlanMismatch, "shard %s was run for course %s (plan %s); the subject's course is %s", name, h.CourseObject, h.PlanSHA256, courseDigest)
		case h.Run != params || h.RunVersion != RunVersion:
			return nil, refuse(ReasonShardPlanMismatch, "shard %s was run under runtime %s, run version %s, safety pack %s, manifold %s; now %s, %s, %s, %s",
				name, h.Run.Runtime, h.RunVersion, h.Run.SafetyPack, h.Run.Manifold, params.Runtime, RunVersion, params.SafetyPack, params.Manifold)
		}
	}
	return heads, nil
}

// shardDigest reads a shard's ref.
func (p *Pipeline) shardDigest(ctx context.Context, ref string) (string, bool, error) {
	v, _, err := p.Env.Store.GetRef(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	d := strings.TrimSpace(string(v))
	if !store.ValidDigest(d) {
		return "", false, exitcode.Newf(exitcode.Rejected, "ref %s holds %q, not a digest", ref, d)
	}
	return d, true, nil
}

// otherShardCounts names the shard counts, other than count, that the
// subject has shards of ("4 shards", …), sorted.
func (p *Pipeline) otherShardCounts(ctx context.Context, subject string, count int) ([]string, error) {
	refs, err := p.Env.Store.ListRefs(ctx, shardRefPrefix(subject))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range refs {
		_, k, ok := strings.Cut(strings.TrimPrefix(r, shardRefPrefix(subject)), "-of-")
		if ok && k != fmt.Sprint(count) {
			seen[k+" shards"] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// driveShards is the merge's pass driver: it reads every shard's steps and
// merges them over the plan the course compiles to, which must be the one
// the shards ran.
func (p *Pipeline) driveShards(spec stage.Spec, heads []RunShard) passDriver {
	return passDriver{drive: func(ctx context.Context, in CourseInputs, loaded *packs.Loaded, opts run.Options) ([2]run.Pass, error) {
		steps := make([]run.ShardRun, len(heads))
		for i, h := range heads {
			if h.PlanSHA256 != in.Plan.PlanSHA256 {
				return [2]run.Pass{}, &stage.Halt{Code: exitcode.Rejected, Reason: ReasonShardPlanMismatch,
					Detail: fmt.Sprintf("shard %d-of-%d ran plan %s; the course compiles to plan %s", h.Shard, h.Shards, h.PlanSHA256, in.Plan.PlanSHA256)}
			}
			var err error
			if steps[i], err = stage.Load[run.ShardRun](ctx, p.Env, spec, h.StepsObject); err != nil {
				return [2]run.Pass{}, err
			}
		}
		passes, err := run.MergeShards(ctx, in.Plan, in.VTS, loaded, run.Options{Events: opts.Events, OnStep: opts.OnStep}, steps)
		return passes, haltOf(err)
	}}
}
