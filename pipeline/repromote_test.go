package pipeline_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/reviewed"
	"formation/signing"
	"formation/store"
)

// lab is a courses folder, a file store and a trusted curator key, driven
// through the command line as a curator would.
type lab struct {
	t                      *testing.T
	courses, storeURL, key string
	packsDir               string
	issued                 map[string]int
	storeHandle            store.Store
}

func newLab(t *testing.T) *lab {
	t.Helper()
	root, err := testutil.ModuleRoot()
	must(t, err)
	dir := t.TempDir()
	l := &lab{t: t, courses: filepath.Join(dir, "courses"), storeURL: "file://" + filepath.Join(dir, "store"),
		key: filepath.Join(dir, "curator.key"), packsDir: filepath.Join(root, "packs"), issued: map[string]int{}}
	must(t, os.MkdirAll(l.courses, 0o755))
	if code, _, errs := l.run("keygen", "--out", l.key); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	l.storeHandle, err = store.Open(context.Background(), l.storeURL)
	must(t, err)
	return l
}

// lightDomain declares the domain "light" of the subject light.
func (l *lab) lightDomain() {
	l.t.Helper()
	must(l.t, os.WriteFile(filepath.Join(l.courses, "domains.yaml"), []byte(`schema_version: "1.0.0"
domains:
  - id: light
    title: Light
    subjects: [light]
    operator_families:
      - family: causal
        relations: [causes, produces]
    eval_lanes:
      - lane: domain_qa
        version: v1
        splits: [dev, public, holdout]
`), 0o644))
}

func (l *lab) run(args ...string) (int, string, string) {
	l.t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC) }}
	full := append([]string{"formation", "--store", l.storeURL, "--packs-dir", l.packsDir, "--courses-dir", l.courses,
		"--trusted-keys", l.key + ".pub"}, args...)
	return cli.Main(cli.NewApp(io), full), out.String(), errb.String()
}

// subject writes (or rewrites) a one-source subject; each rewrite issues a
// later report, as an edited subject would.
func (l *lab) subject(id, doc string) {
	l.t.Helper()
	l.issued[id]++
	dir := filepath.Join(l.courses, id)
	must(l.t, os.MkdirAll(filepath.Join(dir, "sources"), 0o755))
	must(l.t, os.WriteFile(filepath.Join(dir, "sources", "notes.md"), []byte(doc), 0o644))
	sum := sha256.Sum256([]byte(doc))
	must(l.t, os.WriteFile(filepath.Join(dir, "subject.yaml"), []byte(fmt.Sprintf(`subject_id: %s
title: Notes on %s
target_depth: introductory
requires_courses: []
anti_requisites: []
identity_axis_constraints: []
template: definition
retrieved_at: "2026-05-16T00:00:00Z"
issued_at: "2026-05-%02dT00:00:00Z"
sources:
  - id: notes
    adapter: file
    path: sources/notes.md
`, id, id, 15+l.issued[id])), 0o644))
	must(l.t, os.WriteFile(filepath.Join(dir, "allowlist.yaml"), []byte(fmt.Sprintf("- source_sha: %q\n  tier: primary\n  label: notes\n", hex.EncodeToString(sum[:]))), 0o644))
}

type stageRun struct {
	Stage    string `json:"stage"`
	CacheHit bool   `json:"cache_hit"`
	Output   string `json:"output"`
	Explain  struct {
		Changed []string `json:"changed"`
	} `json:"explain"`
}

