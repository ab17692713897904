package archtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"formation/internal/testutil"
	"formation/store"
)

// demoRefs are the ref names a full demo may write, as patterns: stage
// outputs and cache records, the one reviewed-state ref, validated-set
// lookups, lane results and the audit log. Nothing writes the refs of the
// reviewed state's earlier layout any more.
var demoRefs = []*regexp.Regexp{
	regexp.MustCompile(`^subjects/[^/]+/(mine|smelt|forge|compose|run|ratify)$`),
	regexp.MustCompile(`^cache/(mine|smelt|forge|compose|run|ratify)/[0-9a-f]{64}$`),
	regexp.MustCompile(`^cache/(last|runs)/[^/]+/(mine|smelt|forge|compose|run|ratify)$`),
	regexp.MustCompile(`^knowledge/state$`),
	regexp.MustCompile(`^index/validated/[0-9a-f]{64}$`),
	regexp.MustCompile(`^lanes/[^/]+/[^/]+/(dev|public|holdout)$`),
	regexp.MustCompile(`^audit/[^/]+/[^/]+/[^/]+$`),
}

// TestDemoWritesOnlyCurrentRefs runs `make demo`'s script with a freshly
// built binary and lists every ref it wrote.
func TestDemoWritesOnlyCurrentRefs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the whole demo")
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "formation")
	build := exec.Command("go", "build", "-o", bin, "./cmd/formation")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	storeDir := filepath.Join(dir, "store")
	demo := exec.Command("bash", "scripts/demo.sh")
	demo.Dir = root
	demo.Env = append(os.Environ(), "FORMATION_BIN="+bin, "DEMO_STORE_DIR="+storeDir)
	if out, err := demo.CombinedOutput(); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	s, err := store.Open(context.Background(), "file://"+storeDir)
	if err != nil {
		t.Fatal(err)
	}
	names, err := s.ListRefs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, name := range names {
		matched := false
		for i, re := range demoRefs {
			if re.MatchString(name) {
				matched, seen[i] = true, true
			}
		}
		if !matched {
			t.Errorf("the demo wrote the ref %s, which no current code should write", name)
		}
	}
	for i, re := range demoRefs {
		if !seen[i] {
			t.Errorf("the demo wrote no ref matching %s", re)
		}
	}
	t.Logf("the demo wrote %d refs", len(names))
}
