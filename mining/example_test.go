package mining

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"formation/courses"
	"formation/internal/testutil"
)

// glossaryRows is the content of courses/optics/sources/glossary.arrow,
// the example subject's table source.
func glossaryRows() ([]int64, []string) {
	return []int64{1, 2, 3, 4, 5, 6}, []string{
		"Luminous means giving off its own light.",
		"Opaque means blocking all light.",
		"Transparent means letting light pass straight through.",
		"Translucent means letting light through while scattering it.",
		"A medium is a substance that carries light.",
		"Intensity is defined as the power of light per unit area.",
	}
}

func exampleDir(t *testing.T) string {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "courses", "optics")
}

// TestExampleGlossaryTable keeps the committed Arrow file equal to what
// glossaryRows encodes (FORMATION_WRITE_EXAMPLE=1 rewrites it), so the
// binary source in the repository is reproducible from readable text.
func TestExampleGlossaryTable(t *testing.T) {
	ids, texts := glossaryRows()
	rec := testTable(t, ids, strs(texts...))
	defer rec.Release()
	want := arrowFile(t, rec)
	path := filepath.Join(exampleDir(t), "sources", "glossary.arrow")
	if os.Getenv("FORMATION_WRITE_EXAMPLE") == "1" {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from glossaryRows; rerun with FORMATION_WRITE_EXAMPLE=1 and update allowlist.yaml", path)
	}
}

// TestExampleSubjectMines mines the shipped example subject: no source is
// refused, the bundle is the same whatever the pool size, and the
// allow-list names exactly the sources mined (by their raw SHA-256).
func TestExampleSubjectMines(t *testing.T) {
	subj, err := courses.Load(context.Background(), exampleDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var first *Result
	for _, jobs := range []int{1, 8} {
		res, err := Mine(context.Background(), subj, newMemStore(), Options{Jobs: jobs})
		if err != nil {
			t.Fatalf("jobs=%d: %v", jobs, err)
		}
		if first == nil {
			first = res
		} else if res.Digest != first.Digest {
			t.Fatalf("jobs=1 and jobs=8 bundles differ: %s vs %s", first.Digest, res.Digest)
		}
	}
	adapters := map[string]int{}
	var mined []string
	for _, e := range first.Bundle.Entries {
		adapters[e.Adapter]++
		mined = append(mined, e.SourceSHA)
	}
	for _, a := range []string{"file", "folder", "table", "snapshot"} {
		if adapters[a] == 0 {
			t.Errorf("the example uses no %s source: %v", a, adapters)
		}
	}
	slices.Sort(mined)
	mined = slices.Compact(mined)

	data, err := os.ReadFile(filepath.Join(exampleDir(t), "allowlist.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var allow []struct {
		SourceSHA string `yaml:"source_sha"`
		Tier      string `yaml:"tier"`
		Label     string `yaml:"label"`
		Curated   bool   `yaml:"curated"`
	}
	if err := yaml.Unmarshal(data, &allow); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, a := range allow {
		listed = append(listed, a.SourceSHA)
		if a.Tier != "primary" && a.Tier != "secondary" {
			t.Errorf("%s: tier %q", a.SourceSHA, a.Tier)
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, mined) {
		t.Errorf("allowlist.yaml does not list exactly the mined sources:\nlisted %v\n mined %v", listed, mined)
	}
	t.Logf("example subject: %d entries from %d sources, %d bytes, source_bundle_sha %s", len(first.Bundle.Entries), len(mined), first.Bytes, first.Digest)
}
