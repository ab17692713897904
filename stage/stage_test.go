package stage_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/stage"
	"formation/stagecache"
	"formation/store"
)

func newEnv(t testing.TB) (*stage.Env, string) {
	dir := t.TempDir()
	s, err := store.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &audit.Writer{Store: s, Now: time.Now, CodeVersion: "test"}
	return stage.NewEnv(s, w), dir
}

type params struct {
	K string `json:"k"`
}

func objectPath(dir, d string) string { return filepath.Join(dir, "objects", "sha256", d[:2], d) }

// flip changes one byte of a stored object behind the store's back.
func flip(t *testing.T, dir, d string) {
	t.Helper()
	path := objectPath(dir, d)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 1
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// counting is a core that stores {"out":n} and counts its calls.
type counting struct {
	calls int
	out   int
}

func (c *counting) core(context.Context) (stage.Output, error) {
	c.calls++
	return stage.Output{Artifact: map[string]any{"out": c.out}, Audit: []audit.Record{{Kind: audit.KindDrop, ReasonCode: "duplicate_merged", Key: "k"}}}, nil
}

func auditOf(t *testing.T, env *stage.Env, subject, stageName string) []audit.Record {
	t.Helper()
	recs, err := audit.List(context.Background(), env.Store, audit.Filter{Subject: subject, Stage: stageName})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRunCachesAndMovesRef(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	in, _ := env.Store.Put(ctx, []byte(`{"x":1}`))
	spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics", Params: params{K: "v"}, Inputs: []string{in}}
	c := &counting{}
	first, err := env.Run(ctx, spec, c.core)
	if err != nil || first.CacheHit || first.Audit != 1 {
		t.Fatalf("first run %+v %v", first, err)
	}
	second, err := env.Run(ctx, spec, c.core)
	if err != nil || !second.CacheHit || second.Output != first.Output || c.calls != 1 {
		t.Fatalf("second run %+v %v (calls %d)", second, err, c.calls)
	}
	got, err := env.ResolveRef(ctx, "optics", "forge")
	if err != nil || got != first.Output {
		t.Fatalf("ref %s %v", got, err)
	}
	spec.Params = params{K: "w"}
	third, _ := env.Run(ctx, spec, c.core)
	if third.CacheHit || c.calls != 2 || third.Explain.Changed[0] != "params_digest" {
		t.Fatalf("changed params: %+v", third)
	}
	// Another subject with otherwise equal ingredients is another action.
	spec.Subject = "optics2"
	fourth, _ := env.Run(ctx, spec, c.core)
	if fourth.CacheHit || c.calls != 3 {
		t.Fatalf("a second subject hit the first one's entry: %+v", fourth)
	}
}

func TestSpecRefusesWhatTheKeyCannotHold(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	c := &counting{}
	for name, spec := range map[string]stage.Spec{
		"map params":         {Stage: "forge", Version: "1", Subject: "optics", Params: map[string]any{"k": "v"}},
		"hidden field":       {Stage: "forge", Version: "1", Subject: "optics", Params: struct{ k string }{"v"}},
		"input not a digest": {Stage: "forge", Version: "1", Subject: "optics", Inputs: []string{"abc"}},
		"bad subject":        {Stage: "forge", Version: "1", Subject: "../x"},
	} {
		if _, err := env.Run(ctx, spec, c.core); exitcode.Of(err) != exitcode.Internal {
			t.Errorf("%s: exit %d (%v)", name, exitcode.Of(err), err)
		}
	}
	if c.calls != 0 {
		t.Fatalf("a core ran under a spec the key cannot hold")
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
	recs := auditOf(t, env, "optics", "mine")
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

// A core that reads a corrupt input halts with exit 65 and exactly one
// audit record, whether the input is read raw or decoded.
func TestCorruptInputAuditedOnce(t *testing.T) {
	ctx := context.Background()
	for _, decode := range []bool{false, true} {
		env, dir := newEnv(t)
		d, _ := env.Store.Put(ctx, []byte(`{"subject_id":"optics","entries":[],"schema_version":"1.0.0"}`))
		flip(t, dir, d)
		spec := stage.Spec{Stage: "smelt", Version: "1", Subject: "optics", Inputs: []string{d}}
		_, err := env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
			var err error
			if decode {
				_, err = stage.Load[map[string]any](ctx, env, spec, d)
			} else {
				_, err = stage.LoadBytes(ctx, env, spec, d)
			}
			return stage.Output{}, err
		})
		if exitcode.Of(err) != exitcode.Rejected || !errors.Is(err, store.ErrCorrupt) {
			t.Fatalf("exit %d: %v", exitcode.Of(err), err)
		}
		recs := auditOf(t, env, "optics", "smelt")
		if len(recs) != 1 || recs[0].ReasonCode != "corrupt_object" || !strings.Contains(recs[0].Detail, d[:12]) || recs[0].InputDigests[0] != d {
			t.Fatalf("decode=%v: audit %+v", decode, recs)
		}
	}
}

func TestUndecodableInputAuditedOnce(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	d, _ := env.Store.Put(ctx, []byte(`not json`))
	spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics", Inputs: []string{d}}
	_, err := env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
		_, err := stage.Load[map[string]any](ctx, env, spec, d)
		return stage.Output{}, err
	})
	if exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
	if recs := auditOf(t, env, "optics", "forge"); len(recs) != 1 || recs[0].ReasonCode != "undecodable_input" {
		t.Fatalf("audit %+v", recs)
	}
}

