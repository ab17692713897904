package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/audit"
	"formation/internal/cli"
	"formation/internal/exitcode"
	"formation/internal/testutil"
	"formation/reviewed"
	"formation/stage"
	"formation/store"
)

// runCLI runs `formation` in process against the fixture's store.
func runCLI(t *testing.T, f fixture, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC) }}
	full := append([]string{"formation", "--store", "file://" + f.storeDir, "--packs-dir", f.p.Packs.Dir, "--courses-dir", f.p.CoursesDir}, args...)
	code := cli.Main(cli.NewApp(io), full)
	return code, out.String(), errb.String()
}

func ratified(t *testing.T, f fixture) string {
	t.Helper()
	ctx := context.Background()
	for _, step := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run, f.p.Ratify} {
		if res, err := step(ctx, microSubject); err != nil {
			t.Fatalf("%s: %v", res.Stage, err)
		}
	}
	d, err := f.p.Env.ResolveRef(ctx, microSubject, "ratify")
	must(t, err)
	return d
}

// The micro-course ratifies, a curator promotes it with a fresh key, and
// `formation ask` then answers from the promoted knowledge with citations.
func TestMicroCoursePromotedThenAsked(t *testing.T) {
	f := newFixture(t, microCourse())
	f.p.Packs.Dir = shippedPacksDir(t) // the shipped, pipeline-ratified packs: production mode
	report := ratified(t, f)
	key := filepath.Join(t.TempDir(), "curator.key")
	if code, _, errs := runCLI(t, f, "keygen", "--out", key); code != 0 {
		t.Fatalf("keygen: %d %s", code, errs)
	}
	code, out, errs := runCLI(t, f, "--json", "--trusted-keys", key+".pub", "promote", "--key", key, report)
	if code != 0 || !strings.Contains(out, `"promoted_triples":10`) {
		t.Fatalf("promote: %d %s %s", code, out, errs)
	}
	code, out, _ = runCLI(t, f, "--json", "ask", "What is wisdom?")
	if code != 0 || !strings.Contains(out, `"surface":"Wisdom is definition of wisdom`) || !strings.Contains(out, `"citations":[{`) || !strings.Contains(out, sha1x) {
		t.Fatalf("ask did not answer from the promoted course with a citation: %d %s", code, out)
	}
	code, out, _ = runCLI(t, f, "--json", "ask", "What does number produce?")
	if code != 0 || !strings.Contains(out, "quantity") {
		t.Fatalf("walk over promoted knowledge: %d %s", code, out)
	}
	// A second promotion of the same report is a no-op.
	code, out, _ = runCLI(t, f, "--json", "--trusted-keys", key+".pub", "promote", "--key", key, report)
	if code != 0 || !strings.Contains(out, `"idempotent":true`) {
		t.Fatalf("second promote: %d %s", code, out)
	}
}

func shippedPacksDir(t *testing.T) string {
	t.Helper()
	root, err := testutil.ModuleRoot()
	must(t, err)
	return filepath.Join(root, "packs")
}

// Flipping one byte of the object a stage reads makes that stage halt with
// exit 65 and an audit record naming the corruption.
func TestCorruptInputHaltsEveryStage(t *testing.T) {
	ctx := context.Background()
	order := []string{"smelt", "forge", "compose", "run", "ratify"}
	for i, name := range order[1:] {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, microCourse())
			for _, st := range order[1 : i+1] {
				if _, err := stageFunc(f, st)(ctx, microSubject); err != nil {
					t.Fatalf("%s: %v", st, err)
				}
			}
			input, err := f.p.Env.ResolveRef(ctx, microSubject, order[i])
			must(t, err)
			flipByte(t, f, input)
			_, err = stageFunc(f, name)(ctx, microSubject)
			if exitcode.Of(err) != exitcode.Rejected {
				t.Fatalf("%s on a corrupt input: exit %d (%v)", name, exitcode.Of(err), err)
			}
			recs, _ := audit.List(ctx, f.p.Env.Store, audit.Filter{Subject: microSubject, Stage: name})
			if len(recs) == 0 || recs[len(recs)-1].ReasonCode != "corrupt_object" {
				t.Fatalf("no corruption audit record: %+v", recs)
			}
		})
	}
	t.Run("promote", func(t *testing.T) {
		f := newFixture(t, microCourse())
		report := ratified(t, f)
		flipByte(t, f, report)
		key := filepath.Join(t.TempDir(), "k")
		runCLI(t, f, "keygen", "--out", key)
		if code, _, _ := runCLI(t, f, "--trusted-keys", key+".pub", "promote", "--key", key, report); code != 65 {
			t.Fatalf("promote of a corrupt report: exit %d", code)
		}
		recs, _ := audit.List(ctx, f.p.Env.Store, audit.Filter{})
		if len(recs) == 0 || !strings.Contains(recs[len(recs)-1].ReasonCode, "corrupt") {
			t.Fatalf("no corruption audit record: %+v", recs)
		}
	})
}

