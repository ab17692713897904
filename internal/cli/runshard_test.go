package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"formation/internal/testutil"
)

// The run verb's sharding flags: their misuse is a usage error (exit 2);
// shards and a merge on the example subject print what run prints, and the
// merge refuses a missing shard with exit 65.
func TestRunShardFlags(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"--store", "file://" + t.TempDir(), "--packs-dir", filepath.Join(root, "packs"), "--courses-dir", filepath.Join(root, "courses"), "-q"}
	f := func(args ...string) (int, string, string) {
		return run(t, "", append(append([]string{}, base...), args...)...)
	}
	for _, bad := range [][]string{
		{"run", "--shard", "4/4", "optics"},
		{"run", "--shard", "x", "optics"},
		{"run", "--shard", "0/2", "--merge", "--shards", "2", "optics"},
		{"run", "--merge", "optics"},
		{"run", "--shards", "2", "optics"},
		{"run", "--merge", "--shards", "0", "optics"},
		{"run", "--merge", "--shards", "1025", "optics"},
	} {
		if code, _, errs := f(bad...); code != 2 {
			t.Errorf("%v: exit %d (%s)", bad, code, errs)
		}
	}
	for _, st := range []string{"mine", "smelt", "forge", "compose"} {
		if code, _, errs := f(st, "optics"); code != 0 {
			t.Fatalf("%s: exit %d: %s", st, code, errs)
		}
	}
	if code, _, errs := f("run", "--shard", "1/2", "optics"); code != 0 {
		t.Fatalf("shard 1/2: exit %d: %s", code, errs)
	}
	if code, _, errs := f("run", "--merge", "--shards", "2", "optics"); code != 65 || !strings.Contains(errs, "shard_missing") {
		t.Fatalf("merge with a shard missing: exit %d: %s", code, errs)
	}
	code, out, errs := f("--json", "run", "--shard", "0/2", "optics")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"stage":"run-shard"`) {
		t.Fatalf("--json shard: exit %d: %q %s", code, out, errs)
	}
	code, merged, errs := f("--json", "run", "--merge", "--shards", "2", "optics")
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	code, plain, errs := f("--json", "run", "optics")
	if code != 0 || !strings.Contains(plain, `"cache_hit":true`) {
		t.Fatalf("run after the merge: exit %d: %s", code, errs)
	}
	// Every step line is the same; the last line is each one's stage result.
	steps := func(s string) string { return s[:strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")] }
	if strings.Count(merged, "\n") < 10 || steps(merged) != steps(plain) {
		t.Fatal("the merge's NDJSON step lines are not run's")
	}
}