// autorun runs mine → ratify and returns each stage's result.
func (l *lab) autorun(id string) []stageRun {
	l.t.Helper()
	code, out, errs := l.run("--json", "autorun", id)
	if code != 0 {
		l.t.Fatalf("autorun %s: exit %d\n%s", id, code, errs)
	}
	var doc struct {
		Stages []stageRun `json:"stages"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Stages) != 6 {
		l.t.Fatalf("autorun %s output: %v %s", id, err, out)
	}
	return doc.Stages
}

// misses names the stages that ran.
func misses(runs []stageRun) []string {
	var out []string
	for _, r := range runs {
		if !r.CacheHit {
			out = append(out, r.Stage)
		}
	}
	return out
}

// promote promotes the subject's latest report with extra flags.
func (l *lab) promote(id string, flags ...string) (int, string, string) {
	l.t.Helper()
	runs := l.autorun(id)
	args := append(append([]string{"promote", "--key", l.key}, flags...), runs[5].Output)
	return l.run(args...)
}

func (l *lab) state() reviewed.Snapshot {
	l.t.Helper()
	snap, err := reviewed.Load(context.Background(), l.storeHandle)
	must(l.t, err)
	return snap
}

const (
	lightNotes = `# Light
Light is defined as radiant energy that travels in straight lines.
A lens is an optical device that bends light.
Refraction causes dispersion.
Dispersion produces spectrum.
A prism produces dispersion.
`
	soundNotes = `# Sound
Sound is defined as a pressure wave that travels through a medium.
An echo is a reflection of sound.
Vibration causes sound.
A drum produces vibration.
`
)

// An unchanged subject reruns as six cache hits after its own promotion,
// and promoting it again changes nothing.
func TestUnchangedSubjectRerunsAsCacheHitsAfterPromotion(t *testing.T) {
	l := newLab(t)
	l.subject("light", lightNotes)
	if code, out, errs := l.promote("light"); code != 0 {
		t.Fatalf("promote: %d %s %s", code, out, errs)
	}
	if ran := misses(l.autorun("light")); len(ran) != 0 {
		t.Fatalf("after its promotion an unchanged subject reran %v", ran)
	}
	head := l.state().Head
	if code, out, _ := l.promote("light"); code != 0 || !strings.HasPrefix(out, "already promoted") || l.state().Head != head {
		t.Fatalf("promoting the same report again: %d %s", code, out)
	}
}

// An edited subject's course still covers the whole subject (its own
// promoted facts are never dropped as already known), and superseding its
// promotion removes a fact only with --allow-removal, audited.
func TestEditedSubjectLosesNoFactSilently(t *testing.T) {
	l := newLab(t)
	l.subject("light", lightNotes)
	if code, _, errs := l.promote("light"); code != 0 {
		t.Fatalf("promote: %s", errs)
	}
	first := l.state()
	edited := strings.Replace(lightNotes, "A prism produces dispersion.\n", "A laser produces light.\n", 1)
	l.subject("light", edited)
	runs := l.autorun("light")
	vts := decodeVTS(t, l.storeHandle, runs[2].Output)
	if n := len(vts.Relations); n != len(first.Knowledge.Triples) {
		t.Fatalf("the edited course holds %d relations, the subject has %d: its own promoted facts were dropped", n, len(first.Knowledge.Triples))
	}
	code, out, errs := l.promote("light", "--supersede")
	if code != 65 || !strings.Contains(errs, "removal_not_allowed") || !strings.Contains(errs, "prism, produces, dispersion") {
		t.Fatalf("a removal without --allow-removal: %d %s %s", code, out, errs)
	}
	if l.state().Head != first.Head {
		t.Fatal("a refused supersede moved the reviewed state")
	}
	code, out, errs = l.promote("light", "--supersede", "--allow-removal")
	if code != 0 || !strings.Contains(out, "+ triple (laser, produces, light)") || !strings.Contains(out, "- triple (prism, produces, dispersion)") ||
		!strings.Contains(out, "1 added, 1 removed") {
		t.Fatalf("supersede with --allow-removal: %d %s %s", code, out, errs)
	}
	recs, err := audit.List(context.Background(), l.storeHandle, audit.Filter{Subject: "light", Stage: "promote"})
	must(t, err)
	removed := slices.IndexFunc(recs, func(r audit.Record) bool {
		return r.ReasonCode == "fact_removed" && r.Key == "triple (prism, produces, dispersion)"
	})
	if removed < 0 {
		t.Fatalf("no audit record for the removed fact: %+v", recs)
	}
	after := l.state().Knowledge
	if len(after.Triples) != len(first.Knowledge.Triples) {
		t.Fatalf("%d triples after the supersede, %d before: only the one edited fact may change", len(after.Triples), len(first.Knowledge.Triples))
	}
	if code, out, _ := l.run("ask", "What does refraction cause?"); code != 0 || !strings.Contains(out, "dispersion") || !strings.Contains(out, "cites") {
		t.Fatalf("an unchanged fact is no longer answered: %s", out)
	}
}

// Promoting a subject that shares no fact with another leaves the other's
// forge, compose and run cached (ratify reruns: its G2 set changed); one
// that shares a fact the other's forge compares invalidates that forge.
func TestPromotingAnotherSubjectInvalidatesOnlyWhatDependsOnIt(t *testing.T) {
	l := newLab(t)
	l.subject("light", lightNotes)
	l.subject("sound", soundNotes)
	l.autorun("light")
	if code, _, errs := l.promote("sound"); code != 0 {
		t.Fatalf("promote sound: %s", errs)
	}
	runs := l.autorun("light")
	if ran := misses(runs); !slices.Equal(ran, []string{"ratify"}) {
		t.Fatalf("after promoting an unrelated subject, light reran %v; want only ratify (G2)", ran)
	}
	// A third subject that holds one of light's facts.
	l.subject("prisms", "# Prisms\nA prism produces dispersion.\nGlass is defined as a hard transparent solid.\n")
	if code, _, errs := l.promote("prisms"); code != 0 {
		t.Fatalf("promote prisms: %s", errs)
	}
	runs = l.autorun("light")
	if ran := misses(runs); !slices.Contains(ran, "forge") {
		t.Fatalf("a promoted fact light's forge compares did not invalidate it: reran %v", ran)
	}
	vts := decodeVTS(t, l.storeHandle, runs[2].Output)
	if slices.ContainsFunc(vts.Relations, func(r relation) bool { return r.Head == "prism" && r.Tail == "dispersion" }) {
		t.Fatal("light kept a fact another subject's promotion already holds")
	}
}

type relation = artifact.RelationCandidate

func decodeVTS(t *testing.T, s store.Store, digest string) artifact.ValidatedTripleSet {
	t.Helper()
	raw, err := s.Get(context.Background(), digest)
	must(t, err)
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](raw)
	must(t, err)
	return vts
}

// Key rotation: with the curator's key removed from the trusted keys, its
// promotions fail verification (the ledger demotes the domain and exits 77);
// promoting the same report again with the new key signs it anew and
// restores them.
func TestKeyRotation(t *testing.T) {
	l := newLab(t)
	l.subject("light", lightNotes)
	l.lightDomain()
	if code, _, errs := l.promote("light"); code != 0 {
		t.Fatalf("promote: %s", errs)
	}
	ledgerRows := func() (int, ledgerReport, string) {
		t.Helper()
		code, out, errs := l.run("--json", "ledger", "--registry", filepath.Join(l.courses, "none.yaml"))
		var rep ledgerReport
		must(t, json.Unmarshal([]byte(out), &rep))
		return code, rep, errs
	}
	if _, rep, _ := ledgerRows(); len(rep.Integrity) != 0 || !rep.Domains[0].PromotedCourses[0].Verified {
		t.Fatalf("before the rotation: %+v", rep)
	}
	oldKey := l.key
	l.key = filepath.Join(filepath.Dir(oldKey), "curator2.key")
	if code, _, errs := l.run("keygen", "--out", l.key); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	code, rep, errs := ledgerRows()
	if code != 77 || len(rep.Integrity) != 1 || rep.Domains[0].PromotedCourses[0].Verified || !strings.Contains(errs, "integrity failure") {
		t.Fatalf("after removing the old key: exit %d %+v %s", code, rep, errs)
	}
	code, out, errs := l.promote("light")
	if code != 0 || !strings.HasPrefix(out, "signed again") {
		t.Fatalf("promoting again with the new key: %d %s %s", code, out, errs)
	}
	if _, rep, _ := ledgerRows(); len(rep.Integrity) != 0 || !rep.Domains[0].PromotedCourses[0].Verified {
		t.Fatalf("after signing again: %+v", rep)
	}
	if code, out, _ := l.promote("light"); code != 0 || !strings.HasPrefix(out, "already promoted") {
		t.Fatalf("a third promote: %d %s", code, out)
	}
}

type ledgerReport struct {
	Integrity []struct {
		Object string `json:"object"`
	} `json:"integrity_failures"`
	Domains []struct {
		PromotedCourses []struct {
			Verified bool `json:"verified"`
		} `json:"promoted_courses"`
	} `json:"domains"`
}

// corrupt flips one byte of a stored object of the lab's file store and
// returns a function that restores it.
func (l *lab) corrupt(digest string) (restore func()) {
	l.t.Helper()
	path := filepath.Join(strings.TrimPrefix(l.storeURL, "file://"), "objects", "sha256", digest[:2], digest)
	raw, err := os.ReadFile(path)
	must(l.t, err)
	bad := slices.Clone(raw)
	bad[len(bad)/2] ^= 0x01
	must(l.t, os.Chmod(path, 0o644))
	must(l.t, os.WriteFile(path, bad, 0o644))
	return func() { must(l.t, os.WriteFile(path, raw, 0o644)) }
}

func (l *lab) auditCount() int {
	l.t.Helper()
	recs, err := audit.List(context.Background(), l.storeHandle, audit.Filter{})
	must(l.t, err)
	return len(recs)
}

// Every command that stops on a damaged reviewed state exits 65 (an object
// of the state) or 77 (an envelope or report that no longer verifies) and
// writes exactly one audit record for it.
func TestDamagedReviewedStateIsAuditedOnce(t *testing.T) {
	l := newLab(t)
	l.subject("light", lightNotes)
	l.subject("sound", soundNotes)
	l.lightDomain()
	if code, _, errs := l.promote("light"); code != 0 {
		t.Fatalf("promote: %s", errs)
	}
	soundReport := l.autorun("sound")[5].Output
	snap := l.state()
	registry := filepath.Join(l.courses, "none.yaml")
	commands := map[string][]string{
		"ask":     {"ask", "What does refraction cause?"},
		"ledger":  {"ledger", "--registry", registry},
		"eval":    {"eval", "--domain", "light", "--split", "public", "domain_qa"},
		"check":   {"check"},
		"promote": {"promote", "--key", l.key, soundReport},
		"ratify":  {"ratify", "--issued-at", "2026-06-01T00:00:00Z", "sound"},
	}
	for _, part := range []struct{ name, digest string }{
		{"state", snap.Head.String()}, {"knowledge", snap.State.Knowledge.String()}, {"index", snap.State.Index.String()},
	} {
		restore := l.corrupt(part.digest)
		for name, args := range commands {
			before := l.auditCount()
			code, _, errs := l.run(args...)
			if code != 65 {
				t.Errorf("%s with a corrupt %s object: exit %d, want 65\n%s", name, part.name, code, errs)
			}
			if n := l.auditCount() - before; n != 1 {
				t.Errorf("%s with a corrupt %s object wrote %d audit records, want 1", name, part.name, n)
			}
		}
		restore()
	}
	envDigest, _ := snap.Envelope(snap.Index.Entries[0].CourseID)
	env := envDigest.String()
	for _, part := range []struct{ name, digest string }{{"envelope", env}, {"report", reportObjectOf(t, l, env)}} {
		restore := l.corrupt(part.digest)
		before := l.auditCount()
		code, out, errs := l.run("ledger", "--registry", registry)
		if code != 77 || !strings.Contains(out, "INTEGRITY FAILURE") || l.auditCount()-before != 1 {
			t.Errorf("ledger with a corrupt %s: exit %d, %d audit records\n%s%s", part.name, code, l.auditCount()-before, out, errs)
		}
		restore()
	}
}

// reportObjectOf reads the report object a promotion envelope names.
func reportObjectOf(t *testing.T, l *lab, env string) string {
	t.Helper()
	raw, err := l.storeHandle.Get(context.Background(), env)
	must(t, err)
	e, err := signing.DecodeEnvelope(raw)
	must(t, err)
	payload, err := base64.StdEncoding.DecodeString(e.Payload)
	must(t, err)
	var st reviewed.Statement
	must(t, json.Unmarshal(payload, &st))
	return st.Predicate.ReportObject
}

// The head pinned after a promotion detects the next one (or a rollback) on
// check and ledger, by flag, file or environment; a flipped byte in any
// input is found by check --read-data, with one audit record.
func TestPinnedHeadAndCheckReadData(t *testing.T) {
	l := newLab(t)
	l.subject("light", lightNotes)
	l.subject("sound", soundNotes)
	l.lightDomain()
	if code, _, errs := l.promote("light"); code != 0 {
		t.Fatalf("promote: %s", errs)
	}
	pinned := l.state().Head.String()
	pinFile := filepath.Join(t.TempDir(), "head")
	must(t, os.WriteFile(pinFile, []byte(pinned+"\n"), 0o644))
	if code, out, errs := l.run("check", "--expect-head-file", pinFile); code != 0 {
		t.Fatalf("check at the pinned head: %d %s %s", code, out, errs)
	}
	if code, _, errs := l.promote("sound"); code != 0 {
		t.Fatalf("promote sound: %s", errs)
	}
	before := l.auditCount()
	code, _, errs := l.run("check", "--expect-head", pinned)
	if code != 77 || !strings.Contains(errs, "state_head_mismatch") || l.auditCount()-before != 1 {
		t.Fatalf("check after the head moved: %d %s", code, errs)
	}
	t.Setenv("FORMATION_EXPECT_HEAD", pinned)
	if code, _, errs := l.run("ledger", "--registry", filepath.Join(l.courses, "none.yaml")); code != 77 || !strings.Contains(errs, "state_head_mismatch") {
		t.Fatalf("ledger under FORMATION_EXPECT_HEAD: %d %s", code, errs)
	}
	t.Setenv("FORMATION_EXPECT_HEAD", "")

	bundle := l.autorun("light")[0].Output
	restore := l.corrupt(bundle)
	defer restore()
	if code, out, _ := l.run("check"); code != 0 || strings.Contains(out, "FINDING") {
		t.Fatalf("check without --read-data does not read objects no ref names whole: %d %s", code, out)
	}
	before = l.auditCount()
	code, out, _ := l.run("check", "--read-data")
	if code != 65 || !strings.Contains(out, "FINDING corrupt_object "+bundle) || l.auditCount()-before != 1 {
		t.Fatalf("check --read-data with a flipped byte in the OreBundle: %d %s", code, out)
	}
}