func stageFunc(f fixture, name string) func(context.Context, string) (stage.Result, error) {
	return map[string]func(context.Context, string) (stage.Result, error){
		"forge": f.p.Forge, "compose": f.p.Compose, "run": f.p.Run, "ratify": f.p.Ratify}[name]
}

func flipByte(t *testing.T, f fixture, digest string) {
	t.Helper()
	path := filepath.Join(f.storeDir, "objects", "sha256", digest[:2], digest)
	raw, err := os.ReadFile(path)
	must(t, err)
	raw[len(raw)/2] ^= 0x01
	must(t, os.Chmod(path, 0o644))
	must(t, os.WriteFile(path, raw, 0o644))
}

// A report changed and stored again as a new object (intact object, broken
// seal) is refused by promote with exit 77, and nothing changes.
func TestTamperedReportRefused(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, microCourse())
	report := ratified(t, f)
	raw, err := f.p.Env.Store.Get(ctx, report)
	must(t, err)
	tampered := bytes.Replace(raw, []byte(`"course_id":"course.micro`), []byte(`"course_id":"course.Micro`), 1)
	if bytes.Equal(tampered, raw) {
		t.Fatal("tampering did not change the report")
	}
	d, err := f.p.Env.Store.Put(ctx, tampered)
	must(t, err)
	key := filepath.Join(t.TempDir(), "k")
	runCLI(t, f, "keygen", "--out", key)
	before := nonAuditRefs(t, f.p.Env.Store)
	if code, _, _ := runCLI(t, f, "--trusted-keys", key+".pub", "promote", "--key", key, d); code != 77 {
		t.Fatalf("promote of a tampered report: exit %d", code)
	}
	after := nonAuditRefs(t, f.p.Env.Store)
	if strings.Join(before, ",") != strings.Join(after, ",") {
		t.Fatalf("refs changed: %v -> %v", before, after)
	}
	if snap, err := reviewed.Load(ctx, f.p.Env.Store); err != nil || !snap.Empty() {
		t.Fatalf("a refused promotion wrote a reviewed state: %+v %v", snap.State, err)
	}
}

// `formation --json run` streams one NDJSON line per step of each pass,
// then the stage result.
func TestRunStreamsNDJSON(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, microCourse())
	for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose} {
		if _, err := st(ctx, microSubject); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCLI(t, f, "--json", "run", microSubject)
	if code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 20 || !strings.HasPrefix(lines[0], `{"accepted":`) || !strings.Contains(lines[len(lines)-1], `"stage":"run"`) {
		t.Fatalf("not NDJSON steps then the result: %d lines, first %q last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

// --explain says hit or miss and, on a miss, which ingredient changed;
// status shows each stage's latest execution and the verdict.
func TestExplainAndStatus(t *testing.T) {
	f := newFixture(t, microCourse())
	if code, _, errs := runCLI(t, f, "forge", microSubject); code != 0 {
		t.Fatalf("forge: %s", errs)
	}
	code, _, errs := runCLI(t, f, "forge", "--explain", microSubject)
	if code != 0 || !strings.Contains(errs, "cache hit, no work") || !strings.Contains(errs, "explain: cache hit") {
		t.Fatalf("rerun: %d %s", code, errs)
	}
	allow := filepath.Join(f.p.CoursesDir, microSubject, "allowlist.yaml")
	raw, _ := os.ReadFile(allow)
	must(t, os.WriteFile(allow, bytes.Replace(raw, []byte("hand-written micro course"), []byte("hand-written micro course, relabelled"), 1), 0o644))
	code, out, _ := runCLI(t, f, "--json", "forge", "--explain", microSubject)
	if code != 0 || !strings.Contains(out, `"cache_hit":false`) || !strings.Contains(out, `"changed":["inputs"]`) ||
		!strings.Contains(out, `"because":["input allowlist.yaml changed"]`) {
		t.Fatalf("miss after an allow-list edit: %d %s", code, out)
	}
	code, out, _ = runCLI(t, f, "--json", "status", microSubject)
	if code != 0 || !strings.Contains(out, `"stage":"forge"`) || !strings.Contains(out, `"ran":true`) || !strings.Contains(out, `"report":""`) {
		t.Fatalf("status: %d %s", code, out)
	}
}

// nonAuditRefs lists every ref but the audit log's.
func nonAuditRefs(t *testing.T, s store.Store) []string {
	t.Helper()
	names, err := s.ListRefs(context.Background(), "")
	must(t, err)
	return slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, "audit/") })
}