// A hit re-hashes its cached output: a corrupt one halts (exit 65, one
// record, the core does not run); a missing one is recomputed.
func TestHitVerifiesCachedOutput(t *testing.T) {
	ctx := context.Background()
	env, dir := newEnv(t)
	spec := stage.Spec{Stage: "compose", Version: "1", Subject: "optics", Params: params{K: "v"}}
	c := &counting{}
	first, err := env.Run(ctx, spec, c.core)
	if err != nil {
		t.Fatal(err)
	}
	flip(t, dir, first.Output)
	before := len(auditOf(t, env, "optics", "compose"))
	res, err := env.Run(ctx, spec, c.core)
	if exitcode.Of(err) != exitcode.Rejected || res.CacheHit || c.calls != 1 {
		t.Fatalf("hit on a corrupt output: exit %d %v %+v (calls %d)", exitcode.Of(err), err, res, c.calls)
	}
	recs := auditOf(t, env, "optics", "compose")[before:]
	if len(recs) != 1 || recs[0].ReasonCode != "corrupt_object" || !strings.Contains(recs[0].Detail, first.Output[:12]) {
		t.Fatalf("audit %+v", recs)
	}
	// Gone altogether, the output is made again and the hit becomes a miss.
	if err := os.Remove(objectPath(dir, first.Output)); err != nil {
		t.Fatal(err)
	}
	res, err = env.Run(ctx, spec, c.core)
	if err != nil || res.CacheHit || c.calls != 2 || res.Output != first.Output || !slices.Contains(res.Explain.Changed, "cached output missing") {
		t.Fatalf("missing output: %+v %v (calls %d)", res, err, c.calls)
	}
	if _, err := env.Store.Get(ctx, first.Output); err != nil {
		t.Fatalf("the output was not stored again: %v", err)
	}
}

// A hit confirms its input objects exist; without one, the stage runs.
func TestHitChecksInputsExist(t *testing.T) {
	ctx := context.Background()
	env, dir := newEnv(t)
	in, _ := env.Store.Put(ctx, []byte(`{"x":1}`))
	spec := stage.Spec{Stage: "run", Version: "1", Subject: "optics", Inputs: []string{in, stage.Absent}}
	c := &counting{}
	if _, err := env.Run(ctx, spec, c.core); err != nil {
		t.Fatal(err)
	}
	if res, err := env.Run(ctx, spec, c.core); err != nil || !res.CacheHit {
		t.Fatalf("rerun with its inputs present: %+v %v", res, err)
	}
	if err := os.Remove(objectPath(dir, in)); err != nil {
		t.Fatal(err)
	}
	res, err := env.Run(ctx, spec, c.core)
	if err != nil || res.CacheHit || c.calls != 2 || !slices.Contains(res.Explain.Changed, "input missing") {
		t.Fatalf("hit without its input: %+v %v (calls %d)", res, err, c.calls)
	}
}

