package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/canon"
	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/packs"
	"formation/pipeline"
)

// copyPacks copies the shipped packs into a temporary packs folder as they
// were before ratification: companion reports left out, digests blanked.
func copyPacks(t *testing.T) string {
	root, err := testutil.ModuleRoot()
	must(t, err)
	dir := t.TempDir()
	for _, kind := range []string{"safety", "identity"} {
		must(t, os.MkdirAll(filepath.Join(dir, kind), 0o755))
		files, _ := filepath.Glob(filepath.Join(root, "packs", kind, "*.json"))
		for _, f := range files {
			if strings.HasSuffix(f, ".mastery_report.json") {
				continue
			}
			raw, err := os.ReadFile(f)
			must(t, err)
			v, err := canon.Decode(raw)
			must(t, err)
			v.(*canon.Object).Set("mastery_report_sha256", "")
			out, err := canon.Marshal(v)
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, kind, filepath.Base(f)), out, 0o644))
		}
	}
	return dir
}

func TestRatifyShippedPacks(t *testing.T) {
	ctx := context.Background()
	dir := copyPacks(t)
	f := newFixture(t, microCourse())
	f.p.Packs = packs.Options{Dir: dir}
	safety := filepath.Join(dir, "safety", "core_safety_axes_v1.json")
	identity := filepath.Join(dir, "identity", "default_general_v1.json")
	for _, path := range []string{safety, identity} {
		res, err := f.p.RatifyPack(ctx, path, "2026-11-30T00:00:00Z")
		if err != nil {
			t.Fatalf("%s: %v (%+v)", filepath.Base(path), err, res)
		}
		if !res.Ratified || res.Kept {
			t.Fatalf("%s: %+v", filepath.Base(path), res)
		}
		if v := cli.VerifyFile(ctx, path); !v.Valid {
			t.Fatalf("verify %s: %s", path, v.Reason)
		}
	}
	// Production mode now loads both packs.
	loaded, err := packs.Load(ctx, packs.Options{Dir: dir})
	if err != nil || !loaded.Safety.Ratified {
		t.Fatalf("ratified packs do not load in production: %v", err)
	}
	// A second call changes no byte.
	before, _ := os.ReadFile(safety)
	beforeReport, _ := os.ReadFile(pipelineCompanion(safety))
	res, err := f.p.RatifyPack(ctx, safety, "2027-01-01T00:00:00Z")
	if err != nil || !res.Kept {
		t.Fatalf("second call: %+v %v", res, err)
	}
	after, _ := os.ReadFile(safety)
	afterReport, _ := os.ReadFile(pipelineCompanion(safety))
	if !bytes.Equal(before, after) || !bytes.Equal(beforeReport, afterReport) {
		t.Fatal("second ratification changed bytes")
	}
}

func TestPackWithFloatsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	must(t, os.WriteFile(path, []byte(`{"pack_id":"p","mastery_report_sha256":"","alignment_threshold":0.45,"value_axes":[]}`), 0o644))
	f := newFixture(t, microCourse())
	if _, err := f.p.RatifyPack(context.Background(), path, "2026-11-30T00:00:00Z"); err == nil {
		t.Fatal("a pack with a float was ratified")
	}
}

func pipelineCompanion(p string) string { return p[:len(p)-len(".json")] + ".mastery_report.json" }

var _ = pipeline.PackResult{}

// The committed companion reports are the pipeline's own: ratifying the
// shipped packs again keeps them (same course and plan), needing no time.
func TestShippedPackReportsAreCurrent(t *testing.T) {
	root, err := testutil.ModuleRoot()
	must(t, err)
	dir := t.TempDir()
	for _, rel := range []string{"safety/core_safety_axes_v1", "identity/default_general_v1"} {
		for _, suffix := range []string{".json", ".mastery_report.json"} {
			raw, err := os.ReadFile(filepath.Join(root, "packs", rel+suffix))
			must(t, err)
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, rel+suffix), raw, 0o644))
		}
		f := newFixture(t, microCourse())
		f.p.Packs = packs.Options{Dir: dir}
		res, err := f.p.RatifyPack(context.Background(), filepath.Join(dir, rel+".json"), "")
		if err != nil || !res.Kept || !res.Ratified {
			t.Fatalf("%s: the committed report is stale; rerun `formation pack ratify`: %+v %v", rel, res, err)
		}
	}
}
