// Package testutil holds helpers shared by tests across the module: finding the
// conformance vectors, the original system's artifacts and the shipped packs,
// and starting the real S3 server.
package testutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvConformance names the folder that holds original/, the original system's
// real artifacts (its shipped packs, mastery reports and reviewer registry).
// They are not part of this repository.
const EnvConformance = "FORMATION_CONFORMANCE"

// ModuleRoot walks up from the working directory to the folder holding go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testutil: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// inModule returns the path of name under the module root, failing the test
// when it is not there: what lives in the repository is never optional.
func inModule(t testing.TB, name ...string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(append([]string{root}, name...)...)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("testutil: %v", err)
	}
	return path
}

// Vector returns the path of name inside the repository's conformance
// vectors, testdata/conformance/vectors: inputs and the outputs the original
// system produced for them.
func Vector(t testing.TB, name ...string) string {
	t.Helper()
	return inModule(t, append([]string{"testdata", "conformance", "vectors"}, name...)...)
}

// ShippedPacks returns the path of name inside this module's packs folder,
// the ratified packs the runtime loads in production.
func ShippedPacks(t testing.TB, name ...string) string {
	t.Helper()
	return inModule(t, append([]string{"packs"}, name...)...)
}

// ErrNoOriginal is wrapped by OriginalDir when the original artifacts cannot
// be found.
var ErrNoOriginal = errors.New("original artifacts not found")

// OriginalDir returns the folder of the original system's artifacts: original/
// inside $FORMATION_CONFORMANCE, else inside ../shared/conformance next to the
// module root. A variable that is set but names no original/ folder is an
// error too; it never falls back to the guess.
func OriginalDir() (string, error) {
	if dir := os.Getenv(EnvConformance); dir != "" {
		return existingDir(filepath.Join(dir, "original"), "named by "+EnvConformance)
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "conformance", "original")
	return existingDir(dir, EnvConformance+" unset")
}

func existingDir(path, how string) (string, error) {
	info, err := os.Stat(path)
	if err != nil || !info.IsDir() {
		return "", fmt.Errorf("%w: no folder %s (%s)", ErrNoOriginal, path, how)
	}
	return filepath.Clean(path), nil
}

// Original returns the path of name inside the original's artifacts. Without
// them the test skips with one line saying how to provide them. It fails
// instead under CI=true, so a CI machine never passes by skipping, and when
// FORMATION_CONFORMANCE is set, since whoever set it asked for these tests.
func Original(t testing.TB, name ...string) string {
	t.Helper()
	dir, err := OriginalDir()
	if err != nil {
		msg := fmt.Sprintf("%v; set %s to the folder holding original/ to run the comparisons with the original system", err, EnvConformance)
		if os.Getenv("CI") == "true" || os.Getenv(EnvConformance) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return filepath.Join(append([]string{dir}, name...)...)
}