// A recorded action producing another output is a typed internal error with
// an audit record; the record and the ref keep the first output.
func TestCacheConflictIsTypedAndAudited(t *testing.T) {
	ctx := context.Background()
	env, dir := newEnv(t)
	spec := stage.Spec{Stage: "ratify", Version: "1", Subject: "optics"}
	c := &counting{}
	first, err := env.Run(ctx, spec, c.core)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(objectPath(dir, first.Output)); err != nil {
		t.Fatal(err)
	}
	c.out = 1 // the "same" action now computes something else
	_, err = env.Run(ctx, spec, c.core)
	var conflict *stagecache.ConflictError
	if exitcode.Of(err) != exitcode.Internal || !errors.As(err, &conflict) {
		t.Fatalf("conflict: exit %d %T %v", exitcode.Of(err), err, err)
	}
	recs := auditOf(t, env, "optics", "ratify")
	if last := recs[len(recs)-1]; last.ReasonCode != "cache_conflict" || last.Kind != audit.KindHalt {
		t.Fatalf("audit %+v", recs)
	}
	if n := len(recs); n != 3 { // the core's record twice, the conflict once
		t.Fatalf("%d audit records: %+v", n, recs)
	}
	if got, _ := env.ResolveRef(ctx, "optics", "ratify"); got != first.Output {
		t.Fatalf("ref moved to the conflicting output: %s", got)
	}
}

func TestMoveRef(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	for _, v := range []string{"a", "a", "b"} {
		if err := env.MoveRef(ctx, "subjects/optics/forge", v); err != nil {
			t.Fatal(err)
		}
	}
	if got, _, _ := env.Store.GetRef(ctx, "subjects/optics/forge"); string(got) != "b" {
		t.Fatalf("ref %q", got)
	}
}

// The output and the audit batch are written side by side; when storing
// the output fails, the stage fails, nothing is cached and the ref does
// not move, and the attempt's records stay in the log. A later run that
// stores its output moves the ref as usual.
func TestFailedOutputMovesNoRef(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	spec := stage.Spec{Stage: "run", Version: "1", Subject: "optics"}
	lost := errors.New("the events writer broke")
	_, err := env.Run(ctx, spec, func(context.Context) (stage.Output, error) {
		return stage.Output{
			Write: func(io.Writer) error { return lost },
			Audit: []audit.Record{{Kind: audit.KindRejection, ReasonCode: "user_path_unreachable", Key: "step 3"}},
		}, nil
	})
	if !errors.Is(err, lost) {
		t.Fatalf("failed output: %v", err)
	}
	if _, err := env.ResolveRef(ctx, "optics", "run"); exitcode.Of(err) != exitcode.NotFound {
		t.Fatalf("ref moved to an output that was not stored: %v", err)
	}
	recs := auditOf(t, env, "optics", "run")
	if len(recs) != 1 || recs[0].ReasonCode != "user_path_unreachable" {
		t.Fatalf("audit after a failed output: %+v", recs)
	}
	c := &counting{}
	res, err := env.Run(ctx, spec, c.core)
	if err != nil || c.calls != 1 {
		t.Fatalf("rerun: %d calls, %v", c.calls, err)
	}
	if got, _ := env.ResolveRef(ctx, "optics", "run"); got != res.Output {
		t.Fatalf("ref %s, output %s", got, res.Output)
	}
	if n := len(auditOf(t, env, "optics", "run")); n != 2 {
		t.Fatalf("%d audit records after the rerun, want the failed attempt's and the rerun's", n)
	}
}

// refFaults fails SetRef on the refs it names, as a full or broken disk
// would fail one write and not another.
type refFaults struct {
	store.Store
	fail map[string]error
}

