package packs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindPacksDirWalksUpToModuleRoot(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "go.mod", []byte("module example\n"))
	deep := filepath.Join(root, "a", "b", "c")
	mkdirs(t, deep, filepath.Join(root, "packs", SafetyDir))
	got, err := findPacksDir("", deep)
	if err != nil || got != filepath.Join(root, "packs") {
		t.Fatalf("got %q, %v", got, err)
	}
	// The nearest packs/ wins over one further up.
	mkdirs(t, filepath.Join(root, "a", "packs", SafetyDir))
	got, err = findPacksDir("", deep)
	if err != nil || got != filepath.Join(root, "a", "packs") {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestFindPacksDirStopsAtModuleRoot(t *testing.T) {
	outer := t.TempDir()
	mkdirs(t, filepath.Join(outer, "packs", SafetyDir))
	module := filepath.Join(outer, "mod")
	mkdirs(t, filepath.Join(module, "sub"))
	writeFile(t, module, "go.mod", []byte("module example\n"))
	_, err := findPacksDir("", filepath.Join(module, "sub"))
	if !errors.Is(err, ErrNoPacksDir) {
		t.Fatalf("packs/ above the module root was used: %v", err)
	}
}

func TestFindPacksDirOutsideModuleTriesOnlyWorkingDir(t *testing.T) {
	outer := t.TempDir()
	mkdirs(t, filepath.Join(outer, "packs", SafetyDir), filepath.Join(outer, "wd"))
	if _, err := findPacksDir("", filepath.Join(outer, "wd")); !errors.Is(err, ErrNoPacksDir) {
		t.Fatalf("a parent was searched outside a module: %v", err)
	}
	got, err := findPacksDir("", outer)
	if err != nil || got != filepath.Join(outer, "packs") {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestFindPacksDirIgnoresFolderWithoutSafety(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "go.mod", []byte("module example\n"))
	mkdirs(t, filepath.Join(root, "wd", "packs", IdentityDir), filepath.Join(root, "packs", SafetyDir))
	got, err := findPacksDir("", filepath.Join(root, "wd"))
	if err != nil || got != filepath.Join(root, "packs") {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestFindPacksDirExplicit(t *testing.T) {
	dir := t.TempDir()
	mkdirs(t, filepath.Join(dir, SafetyDir))
	got, err := findPacksDir(dir, t.TempDir())
	if err != nil || got != dir {
		t.Fatalf("got %q, %v", got, err)
	}
	// An explicit folder that is wrong is an error, not a reason to guess.
	_, err = findPacksDir(filepath.Join(dir, "absent"), shippedPacks(t))
	if !errors.Is(err, ErrNoPacksDir) {
		t.Fatalf("err = %v", err)
	}
}

// From this package's folder the module's own packs/ is found.
func TestFindPacksDirFromPackage(t *testing.T) {
	t.Setenv(EnvPacksDir, "")
	got, err := FindPacksDir()
	if err != nil || got != shippedPacks(t) {
		t.Fatalf("got %q, %v", got, err)
	}
	t.Setenv(EnvPacksDir, originalPacks(t))
	got, err = FindPacksDir()
	if err != nil || got != originalPacks(t) {
		t.Fatalf("got %q, %v", got, err)
	}
	// The loaders use it when no search path is given.
	pack, err := LoadSafetyPack(t.Context(), DefaultSafetyPackID, LoadOptions{})
	if err != nil || !pack.Ratified {
		t.Fatalf("default search path: %v", err)
	}
	l, err := Load(t.Context(), Options{IdentityPackID: "precision_first_v1"})
	if err != nil || l.Identity.PackID != "precision_first_v1" {
		t.Fatalf("Load with found dir: %v", err)
	}
	t.Setenv(EnvPacksDir, filepath.Join(t.TempDir(), "absent"))
	_, err = LoadSafetyPack(t.Context(), DefaultSafetyPackID, LoadOptions{})
	wantSafetyError(t, err, ReasonNotFound, "not found")
	_, err = Load(t.Context(), Options{})
	wantSafetyError(t, err, ReasonNotFound, "refusing to start")
}

func TestOptionsFromEnv(t *testing.T) {
	cases := []struct {
		safety, identity         string
		wantSafety, wantIdentity bool
	}{
		{"", "", false, false},
		{"1", "", true, true},
		{"", "1", false, true},
		{"true", "yes", false, false},
		{" 1", "1 ", false, false},
	}
	for _, c := range cases {
		t.Setenv(EnvAllowUnratifiedSafety, c.safety)
		t.Setenv(EnvAllowUnratifiedIdentity, c.identity)
		o := OptionsFromEnv()
		if o.AllowUnratifiedSafety != c.wantSafety || o.AllowUnratifiedIdentity != c.wantIdentity {
			t.Errorf("%q/%q: %+v", c.safety, c.identity, o)
		}
	}
}
