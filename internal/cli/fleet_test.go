package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// autorun --subjects FILE --index N runs the N-th subject of the list
// (comments and blank lines not counted); its misuse exits 2, a missing
// list 66.
func TestAutorunPicksFromSubjectList(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "subjects")
	if err := os.WriteFile(list, []byte("# the fleet\nalpha\n\n  beta  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--store", "file://" + filepath.Join(dir, "store"), "--courses-dir", filepath.Join(dir, "courses"), "-q"}
	f := func(args ...string) (int, string) {
		code, _, errs := run(t, "", append(append([]string{}, base...), args...)...)
		return code, errs
	}
	if code, errs := f("autorun", "--subjects", list, "--index", "1"); code != 66 || !strings.Contains(errs, "subject beta: no folder") {
		t.Fatalf("index 1: exit %d: %s", code, errs)
	}
	for _, bad := range [][]string{
		{"autorun", "--subjects", list, "--index", "2"},
		{"autorun", "--subjects", list, "--index", "-1"},
		{"autorun", "--subjects", list},
		{"autorun", "--index", "0", "alpha"},
		{"autorun", "--subjects", list, "--index", "0", "alpha"},
		{"autorun"},
	} {
		if code, errs := f(bad...); code != 2 {
			t.Errorf("%v: exit %d: %s", bad, code, errs)
		}
	}
	if code, errs := f("autorun", "--subjects", filepath.Join(dir, "none"), "--index", "0"); code != 66 {
		t.Fatalf("a missing list: exit %d: %s", code, errs)
	}
}
