package deploytest

import (
	"os"
	"path/filepath"
	"testing"
)

// repoRoot is the repository root: this module lives at deploy/deploytest.
func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Clean(filepath.Join(wd, "..", ".."))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

func manifests(t testing.TB) *Manifests {
	t.Helper()
	m, err := LoadManifests(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func dockerfile(t testing.TB) *Dockerfile {
	t.Helper()
	df, err := ParseDockerfile(filepath.Join(repoRoot(t), "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	return df
}
