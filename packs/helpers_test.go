package packs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/canon"
	"formation/internal/testutil"
)

// originalPacks is the folder of the original's real pack artifacts.
func originalPacks(t testing.TB) string {
	t.Helper()
	return testutil.Original(t, "packs")
}

func originalSafetyDir(t testing.TB) string {
	return filepath.Join(originalPacks(t), SafetyDir)
}

func originalIdentityDir(t testing.TB) string {
	return filepath.Join(originalPacks(t), IdentityDir)
}

// shippedPacks is this module's packs folder.
func shippedPacks(t testing.TB) string {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "packs")
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decodeObject reads a pack or report file of the original into an object
// that a test can modify.
func decodeObject(t testing.TB, data []byte) *canon.Object {
	t.Helper()
	doc, err := canon.DecodeTolerant(data)
	if err != nil {
		t.Fatal(err)
	}
	obj, ok := doc.(*canon.Object)
	if !ok {
		t.Fatalf("not an object: %T", doc)
	}
	return obj
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := canon.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// originalSafetyCopy copies the original's ratified safety pack and its
// report into a fresh folder, applying edit to the pack first.
func originalSafetyCopy(t testing.TB, edit func(pack *canon.Object)) string {
	t.Helper()
	dir := t.TempDir()
	src := originalSafetyDir(t)
	pack := decodeObject(t, readFile(t, filepath.Join(src, DefaultSafetyPackID+".json")))
	if edit != nil {
		edit(pack)
	}
	writeFile(t, dir, DefaultSafetyPackID+".json", marshal(t, pack))
	report := readFile(t, filepath.Join(src, DefaultSafetyPackID+".mastery_report.json"))
	writeFile(t, dir, DefaultSafetyPackID+".mastery_report.json", report)
	return dir
}

// minimalSafety is a small valid unratified safety pack document.
func minimalSafety(id string) *canon.Object {
	o := canon.NewObject()
	o.Set("pack_id", id)
	o.Set("version", "1.0.0")
	o.Set("description", "test pack")
	o.Set("schema_version", "1.0.0")
	o.Set("mastery_report_sha256", "")
	o.Set("boundary_ids", []any{"b", "a"})
	descs := canon.NewObject()
	descs.Set("a", "first")
	descs.Set("b", "second")
	o.Set("boundary_descriptions", descs)
	return o
}

func devOptions(dir string) LoadOptions {
	return LoadOptions{SearchPaths: []string{dir}, AllowUnratified: true}
}

func prodOptions(dir string) LoadOptions {
	return LoadOptions{SearchPaths: []string{dir}}
}

// wantSafetyError asserts err is a *SafetyPackError with the reason and a
// message containing every fragment.
func wantSafetyError(t testing.TB, err error, reason Reason, fragments ...string) {
	t.Helper()
	var spe *SafetyPackError
	if !errors.As(err, &spe) {
		t.Fatalf("want *SafetyPackError %s, got %T %v", reason, err, err)
	}
	if spe.Reason != reason {
		t.Errorf("reason = %s, want %s (message %q)", spe.Reason, reason, spe.Error())
	}
	for _, frag := range fragments {
		if !strings.Contains(spe.Error(), frag) {
			t.Errorf("message %q lacks %q", spe.Error(), frag)
		}
	}
}

func wantIdentityError(t testing.TB, err error, reason Reason, fragments ...string) {
	t.Helper()
	var ipe *IdentityPackError
	if !errors.As(err, &ipe) {
		t.Fatalf("want *IdentityPackError %s, got %T %v", reason, err, err)
	}
	if ipe.Reason != reason {
		t.Errorf("reason = %s, want %s (message %q)", ipe.Reason, reason, ipe.Error())
	}
	for _, frag := range fragments {
		if !strings.Contains(ipe.Error(), frag) {
			t.Errorf("message %q lacks %q", ipe.Error(), frag)
		}
	}
}
