package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/internal/testutil"
	"formation/ledger"
	"formation/reviewed"
	"formation/store"
)

// legacyStore copies the store written by commit 3e253e3 (separate refs for
// knowledge, index and envelopes) and its subject folder to a temporary
// folder, and returns the global flags that use them.
func legacyStore(t *testing.T) (dir string, global []string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "legacy-store"))); err != nil {
		t.Fatal(err)
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir, []string{"--store", "file://" + filepath.Join(dir, "store"), "--courses-dir", filepath.Join(dir, "courses"),
		"--packs-dir", filepath.Join(root, "packs"), "--trusted-keys", filepath.Join(dir, "curator.pub")}
}

func refNames(t *testing.T, storeDir string) []string {
	t.Helper()
	s, err := store.Open(context.Background(), "file://"+storeDir)
	if err != nil {
		t.Fatal(err)
	}
	names, err := s.ListRefs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, "audit/") })
}

// A store written before the reviewed state object reads as it is (ask
// answers from it, the ledger verifies its promotion), `check` migrates it
// to state 0 once, and a later promotion chains to that state; nothing
// writes the old refs.
func TestLegacyStoreReadsAndMigrates(t *testing.T) {
	dir, global := legacyStore(t)
	storeDir := filepath.Join(dir, "store")
	runG := func(args ...string) (int, string, string) {
		t.Helper()
		return runLedgerCLI(t, append(append([]string{}, global...), args...)...)
	}
	before := refNames(t, storeDir)
	old := reviewed.LegacyRefs("course.tiny.definition.1.0.0")
	if !slices.Contains(before, old[0]) || slices.Contains(before, reviewed.StateRef) {
		t.Fatalf("fixture is not a pre-state store: %v", before)
	}
	code, out, errs := runG("ask", "What does refraction cause?")
	if code != 0 || !strings.Contains(out, "dispersion") || !strings.Contains(out, "cites") {
		t.Fatalf("ask on the legacy store: %d %q %s", code, out, errs)
	}
	code, out, errs = runG("--json", "ledger", "--registry", filepath.Join(dir, "none.yaml"))
	var rep ledger.Report
	if code != 77 || json.Unmarshal([]byte(out), &rep) != nil { // 77: no reviewer registry, as always without one
		t.Fatalf("ledger: %d %s %s", code, out, errs)
	}
	if len(rep.Integrity) != 0 || len(rep.Domains) != 1 || len(rep.Domains[0].PromotedCourses) != 1 || !rep.Domains[0].PromotedCourses[0].Verified {
		t.Fatalf("the legacy promotion does not verify: %+v", rep)
	}
	legacyHead := rep.StateHead.String()
	if slices.Compare(refNames(t, storeDir), before) != 0 {
		t.Fatal("reading a legacy store wrote refs")
	}

	code, out, errs = runG("check", "--read-data")
	if code != 0 || !strings.Contains(out, "migrated") || !strings.Contains(out, legacyHead+" (seq 0)") {
		t.Fatalf("check: %d %s %s", code, out, errs)
	}
	if code, out, _ = runG("check", "--expect-head", legacyHead); code != 0 || strings.Contains(out, "migrated") {
		t.Fatalf("second check: %d %s", code, out)
	}

	// A second subject promoted on top: state 1 chained to state 0.
	second := filepath.Join(dir, "courses", "tiny2")
	if err := os.CopyFS(second, os.DirFS(filepath.Join(dir, "courses", "tiny"))); err != nil {
		t.Fatal(err)
	}
	yaml, _ := os.ReadFile(filepath.Join(second, "subject.yaml"))
	writeFile(t, filepath.Join(second, "subject.yaml"), strings.Replace(string(yaml), "subject_id: tiny", "subject_id: tiny2", 1))
	key := filepath.Join(dir, "curator2.key")
	if code, _, errs := runG("keygen", "--out", key); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	mergeTrustedKeys(t, filepath.Join(dir, "curator.pub"), key+".pub")
	if code, _, errs := runG("autorun", "tiny2"); code != 0 {
		t.Fatalf("autorun tiny2: %s", errs)
	}
	code, out, errs = runG("--json", "status", "tiny2")
	reportObj := jsonField(t, out, "report")
	if code, out, errs = runG("--json", "promote", "--key", key, reportObj); code != 0 {
		t.Fatalf("promote on the migrated store: %d %s %s", code, out, errs)
	}
	snap, err := reviewed.Load(context.Background(), mustOpen(t, storeDir))
	if err != nil || snap.State.Seq != 1 || snap.State.Previous.String() != legacyHead || len(snap.State.Promotions) != 2 || len(snap.Index.Entries) != 2 {
		t.Fatalf("state after a promotion: %+v %v", snap.State, err)
	}
	after := refNames(t, storeDir)
	for _, name := range old {
		if !slices.Contains(after, name) {
			t.Errorf("old ref %s vanished", name)
		}
	}
	if slices.Contains(after, reviewed.LegacyRefs("course.tiny2.definition.1.0.0")[2]) {
		t.Error("the new promotion wrote an old-style promotions ref")
	}
	if code, out, _ := runG("check", "--read-data", "--expect-head", snap.Head.String()); code != 0 {
		t.Fatalf("check after the promotion: %d %s", code, out)
	}
}

