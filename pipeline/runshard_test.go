package pipeline_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/pipeline"
	"formation/run"
	"formation/stage"
)

// upToCompose runs the stages before run.
func upToCompose(t *testing.T, p *pipeline.Pipeline, subject string) {
	t.Helper()
	ctx := context.Background()
	for _, st := range []func(context.Context, string) (stage.Result, error){p.Mine, p.Smelt, p.Forge, p.Compose} {
		_, err := st(ctx, subject)
		must(t, err)
	}
}

// shardRun runs the given shards of k, in the order given.
func shardRun(t *testing.T, p *pipeline.Pipeline, subject string, k int, order ...int) []stage.Result {
	t.Helper()
	var out []stage.Result
	for _, i := range order {
		res, err := p.RunShard(context.Background(), subject, run.Shard{Index: i, Count: k})
		if err != nil {
			t.Fatalf("shard %d of %d: %v", i, k, err)
		}
		out = append(out, res)
	}
	return out
}

func objectBytes(t *testing.T, p *pipeline.Pipeline, digest string) []byte {
	t.Helper()
	b, err := p.Env.Store.Get(context.Background(), digest)
	must(t, err)
	return b
}

// Shards run in any order and merged write the record an unsharded run
// writes, byte for byte, under the same cache key: an unsharded run after
// the merge is a hit, and so is a merge after an unsharded run. Shards
// resubmitted are hits.
func TestShardedRunIsTheUnshardedRecord(t *testing.T) {
	ctx := context.Background()
	courses := tinySubject(t, tinyDoc)

	plain := tinyPipeline(t, courses)
	upToCompose(t, plain, "tiny")
	want, err := plain.Run(ctx, "tiny")
	must(t, err)

	sharded := tinyPipeline(t, courses)
	upToCompose(t, sharded, "tiny")
	for _, r := range shardRun(t, sharded, "tiny", 3, 2, 0, 1) {
		if r.CacheHit || r.Stage != "run-shard" {
			t.Fatalf("first shard run: %+v", r)
		}
	}
	merged, err := sharded.MergeRun(ctx, "tiny", 3)
	must(t, err)
	if merged.CacheHit || merged.Output != want.Output || !bytes.Equal(objectBytes(t, sharded, merged.Output), objectBytes(t, plain, want.Output)) {
		t.Fatalf("merged record %s (hit %v), unsharded %s", merged.Output, merged.CacheHit, want.Output)
	}
	ref, err := sharded.Env.ResolveRef(ctx, "tiny", "run")
	must(t, err)
	if ref != want.Output {
		t.Fatalf("subjects/tiny/run names %s after the merge", ref)
	}
	again, err := sharded.Run(ctx, "tiny")
	must(t, err)
	if !again.CacheHit || again.Output != want.Output {
		t.Fatalf("an unsharded run after the merge: %+v", again)
	}
	for _, r := range shardRun(t, sharded, "tiny", 3, 0, 1, 2) {
		if !r.CacheHit {
			t.Fatalf("a resubmitted shard ran again: %+v", r)
		}
	}
	remerged, err := sharded.MergeRun(ctx, "tiny", 3)
	must(t, err)
	if !remerged.CacheHit || remerged.Output != want.Output {
		t.Fatalf("a resubmitted merge: %+v", remerged)
	}

	// The other way round: an unsharded run first, then a merge, a hit.
	shardRun(t, plain, "tiny", 2, 1, 0)
	viceVersa, err := plain.MergeRun(ctx, "tiny", 2)
	must(t, err)
	if !viceVersa.CacheHit || viceVersa.Output != want.Output {
		t.Fatalf("a merge after an unsharded run: %+v", viceVersa)
	}
	ratified, err := sharded.Ratify(ctx, "tiny")
	must(t, err)
	plainReport, err := plain.Ratify(ctx, "tiny")
	must(t, err)
	if ratified.Output != plainReport.Output {
		t.Fatalf("ratify after a merge %s, after a run %s", ratified.Output, plainReport.Output)
	}
}

// mergeRefusal merges k shards and wants exit 65 with exactly one new
// audit record of the reason.
func mergeRefusal(t *testing.T, p *pipeline.Pipeline, k int, reason, detail string) {
	t.Helper()
	ctx := context.Background()
	before, err := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "tiny", Stage: "run"})
	must(t, err)
	res, err := p.MergeRun(ctx, "tiny", k)
	var h *stage.Halt
	if exitcode.Of(err) != exitcode.Rejected || !errors.As(err, &h) || h.Reason != reason || !strings.Contains(err.Error(), detail) || res.Output != "" {
		t.Fatalf("merge of %d: want %s (%s), got %v (exit %d)", k, reason, detail, err, exitcode.Of(err))
	}
	after, err := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "tiny", Stage: "run"})
	must(t, err)
	if len(after) != len(before)+1 || haltsOf(after, reason) != haltsOf(before, reason)+1 {
		t.Fatalf("merge of %d: want one more %s audit record, got %d records for %d", k, reason, len(after), len(before))
	}
	if _, err := p.Env.ResolveRef(ctx, "tiny", "run"); exitcode.Of(err) != exitcode.NotFound {
		t.Fatalf("a refused merge moved subjects/tiny/run: %v", err)
	}
}

// A merge refuses a missing shard, a wrong count and another plan's shard,
// each with exit 65 and one audit record, and moves no ref.
func TestMergeRefusals(t *testing.T) {
	courses := tinySubject(t, tinyDoc)
	p := tinyPipeline(t, courses)
	upToCompose(t, p, "tiny")
	shardRun(t, p, "tiny", 3, 0, 2)
	mergeRefusal(t, p, 3, pipeline.ReasonShardMissing, "1 of 3 shards missing: 1-of-3")
	mergeRefusal(t, p, 4, pipeline.ReasonShardCountMismatch, "a merge of 4 shards, but the subject's shards were run as 3 shards")
	shardRun(t, p, "tiny", 3, 1)

	// The subject changes: the shards now belong to the old course's plan.
	doc := filepath.Join(courses, "tiny", "sources", "light.md")
	changed := tinyDoc + "A mirror is an optical device that reflects light.\n"
	must(t, os.WriteFile(doc, []byte(changed), 0o644))
	rewriteAllowlist(t, courses, changed)
	upToCompose(t, p, "tiny")
	mergeRefusal(t, p, 3, pipeline.ReasonShardPlanMismatch, "shard 0-of-3 was run for course")

	// Run again for the new course, the merge goes through.
	shardRun(t, p, "tiny", 3, 0, 1, 2)
	if _, err := p.MergeRun(context.Background(), "tiny", 3); err != nil {
		t.Fatalf("merge after the shards ran again: %v", err)
	}
}

// rewriteAllowlist allow-lists the tiny subject's source as it now reads.
func rewriteAllowlist(t *testing.T, courses, doc string) {
	t.Helper()
	sum := sha256.Sum256([]byte(doc))
	body := fmt.Sprintf("- source_sha: %q\n  tier: primary\n  label: light notes\n", hex.EncodeToString(sum[:]))
	must(t, os.WriteFile(filepath.Join(courses, "tiny", "allowlist.yaml"), []byte(body), 0o644))
}

func haltsOf(recs []audit.Record, reason string) int {
	n := 0
	for _, r := range recs {
		if r.Kind == audit.KindHalt && r.ReasonCode == reason {
			n++
		}
	}
	return n
}
