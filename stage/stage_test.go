package stage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/stage"
	"formation/store"
)

func newEnv(t *testing.T) (*stage.Env, string) {
	dir := t.TempDir()
	s, err := store.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
	return stage.NewEnv(s, w), dir
}

func TestRunCachesAndMovesRef(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	in, _ := env.Store.Put(ctx, []byte(`{"x":1}`))
	spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics", Params: map[string]any{"k": "v"}, Inputs: []string{in}}
	calls := 0
	core := func(context.Context) (stage.Output, error) {
		calls++
		return stage.Output{Artifact: map[string]any{"out": 1}, Audit: []audit.Record{{Kind: audit.KindDrop, ReasonCode: "duplicate_merged", Key: "k"}}}, nil
	}
	first, err := env.Run(ctx, spec, core)
	if err != nil || first.CacheHit || first.Audit != 1 {
		t.Fatalf("first run %+v %v", first, err)
	}
	second, err := env.Run(ctx, spec, core)
	if err != nil || !second.CacheHit || second.Output != first.Output || calls != 1 {
		t.Fatalf("second run %+v %v (calls %d)", second, err, calls)
	}
	got, err := env.ResolveRef(ctx, "optics", "forge")
	if err != nil || got != first.Output {
		t.Fatalf("ref %s %v", got, err)
	}
	spec.Params = map[string]any{"k": "w"}
	third, _ := env.Run(ctx, spec, core)
	if third.CacheHit || calls != 2 || third.Explain.Changed[0] != "params_digest" {
		t.Fatalf("changed params: %+v", third)
	}
}

func TestHaltIsAuditedAndStoresNothing(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	spec := stage.Spec{Stage: "mine", Version: "1", Subject: "optics"}
	_, err := env.Run(ctx, spec, func(context.Context) (stage.Output, error) {
		return stage.Output{}, &stage.Halt{Code: exitcode.Rejected, Reason: "source_refused", Audit: []audit.Record{
			{Kind: audit.KindRejection, ReasonCode: "path_escape", Key: "../etc"},
			{Kind: audit.KindRejection, ReasonCode: "oversized", Key: "big.txt"},
		}}
	})
	if exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
	recs, _ := audit.List(ctx, env.Store, audit.Filter{Subject: "optics", Stage: "mine"})
	if len(recs) != 2 || recs[1].ReasonCode != "oversized" {
		t.Fatalf("audit %+v", recs)
	}
	if objs, _ := env.Store.ListObjects(ctx); len(objs) != 0 {
		t.Fatalf("a halted stage stored %d objects", len(objs))
	}
	if _, err := env.ResolveRef(ctx, "optics", "mine"); exitcode.Of(err) != exitcode.NotFound {
		t.Fatalf("ref moved by a halted stage: %v", err)
	}
}

func TestCorruptInputHaltsWithAudit(t *testing.T) {
	ctx := context.Background()
	env, dir := newEnv(t)
	d, _ := env.Store.Put(ctx, []byte(`{"subject_id":"optics","entries":[],"schema_version":"1.0.0"}`))
	path := filepath.Join(dir, "objects", "sha256", d[:2], d)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[5] ^= 1
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := stage.Spec{Stage: "smelt", Version: "1", Subject: "optics", Inputs: []string{d}}
	_, err = stage.LoadBytes(ctx, env, spec, d)
	if exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
	recs, _ := audit.List(ctx, env.Store, audit.Filter{Subject: "optics"})
	if len(recs) != 1 || recs[0].ReasonCode != "corrupt_object" || !strings.Contains(recs[0].Detail, d[:12]) {
		t.Fatalf("audit %+v", recs)
	}
}