func mustOpen(t *testing.T, dir string) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mergeTrustedKeys appends the keys of a .pub file to a trusted-keys file.
func mergeTrustedKeys(t *testing.T, into, from string) {
	t.Helper()
	var a, b struct {
		SchemaVersion string            `json:"schema_version"`
		Keys          []json.RawMessage `json:"keys"`
	}
	for p, v := range map[string]any{into: &a, from: &b} {
		raw, err := os.ReadFile(p)
		if err != nil || json.Unmarshal(raw, v) != nil {
			t.Fatalf("read %s: %v", p, err)
		}
	}
	a.Keys = append(a.Keys, b.Keys...)
	out, _ := json.Marshal(a)
	writeFile(t, into, string(out))
}

// jsonField extracts one string field of a JSON document.
func jsonField(t *testing.T, doc, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("not JSON: %s", doc)
	}
	v, _ := m[field].(string)
	if v == "" {
		t.Fatalf("no %s in %s", field, doc)
	}
	return v
}

// The run record of a store written by 3e253e3 reads with today's code:
// show names it and its events object, which holds one event for every
// recorded step of both passes, and ratify, asked for another report time
// (so a cache miss), reads that record and the plan the old run stage
// stored, and ratifies the course again.
func TestLegacyRunRecordReads(t *testing.T) {
	ctx := context.Background()
	dir, global := legacyStore(t)
	runG := func(args ...string) (int, string, string) {
		t.Helper()
		return runLedgerCLI(t, append(append([]string{}, global...), args...)...)
	}
	s, err := store.Open(ctx, "file://"+filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := s.GetRef(ctx, "subjects/tiny/run")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.Get(ctx, strings.TrimSpace(string(v)))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := artifact.Decode[artifact.RunRecord](raw)
	if err != nil || len(rec.Runs) != 2 || len(rec.Runs[0].Results) == 0 {
		t.Fatalf("legacy run record: %v, %+v", err, rec.Runs)
	}
	for id, kind := range map[string]string{"subjects/tiny/run": "run_record", rec.EventsObject: "turn_events", rec.PlanObject: "formation_plan"} {
		code, out, errs := runG("show", "--raw", id)
		if code != 0 || !strings.HasPrefix(errs, kind) {
			t.Fatalf("show %s: exit %d, %q", id, code, errs)
		}
		if kind != "turn_events" {
			continue
		}
		events, err := artifact.Decode[[][]any]([]byte(out))
		if err != nil || len(events) != 2 {
			t.Fatalf("events object: %v, %d passes", err, len(events))
		}
		for i, r := range rec.Runs {
			if len(events[i]) != len(r.Results) {
				t.Fatalf("pass %d: %d events for %d steps", i+1, len(events[i]), len(r.Results))
			}
		}
	}
	code, out, errs := runG("--json", "ratify", "--issued-at", "2026-07-01T00:00:00Z", "tiny")
	var res struct {
		CacheHit bool   `json:"cache_hit"`
		Output   string `json:"output"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.CacheHit {
		t.Fatalf("ratify of the legacy run record: exit %d, %s %s", code, out, errs)
	}
	raw, err = s.Get(ctx, res.Output)
	if err != nil {
		t.Fatal(err)
	}
	report, err := artifact.Decode[artifact.MasteryReport](raw)
	if err != nil || !report.Ratified || report.PlanSHA256 != rec.PlanSHA256 || report.IssuedAt != "2026-07-01T00:00:00Z" {
		t.Fatalf("report: %v ratified=%v plan %s (record's %s)", err, report.Ratified, report.PlanSHA256, rec.PlanSHA256)
	}
}

// The store written by commit 3e253e3 is a format 1 store (no marker,
// objects as their bytes): this binary reads it (status, show, check, ask)
// and keeps writing to it in that form, so it never mixes formats.
func TestLegacyStoreStaysFormat1(t *testing.T) {
	dir, global := legacyStore(t)
	storeDir := filepath.Join(dir, "store")
	runG := func(args ...string) (int, string, string) {
		t.Helper()
		return runLedgerCLI(t, append(append([]string{}, global...), args...)...)
	}
	code, out, errs := runG("--json", "status", "tiny")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errs)
	}
	report := jsonField(t, out, "report")
	if code, out, errs = runG("show", "--raw", report); code != 0 || !strings.HasPrefix(out, "{") {
		t.Fatalf("show: %d %.200s %s", code, out, errs)
	}
	if code, out, errs = runG("ask", "What does refraction cause?"); code != 0 || !strings.Contains(out, "dispersion") {
		t.Fatalf("ask: %d %q %s", code, out, errs)
	}
	if code, out, errs = runG("check", "--read-data"); code != 0 {
		t.Fatalf("check: %d %s %s", code, out, errs)
	}
	before := objectFiles(t, storeDir)

	// New writes: a second subject run through every stage.
	second := filepath.Join(dir, "courses", "tiny2")
	if err := os.CopyFS(second, os.DirFS(filepath.Join(dir, "courses", "tiny"))); err != nil {
		t.Fatal(err)
	}
	yaml, _ := os.ReadFile(filepath.Join(second, "subject.yaml"))
	writeFile(t, filepath.Join(second, "subject.yaml"), strings.Replace(string(yaml), "subject_id: tiny", "subject_id: tiny2", 1))
	if code, _, errs := runG("autorun", "tiny2"); code != 0 {
		t.Fatalf("autorun tiny2: %s", errs)
	}
	after := objectFiles(t, storeDir)
	if len(after) <= len(before) {
		t.Fatalf("autorun wrote no object (%d before, %d after)", len(before), len(after))
	}
	if _, err := os.Stat(filepath.Join(storeDir, "format")); !os.IsNotExist(err) {
		t.Fatalf("a format 1 store got a format marker: %v", err)
	}
	for name, path := range after {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if store.DigestOf(raw) != name {
			t.Fatalf("object %s is not stored as its bytes in a format 1 store", name)
		}
	}
	if code, out, errs = runG("check", "--read-data"); code != 0 {
		t.Fatalf("check after new writes: %d %s %s", code, out, errs)
	}
}

// objectFiles maps each object's digest to its file.
func objectFiles(t *testing.T, storeDir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	paths, err := filepath.Glob(filepath.Join(storeDir, "objects", "sha256", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		out[filepath.Base(p)] = p
	}
	return out
}
