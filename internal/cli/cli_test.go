package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/store"
)

// run executes `formation args...` in process and returns exit code and output.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }}
	code := cli.Main(cli.NewApp(io), append([]string{"formation"}, args...))
	return code, out.String(), errb.String()
}

func TestCanonCommand(t *testing.T) {
	code, out, _ := run(t, `{"b":1,"a":"λ<>"}`, "canon")
	if code != 0 || out != `{"a":"λ<>","b":1}` {
		t.Fatalf("canon: %d %q", code, out)
	}
	code, out, _ = run(t, `{"a":1}`, "canon", "--sha256")
	if code != 0 || out != "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862\n" {
		t.Fatalf("canon --sha256: %d %q", code, out)
	}
	for _, bad := range []string{`{"a":1.5}`, `{"a":1,"a":2}`, "\"\xff\"", `{} x`} {
		code, out, errs := run(t, bad, "canon")
		if code != 65 || out != "" || errs == "" {
			t.Errorf("canon %q: exit %d out %q err %q", bad, code, out, errs)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	if code, _, _ := run(t, "", "verify"); code != 2 {
		t.Fatalf("verify without files: exit %d", code)
	}
	if code, _, _ := run(t, "", "canon", "--no-such-flag"); code != 2 {
		t.Fatalf("unknown flag: exit %d", code)
	}
}

type verifyDoc struct {
	SchemaVersion string `json:"schema_version"`
	Error         *struct {
		Code    int    `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"error"`
	Files []struct {
		Path   string `json:"path"`
		Kind   string `json:"kind"`
		Valid  bool   `json:"valid"`
		Reason string `json:"reason"`
	} `json:"files"`
}

func originalFiles(t *testing.T, reports bool) []string {
	root := testutil.Original(t)
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		if strings.HasSuffix(p, ".mastery_report.json") == reports {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

func TestVerifyOriginalReports(t *testing.T) {
	files := originalFiles(t, true)
	if len(files) != 126 {
		t.Fatalf("found %d reports, want 126 (the hidden .mastery_report.json included)", len(files))
	}
	code, out, _ := run(t, "", append([]string{"--json", "verify"}, files...)...)
	if code != 77 {
		t.Fatalf("exit %d, want 77", code)
	}
	var doc verifyDoc
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("--json output is not exactly one document: %v", err)
	}
	if doc.Error == nil || doc.Error.Code != 77 || doc.Error.Message != "2 of 126 file(s) invalid" {
		t.Fatalf("error object %+v", doc.Error)
	}
	invalid := map[string]string{}
	for _, f := range doc.Files {
		if f.Kind != "report" {
			t.Errorf("%s: kind %s", f.Path, f.Kind)
		}
		if !f.Valid {
			invalid[filepath.ToSlash(strings.TrimPrefix(f.Path, testutil.Original(t)+string(filepath.Separator)))] = f.Reason
		}
	}
	want := map[string]string{
		"packs/data/en_numerics_v1/en_numerics_v1.mastery_report.json": "no seal field",
		"packs/data/en_units_v1/.mastery_report.json":                  "seal mismatch",
	}
	if len(invalid) != 2 || invalid["packs/data/en_numerics_v1/en_numerics_v1.mastery_report.json"] != want["packs/data/en_numerics_v1/en_numerics_v1.mastery_report.json"] ||
		invalid["packs/data/en_units_v1/.mastery_report.json"] != want["packs/data/en_units_v1/.mastery_report.json"] {
		t.Fatalf("invalid reports %v, want %v", invalid, want)
	}
}

func TestVerifyOriginalPacks(t *testing.T) {
	var packs []string
	for _, f := range originalFiles(t, false) {
		if !strings.HasSuffix(f, "_catalog.json") {
			packs = append(packs, f)
		}
	}
	code, out, _ := run(t, "", append([]string{"--json", "verify"}, packs...)...)
	var doc verifyDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	valid, invalid := 0, []string{}
	for _, f := range doc.Files {
		if f.Kind != "pack" {
			t.Errorf("%s: kind %s", f.Path, f.Kind)
		}
		if f.Valid {
			valid++
		} else {
			invalid = append(invalid, filepath.Base(f.Path))
		}
	}
	sort.Strings(invalid)
	if code != 77 || valid != 124 || strings.Join(invalid, ",") != "engineering_ethics_v1.json,legal_ethics_v1.json,research_ethics_v1.json" {
		t.Fatalf("exit %d, %d valid, invalid %v", code, valid, invalid)
	}
	// Only valid files: exit 0.
	code, _, _ = run(t, "", "verify", testutil.Original(t, "packs", "safety", "core_safety_axes_v1.json"))
	if code != 0 {
		t.Fatalf("valid pack: exit %d", code)
	}
	// Anything else is unknown and invalid.
	code, out, _ = run(t, "", "--json", "verify", testutil.Original(t, "packs", "register", "_catalog.json"))
	if code != 77 || !strings.Contains(out, `"kind":"unknown"`) {
		t.Fatalf("catalog: %d %s", code, out)
	}
}

func TestAuditListEmptyStore(t *testing.T) {
	dir := t.TempDir()
	if _, err := store.Open(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "", "--store", "file://"+dir, "--json", "audit", "list")
	if code != 0 || !strings.HasPrefix(out, `{"records":[]`) {
		t.Fatalf("audit list: %d %q", code, out)
	}
	if code, _, _ := run(t, "", "--store", "file://"+dir, "audit", "list", "--subject", "../x"); code != 2 {
		t.Fatalf("bad subject: exit %d", code)
	}
	// A read-only command never creates a store: 66, and no folder.
	absent := filepath.Join(t.TempDir(), "nothing")
	if code, _, errs := run(t, "", "--store", absent, "audit", "list"); code != 66 || !strings.Contains(errs, "no store here") {
		t.Fatalf("audit list on no store: %d %s", code, errs)
	}
	if _, err := os.Stat(absent); !os.IsNotExist(err) {
		t.Fatal("audit list created the store folder")
	}
}

// formation allow exclude edits the curator's exclusions, allow list shows
// them, and a malformed or incomplete exclusion is refused without writing.
func TestAllowExclude(t *testing.T) {
	courses := t.TempDir()
	if err := os.MkdirAll(filepath.Join(courses, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(courses, "x", "allowlist.yaml")
	text := strings.Repeat("a", 64)
	allow := func(args ...string) (int, string) {
		code, out, _ := run(t, "", append([]string{"--courses-dir", courses, "allow"}, args...)...)
		return code, out
	}
	if code, _ := allow("add", "--subject", "x", "--tier", "primary", strings.Repeat("1", 64)); code != 0 {
		t.Fatalf("add: exit %d", code)
	}
	if code, _ := allow("exclude", "--subject", "x", "--text", text, "--start", "0", "--end", "12", "--reason", "a table header"); code != 0 {
		t.Fatalf("exclude: exit %d", code)
	}
	before, _ := os.ReadFile(file)
	for _, bad := range [][]string{
		{"--sentence", "bbbb", "--reason", "r"},                                             // not a digest: 65
		{"--sentence", strings.Repeat("b", 64)},                                             // no reason: 2
		{"--text", text, "--start", "0", "--reason", "r"},                                   // partial range: 2
		{"--text", text, "--start", "0", "--end", "3", "--sentence", text, "--reason", "r"}, // both: 2
	} {
		if code, _ := allow(append([]string{"exclude", "--subject", "x"}, bad...)...); code != 2 && code != 65 {
			t.Errorf("exclude %v: exit %d", bad, code)
		}
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatal("a refused exclusion changed the file")
	}
	code, out := allow("list", "--subject", "x")
	if code != 0 || !strings.Contains(out, "exclude text "+text+" [0,12) a table header") {
		t.Fatalf("list: %d %q", code, out)
	}
	if code, _ := allow("exclude", "--remove", "--subject", "x", "--text", text, "--start", "0", "--end", "12"); code != 0 {
		t.Fatalf("remove: exit %d", code)
	}
	if raw, _ := os.ReadFile(file); strings.Contains(string(raw), "exclude") {
		t.Fatalf("after remove:\n%s", raw)
	}
}

// allow add and remove take several digests and write the list once: a
// folder of sources is allowed in one call, and a bad digest among them
// leaves the file as it was.
func TestAllowSeveralDigests(t *testing.T) {
	courses := t.TempDir()
	if err := os.MkdirAll(filepath.Join(courses, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(courses, "x", "allowlist.yaml")
	allow := func(args ...string) (int, string) {
		code, out, _ := run(t, "", append([]string{"--courses-dir", courses, "allow"}, args...)...)
		return code, out
	}
	a, b, c := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	if code, out := allow("add", "--subject", "x", "--tier", "secondary", a, b, c); code != 0 || strings.Count(out, " secondary") != 3 {
		t.Fatalf("add three: exit %d\n%s", code, out)
	}
	before, _ := os.ReadFile(file)
	if code, _ := allow("add", "--subject", "x", "--tier", "primary", a, "not-a-digest"); code != 2 {
		t.Fatalf("add with a bad digest: exit %d, want 2", code)
	}
	if code, _ := allow("remove", "--subject", "x", a, strings.Repeat("d", 64)); code == 0 {
		t.Fatal("remove of an unlisted digest among others: exit 0")
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatalf("a refused call changed the file:\n%s", after)
	}
	if code, out := allow("remove", "--subject", "x", a, c); code != 0 || strings.Contains(out, a) || strings.Contains(out, c) || !strings.Contains(out, b) {
		t.Fatalf("remove two: exit %d\n%s", code, out)
	}
}
