package pipeline_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
	"formation/internal/testutil"
	"formation/mining"
	"formation/packs"
	"formation/pipeline"
	"formation/stage"
	"formation/store"
)

const tinyDoc = `# Light

Light is defined as radiant energy that travels in straight lines.
A lens is an optical device that bends light.
Refraction causes dispersion.
Dispersion produces spectrum.
A prism produces dispersion.
It is a misconception that light is sound.
`

// tinySubject lays out a subject folder whose one source is allow-listed as
// primary, so its candidates validate on their byte-checked spans.
func tinySubject(t *testing.T, doc string) (coursesDir string) {
	t.Helper()
	courses := t.TempDir()
	oneSourceSubject(t, courses, subjectLayout{id: "tiny", title: "Tiny optics", source: "light", label: "light notes"}, []byte(doc))
	return courses
}

// subjectLayout names a one-source subject: its id and title, the source's
// id (its file is sources/<source>.md), the allow-list label, and a
// per-file limit (0: the default).
type subjectLayout struct {
	id, title, source, label string
	maxFileBytes             int
}

// oneSourceSubject writes the subject folder l names under courses, with src
// as its one source, allow-listed as primary.
func oneSourceSubject(t testing.TB, courses string, l subjectLayout, src []byte) {
	t.Helper()
	dir := filepath.Join(courses, l.id)
	must(t, os.MkdirAll(filepath.Join(dir, "sources"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sources", l.source+".md"), src, 0o644))
	limits := ""
	if l.maxFileBytes > 0 {
		limits = fmt.Sprintf("limits:\n  max_file_bytes: %d\n", l.maxFileBytes)
	}
	must(t, os.WriteFile(filepath.Join(dir, "subject.yaml"), []byte(fmt.Sprintf(`subject_id: %s
title: %s
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: "2026-05-16T00:00:00Z"
issued_at: "2026-05-16T00:00:00Z"
%ssources:
  - id: %s
    adapter: file
    path: sources/%s.md
`, l.id, l.title, limits, l.source, l.source)), 0o644))
	sum := sha256.Sum256(src)
	must(t, os.WriteFile(filepath.Join(dir, "allowlist.yaml"), []byte(fmt.Sprintf("- source_sha: %q\n  tier: primary\n  label: %s\n", hex.EncodeToString(sum[:]), l.label)), 0o644))
}

func tinyPipeline(t *testing.T, coursesDir string) *pipeline.Pipeline {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	must(t, err)
	w := &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 5, 16, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
	root, err := testutil.ModuleRoot()
	must(t, err)
	return &pipeline.Pipeline{Env: stage.NewEnv(s, w), CoursesDir: coursesDir, Packs: packs.Options{Dir: filepath.Join(root, "packs")}}
}

func TestAutorunFromSourcesRatifies(t *testing.T) {
	ctx := context.Background()
	p := tinyPipeline(t, tinySubject(t, tinyDoc))
	results, err := p.Autorun(ctx, "tiny")
	if err != nil {
		t.Fatalf("autorun: %v (%d stages)", err, len(results))
	}
	if len(results) != 6 || results[5].Stage != "ratify" {
		t.Fatalf("stages %+v", results)
	}
	for _, r := range results {
		if r.Bytes != nil {
			t.Fatalf("autorun kept the %d output bytes of %s", len(r.Bytes), r.Stage)
		}
	}
	raw, err := p.Env.Store.Get(ctx, results[5].Output)
	must(t, err)
	rep, err := artifact.Decode[artifact.MasteryReport](raw)
	must(t, err)
	if !rep.Ratified {
		t.Fatalf("not ratified: %v", rep.FailureReasons)
	}
	// Every validated candidate cites a byte range of a stored text.
	vtsDigest, _ := p.Env.ResolveRef(ctx, "tiny", "forge")
	raw, _ = p.Env.Store.Get(ctx, vtsDigest)
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](raw)
	must(t, err)
	if len(vts.Relations) < 3 {
		t.Fatalf("too few relations validated: %+v", vts.Relations)
	}
	for _, r := range vts.Relations {
		for _, s := range r.Sources {
			text, err := p.Env.Store.Get(ctx, s.TextSHA)
			must(t, err)
			if !s.HasSpanRange() || string(text[*s.Start:*s.End]) != s.Span {
				t.Fatalf("span of %v is not its text's bytes", r.Triple())
			}
		}
	}
	// The second autorun does no stage work.
	again, err := p.Autorun(ctx, "tiny")
	must(t, err)
	for _, r := range again {
		if !r.CacheHit {
			t.Fatalf("%s ran again on unchanged inputs", r.Stage)
		}
	}
}

func TestMineRefusesEscapingSourceWithAudit(t *testing.T) {
	ctx := context.Background()
	courses := tinySubject(t, tinyDoc)
	subj := filepath.Join(courses, "tiny", "subject.yaml")
	raw, _ := os.ReadFile(subj)
	must(t, os.WriteFile(subj, []byte(strings.Replace(string(raw), "path: sources/light.md", "path: sources/link.md", 1)), 0o644))
	must(t, os.Symlink("/etc/hostname", filepath.Join(courses, "tiny", "sources", "link.md")))
	p := tinyPipeline(t, courses)
	_, err := p.Mine(ctx, "tiny")
	if exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("mine of a symlink: exit %d (%v)", exitcode.Of(err), err)
	}
	recs, _ := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "tiny", Stage: "mine"})
	if len(recs) == 0 || !strings.Contains(recs[0].Key, "link.md") {
		t.Fatalf("no audit record naming the refused source: %+v", recs)
	}
	if _, err := p.Env.ResolveRef(ctx, "tiny", "mine"); exitcode.Of(err) != exitcode.NotFound {
		t.Fatal("a refused mine moved the ref")
	}
}