func (f refFaults) SetRef(ctx context.Context, name, old string, value []byte) (string, error) {
	if err := f.fail[name]; err != nil {
		return "", err
	}
	return f.Store.SetRef(ctx, name, old, value)
}

// Once the action is recorded, the cache's latest record, the subject's
// ref and the run note are written side by side: all three are written
// whichever way a run ends, and the error of a failed write comes in the
// order the writes were made one after the other (latest record, ref,
// note).
func TestRefWritesAfterTheRecord(t *testing.T) {
	ctx := context.Background()
	const (
		last = "cache/last/optics/forge"
		ref  = "subjects/optics/forge"
		note = "cache/runs/optics/forge"
	)
	for _, failing := range [][]string{nil, {note}, {ref, note}, {last, ref, note}, {last}} {
		env, _ := newEnv(t)
		faults := refFaults{Store: env.Store, fail: map[string]error{}}
		for _, name := range failing {
			faults.fail[name] = errors.New("disk full writing " + name)
		}
		env.Store, env.Cache.Store = faults, faults
		spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics"}
		res, err := env.Run(ctx, spec, (&counting{}).core)
		switch {
		case len(failing) == 0 && err != nil:
			t.Fatalf("no fault: %v", err)
		case len(failing) > 0 && (err == nil || !strings.Contains(err.Error(), "writing "+failing[0])):
			t.Fatalf("faults %v: error %v, want the first one's", failing, err)
		}
		wrote := map[string]bool{}
		for _, name := range []string{last, ref, note} {
			_, _, gerr := env.Store.GetRef(ctx, name)
			wrote[name] = gerr == nil
			if wrote[name] == slices.Contains(failing, name) {
				t.Errorf("faults %v: %s written %v", failing, name, wrote[name])
			}
		}
		if wrote[ref] {
			if got, _ := env.ResolveRef(ctx, "optics", "forge"); got != res.Output {
				t.Errorf("faults %v: ref %s, output %s", failing, got, res.Output)
			}
		}
		if wrote[note] {
			if lr, ok, _ := env.ReadLastRun(ctx, "optics", "forge"); !ok || lr.Output != res.Output {
				t.Errorf("faults %v: run note %+v", failing, lr)
			}
		}
		if wrote[last] {
			if rec, ok, _ := env.Cache.Last(ctx, "optics", "forge"); !ok || rec.Output != res.Output {
				t.Errorf("faults %v: latest record %+v", failing, rec)
			}
		}
	}
}

// The audit batch is encoded and written beside the output; a batch that
// cannot be encoded fails the stage once the output is stored: no record,
// no cache entry, no ref.
func TestUnencodableAuditFailsTheStage(t *testing.T) {
	ctx := context.Background()
	env, dir := newEnv(t)
	spec := stage.Spec{Stage: "forge", Version: "1", Subject: "optics"}
	res, err := env.Run(ctx, spec, func(context.Context) (stage.Output, error) {
		return stage.Output{Artifact: map[string]any{"out": 1}, Audit: []audit.Record{{Kind: audit.KindNote, Key: "bad \xff"}}}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "audit: encode") {
		t.Fatalf("an unencodable record: %v", err)
	}
	if recs := auditOf(t, env, "optics", "forge"); len(recs) != 0 {
		t.Fatalf("records written: %+v", recs)
	}
	if _, err := env.ResolveRef(ctx, "optics", "forge"); exitcode.Of(err) != exitcode.NotFound {
		t.Fatalf("ref moved: %v", err)
	}
	if _, ok, _ := env.Cache.Last(ctx, "optics", "forge"); ok {
		t.Fatal("the output was recorded in the cache")
	}
	body, _ := artifact.Encode(map[string]any{"out": 1})
	if _, err := os.Stat(objectPath(dir, store.DigestOf(body))); err != nil || res.Output != "" {
		t.Fatalf("the output was not stored beside the failed batch (%v), or reported as %q", err, res.Output)
	}
}
