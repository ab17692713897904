// Package testutil holds helpers shared by tests across the module: finding the
// shared conformance data and starting the real S3 server.
package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

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

// ConformanceDir returns the shared conformance folder, `../shared/conformance`
// relative to the module root. FORMATION_CONFORMANCE overrides it.
func ConformanceDir() (string, error) {
	if dir := os.Getenv("FORMATION_CONFORMANCE"); dir != "" {
		return dir, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "..", "shared", "conformance")
	if _, err := os.Stat(dir); err != nil {
		return "", err
	}
	return filepath.Clean(dir), nil
}

// Conformance returns the path of name inside the conformance folder and fails
// the test when the folder cannot be found: the vectors are part of the suite,
// never optional.
func Conformance(t testing.TB, name ...string) string {
	t.Helper()
	dir, err := ConformanceDir()
	if err != nil {
		t.Fatalf("conformance data not found: %v", err)
	}
	return filepath.Join(append([]string{dir}, name...)...)
}