// A candidate whose span no longer matches its text object's bytes is
// quarantined by the forge with an audit record naming the mismatch.
func TestSpanMismatchAudited(t *testing.T) {
	ctx := context.Background()
	p := tinyPipeline(t, tinySubject(t, tinyDoc))
	for _, st := range []func(context.Context, string) (stage.Result, error){p.Mine, p.Smelt} {
		if _, err := st(ctx, "tiny"); err != nil {
			t.Fatal(err)
		}
	}
	d, err := p.Env.ResolveRef(ctx, "tiny", "smelt")
	must(t, err)
	raw, err := p.Env.Store.Get(ctx, d)
	must(t, err)
	b, err := artifact.Decode[artifact.SmeltedBundle](raw)
	must(t, err)
	victim := b.Relations[0].Triple()
	b.Relations[0].Sources[0].Span = "Refraction causes nothing at all."
	enc, err := artifact.Encode(b)
	must(t, err)
	nd, err := p.Env.Store.Put(ctx, enc)
	must(t, err)
	must(t, p.Env.MoveRef(ctx, stage.Ref("tiny", "smelt"), nd))
	if _, err := p.Forge(ctx, "tiny"); err != nil {
		t.Fatal(err)
	}
	recs, _ := audit.List(ctx, p.Env.Store, audit.Filter{Subject: "tiny", Stage: "forge"})
	found := false
	for _, r := range recs {
		if r.ReasonCode == "span_mismatch" && strings.Contains(r.Key, victim.Head) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no span_mismatch audit record for %v: %+v", victim, recs)
	}
}

// An llm source is refused unless enabled; enabled with a generator command,
// its entry is adapter llm_ideation/<model> and forge never lets it
// corroborate, whatever tier the allow-list gives it: its lone claims are
// quarantined as insufficiently corroborated.
func TestLLMSourceGatedAndNeverCorroborates(t *testing.T) {
	ctx := context.Background()
	courses := tinySubject(t, tinyDoc)
	dir := filepath.Join(courses, "tiny")
	must(t, os.MkdirAll(filepath.Join(dir, "prompts"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "prompts", "idea.txt"), []byte("Moonlight causes tides.\n"), 0o644))
	raw, _ := os.ReadFile(filepath.Join(dir, "subject.yaml"))
	must(t, os.WriteFile(filepath.Join(dir, "subject.yaml"), append(raw, []byte("  - id: idea\n    adapter: llm\n    model: echo-model\n    prompt: prompts/idea.txt\n")...), 0o644))
	// The generated text is even allow-listed as primary: the adapter decides.
	gen := sha256.Sum256([]byte("Moonlight causes tides.\n"))
	allow, _ := os.ReadFile(filepath.Join(dir, "allowlist.yaml"))
	allow = append(allow, []byte(fmt.Sprintf("- source_sha: %q\n  tier: primary\n  label: generated\n", hex.EncodeToString(gen[:])))...)
	must(t, os.WriteFile(filepath.Join(dir, "allowlist.yaml"), allow, 0o644))
	p := tinyPipeline(t, courses)
	if _, err := p.Mine(ctx, "tiny"); exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("llm source while disabled: %v", err)
	}
	p.EnableLLM = true
	p.LLM = mining.CommandLLM{Argv: []string{"cat"}} // the "model" echoes its prompt
	for _, st := range []func(context.Context, string) (stage.Result, error){p.Mine, p.Smelt, p.Forge} {
		if _, err := st(ctx, "tiny"); err != nil {
			t.Fatal(err)
		}
	}
	d, _ := p.Env.ResolveRef(ctx, "tiny", "forge")
	raw, _ = p.Env.Store.Get(ctx, d)
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](raw)
	must(t, err)
	for _, r := range vts.Relations {
		if r.Head == "moonlight" {
			t.Fatalf("an llm-only claim validated: %+v", r)
		}
	}
	found := false
	for _, q := range vts.Quarantined {
		if q.Head == "moonlight" && strings.HasPrefix(q.RejectionReason, "insufficient_corroboration") {
			found = artifact.IsLLMAdapter(q.Sources[0].Adapter)
		}
	}
	if !found {
		t.Fatalf("the llm claim is not quarantined for corroboration: %+v", vts.Quarantined)
	}
}
