package deploytest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The image is built once per test binary (linking every binary takes a
// while on a busy machine) and each test mounts its own courses folder.
var (
	imageOnce  sync.Once
	imageBuilt *Image
	imageErr   error
	imageWork  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if imageWork != "" {
		os.RemoveAll(imageWork)
	}
	os.Exit(code)
}

// builtImage is the image laid out from deploy/Dockerfile.
func builtImage(t testing.TB) *Image {
	t.Helper()
	imageOnce.Do(func() {
		root := repoRoot(t)
		if imageWork, imageErr = os.MkdirTemp("", "deploytest-image-"); imageErr != nil {
			return
		}
		imageBuilt, imageErr = BuildImage(context.Background(), root, filepath.Join(root, "deploy", "Dockerfile"), imageWork, nil)
	})
	if imageErr != nil {
		t.Fatal(imageErr)
	}
	return imageBuilt
}

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
