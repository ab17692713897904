package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	ucli "github.com/urfave/cli/v2"

	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/store"
)

// workspace is a working folder with a copy of the courses, the packs found
// through FORMATION_PACKS_DIR and the default store ./.formation; the test
// runs in it.
func workspace(t *testing.T) string {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "courses"), os.DirFS(filepath.Join(root, "courses"))); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FORMATION_PACKS_DIR", filepath.Join(root, "packs"))
	t.Setenv("CI", "")
	t.Chdir(dir)
	return dir
}

// runIn runs `formation args...` in process with stdin and returns exit
// code, stdout and stderr.
func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }}
	code := cli.Main(cli.NewApp(io), append([]string{"formation"}, args...))
	return code, out.String(), errb.String()
}

func mustRun(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, out, errs := runIn(t, "", args...)
	if code != 0 {
		t.Fatalf("formation %v: exit %d\n%s", args, code, errs)
	}
	return out, errs
}

func jsonDoc(t *testing.T, out string) map[string]any {
	t.Helper()
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	return doc
}

// Each misuse the issue lists, and each line it found misread, as it runs
// now: flags after arguments take effect, and what is wrong exits 2 with a
// message that says what to write.
func TestCommandLinesOnceMisread(t *testing.T) {
	dir := workspace(t)
	if code, _, _ := runIn(t, "", "status", "nosuch"); code != 66 {
		t.Fatalf("status of an unknown subject on no store: exit %d", code)
	}
	for _, url := range []string{"s3:/x", "file:/x", "file:x"} {
		code, _, errs := runIn(t, "", "--store", url, "autorun", "optics")
		if code != 2 || !strings.Contains(errs, "file://DIR, s3://bucket/prefix or a plain folder path") {
			t.Fatalf("--store %s: exit %d %s", url, code, errs)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a refused or read-only command left something behind: %v", entries)
	}
	mustRun(t, "autorun", "optics")
	// ratify optics --issued-at T: the report is the one asked for.
	_, errs := mustRun(t, "ratify", "optics", "--issued-at", "2027-01-01T00:00:00Z", "--explain")
	if !strings.Contains(errs, "parameter issued_at changed: 2026-05-20T00:00:00Z → 2027-01-01T00:00:00Z") {
		t.Fatalf("ratify --explain: %s", errs)
	}
	out, _ := mustRun(t, "status", "optics", "--json")
	if doc := jsonDoc(t, out); doc["issued_at"] != "2027-01-01T00:00:00Z" {
		t.Fatalf("status after ratify --issued-at: %v", doc["issued_at"])
	}
	// compose optics --template procedural: the template is read (and its
	// precondition refuses this subject's graph).
	if code, _, errs := runIn(t, "", "compose", "optics", "--template", "procedural"); code != 65 || !strings.Contains(errs, "procedural template") {
		t.Fatalf("compose --template after the subject: %d %s", code, errs)
	}
	if _, errs := mustRun(t, "autorun", "optics", "--explain"); !strings.Contains(errs, "explain: ") {
		t.Fatalf("autorun --explain: %s", errs)
	}
	mustRun(t, "keygen", "--out", "curator.key")
	report := statusReport(t)
	out, _ = mustRun(t, "promote", report, "--key", "curator.key", "--trusted-keys", "curator.key.pub")
	if !strings.Contains(out, "promoted course") {
		t.Fatalf("promote with flags after the digest: %s", out)
	}
	out, _ = mustRun(t, "ask", "What is refraction?", "--json")
	if doc := jsonDoc(t, out); doc["surface"] == "I don't have field coordinates for that yet." {
		t.Fatalf("--json was read as part of the question: %v", doc)
	}
	if code, out, errs := runIn(t, "", "eval", "cognition", "--domain", "optics", "--split", "public", "--trusted-keys", "curator.key.pub"); code != 0 || !strings.Contains(out, "optics/cognition/public") {
		t.Fatalf("eval with flags after the lane: %d %s %s", code, out, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mine", "optics", "optics2"}, `unexpected argument(s) "optics2"`},
		{[]string{"stauts", "optics"}, "did you mean `formation status`?"},
		{[]string{"audit", "bogus"}, "unknown sub-command \"bogus\""},
		{[]string{"allow", "add", strings.Repeat("a", 64), "--tier", "primary"}, "--subject S is required"},
		{[]string{"allow", "add", "courses/optics/sources/colour.md", "--subject", "optics", "--tier", "primary"},
			`"courses/optics/sources/colour.md" is a file, not its digest: give its SHA-256 (sha256sum courses/optics/sources/colour.md prints it)`},
		{[]string{"allow", "add", "colour", "--subject", "optics", "--tier", "primary"}, `"colour" is not a SHA-256`},
		{[]string{"allow", "remove", "ABC", "--subject", "optics"}, `allow remove: "ABC" is not a SHA-256`},
		{[]string{"promote", report, "--key", "curator.key"}, "--trusted-keys FILE"},
		{[]string{"status"}, "missing SUBJECT"},
	} {
		if code, _, errs := runIn(t, "", c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q: %s", c.args, code, c.want, errs)
		}
	}
	if code, out, _ := runIn(t, "", "help", "status"); code != 0 || !strings.Contains(out, "formation status") {
		t.Errorf("help status: %d %s", code, out)
	}
	if code, out, _ := runIn(t, "", "version"); code != 0 || !strings.HasPrefix(out, "formation ") {
		t.Errorf("version: %d %s", code, out)
	}
}

func statusReport(t *testing.T) string {
	t.Helper()
	out, _ := mustRun(t, "status", "optics", "--json")
	r, _ := jsonDoc(t, out)["report"].(string)
	if !store.ValidDigest(r) {
		t.Fatalf("status report %q", r)
	}
	return r
}

// --explain names what changed as a person knows it: the source file, the
// parameter, the upstream stage.
func TestExplainNamesTheIngredient(t *testing.T) {
	dir := workspace(t)
	mustRun(t, "autorun", "optics")
	src := filepath.Join(dir, "courses", "optics", "sources", "light.md")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(raw, []byte("\nLight travels fast.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := mustRun(t, "mine", "optics", "--explain")
	if !strings.Contains(errs, "source file sources/light.md changed") || strings.Contains(errs, "sources/lenses.md") {
		t.Fatalf("mine --explain: %s", errs)
	}
	_, errs = mustRun(t, "smelt", "optics", "--explain")
	if !strings.Contains(errs, "input mine output (OreBundle) changed") {
		t.Fatalf("smelt --explain: %s", errs)
	}
	if _, errs = mustRun(t, "smelt", "optics", "--explain"); !strings.Contains(errs, "explain: cache hit") {
		t.Fatalf("rerun: %s", errs)
	}
}

// status counts the audit records of the output it shows, not every record
// ever written for the stage.
func TestStatusCountsTheShownOutput(t *testing.T) {
	dir := workspace(t)
	src := filepath.Join(dir, "courses", "optics", "sources", "light.md")
	raw, _ := os.ReadFile(src)
	// A sentence whose source is not allowed makes forge write rejections.
	mustRun(t, "autorun", "optics")
	forgeCounts := func() (map[string]any, int) {
		out, _ := mustRun(t, "status", "optics", "--json")
		for _, st := range jsonDoc(t, out)["stages"].([]any) {
			row := st.(map[string]any)
			if row["stage"] == "forge" {
				out, _ := mustRun(t, "audit", "list", "--subject", "optics", "--stage", "forge", "--json")
				return row["audit"].(map[string]any), len(jsonDoc(t, out)["records"].([]any))
			}
		}
		t.Fatal("no forge row")
		return nil, 0
	}
	first, total1 := forgeCounts()
	mustRun(t, "autorun", "optics") // all hits: the shown output's counts stay
	again, total2 := forgeCounts()
	if !mapsEqual(first, again) || total2 != total1 {
		t.Fatalf("a cache hit changed the counts: %v → %v (log %d → %d)", first, again, total1, total2)
	}
	if err := os.WriteFile(src, append(raw, []byte("\nGlass causes refraction.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "autorun", "optics")
	third, total3 := forgeCounts()
	sum := 0
	for _, n := range third {
		sum += int(n.(float64))
	}
	if total3 <= total1 || sum != total3-total1 {
		t.Fatalf("status shows %v (%d records) for the new output; the log grew from %d to %d", third, sum, total1, total3)
	}
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A failure under --json is a document with an error object; a stage that
// fails keeps its result document and gains the error.
func TestJSONFailuresAreDocuments(t *testing.T) {
	workspace(t)
	code, out, _ := runIn(t, "", "--json", "status", "nosuch")
	e, _ := jsonDoc(t, out)["error"].(map[string]any)
	if code != 66 || e["code"] != float64(66) || e["reason"] == "" || !strings.Contains(e["message"].(string), "unknown subject") {
		t.Fatalf("status nosuch --json: %d %s", code, out)
	}
	code, out, _ = runIn(t, "", "mine", "optics", "optics2", "--json")
	if e, _ := jsonDoc(t, out)["error"].(map[string]any); code != 2 || e["reason"] != "usage" {
		t.Fatalf("usage error --json: %d %s", code, out)
	}
	mustRun(t, "autorun", "optics")
	smelted, _ := mustRun(t, "status", "optics", "--json")
	var digest string
	for _, st := range jsonDoc(t, smelted)["stages"].([]any) {
		if row := st.(map[string]any); row["stage"] == "smelt" {
			digest = row["output"].(string)
		}
	}
	p := filepath.Join(".formation", "objects", "sha256", digest[:2], digest)
	_ = os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte("flipped"), 0o444); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runIn(t, "", "--json", "smelt", "optics")
	doc := jsonDoc(t, out)
	e, _ = doc["error"].(map[string]any)
	if code != 65 || doc["stage"] != "smelt" || e["reason"] != "corrupt_object" || e["code"] != float64(65) {
		t.Fatalf("corrupt smelt output --json: %d %s", code, out)
	}
}

// chat: a line over 64 KiB is one input_too_long refusal and the talk goes
// on; no prompt when stdin is not a terminal.
func TestChatLongLineAndPrompt(t *testing.T) {
	workspace(t)
	mustRun(t, "autorun", "optics")
	huge := strings.Repeat("light ", 70<<10/6)
	code, out, errs := runIn(t, huge+"\nWhat does refraction cause?\n", "chat", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || strings.Contains(errs, "> ") {
		t.Fatalf("chat: exit %d, %d lines, stderr %q", code, len(lines), errs)
	}
	first, second := jsonDoc(t, lines[0]), jsonDoc(t, lines[1])
	if first["refusal_reason"] != "input_too_long" || second["refusal_reason"] != "" {
		t.Fatalf("chat answers: %v / %v", first["refusal_reason"], second["refusal_reason"])
	}
	if !strings.Contains(errs, "nothing has been promoted") || strings.Count(errs, "nothing has been promoted") != 1 {
		t.Fatalf("chat on a store with nothing promoted: %q", errs)
	}
}

// ask outside the repository names the flag and the variable that find the
// packs; on no store or an empty one, ask says once that nothing has been
// promoted and answers, exit 0.
func TestAskOutsideTheRepositoryAndOnNoStore(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("FORMATION_PACKS_DIR", "")
	code, _, errs := runIn(t, "", "ask", "What is light?")
	if code != 77 || !strings.Contains(errs, "--packs-dir") || !strings.Contains(errs, "FORMATION_PACKS_DIR") {
		t.Fatalf("ask outside the repository: %d %s", code, errs)
	}
	t.Setenv("FORMATION_PACKS_DIR", filepath.Join(root, "packs"))
	code, out, errs := runIn(t, "", "ask", "What is light?")
	if code != 0 || strings.Count(errs, "nothing has been promoted") != 1 || !strings.Contains(out, "field coordinates") {
		t.Fatalf("ask on no store: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".formation")); !os.IsNotExist(err) {
		t.Fatal("ask created a store")
	}
	if _, err := store.Open(t.Context(), "empty"); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runIn(t, "", "--store", "empty", "ask", "What is light?")
	if code != 0 || strings.Count(errs, "nothing has been promoted") != 1 {
		t.Fatalf("ask on an empty store: %d %q", code, errs)
	}
}

func TestUnratifiedPacksWarnOnEveryStart(t *testing.T) {
	t.Setenv("CORE_ALLOW_UNRATIFIED_SAFETY", "1")
	for _, args := range [][]string{{"version"}, {"canon", "--sha256"}} {
		if code, _, errs := runIn(t, "{}", args...); code != 0 || !strings.Contains(errs, "CORE_ALLOW_UNRATIFIED_SAFETY=1") || !strings.Contains(errs, "WITHOUT their ratification check") {
			t.Fatalf("%v: no warning: %q", args, errs)
		}
	}
	t.Setenv("CORE_ALLOW_UNRATIFIED_SAFETY", "")
	if _, errs := mustRun(t, "version"); strings.Contains(errs, "warning") {
		t.Fatalf("a warning without the variable: %q", errs)
	}
}

// One report identifier: autorun's promote line, pasted with the two
// placeholders it explains filled in, promotes; promote accepts the seal as
// well and says which it resolved.
func TestPromoteHintWorksWhenPasted(t *testing.T) {
	dir := workspace(t)
	mustRun(t, "keygen", "--out", "curator.key")
	_, errs := mustRun(t, "autorun", "optics")
	var hint string
	for _, l := range strings.Split(errs, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "formation promote ") {
			hint = strings.TrimSpace(l)
		}
	}
	if hint == "" || !strings.Contains(hint, "file://"+dir) {
		t.Fatalf("no promote line with an absolute store: %s", errs)
	}
	hint = strings.ReplaceAll(hint, "TRUSTED_KEYS_FILE", filepath.Join(dir, "curator.key.pub"))
	hint = strings.ReplaceAll(hint, "KEY_FILE", filepath.Join(dir, "curator.key"))
	t.Chdir(t.TempDir()) // works from anywhere
	out, _ := mustRun(t, words(t, hint)[1:]...)
	if !regexp.MustCompile(`under report object [0-9a-f]{64} \(seal [0-9a-f]{64}\)`).MatchString(out) {
		t.Fatalf("promote output does not label the seal: %s", out)
	}
	// With the key files known to autorun, the line needs no editing.
	t.Chdir(dir)
	t.Setenv("FORMATION_PROMOTE_KEY", "curator.key")
	_, errs = mustRun(t, "autorun", "optics", "--trusted-keys", "curator.key.pub")
	if strings.Contains(errs, "KEY_FILE") || !strings.Contains(errs, filepath.Join(dir, "curator.key.pub")) {
		t.Fatalf("placeholders although the keys are known: %s", errs)
	}
	seal := ""
	st, err := store.OpenExisting(t.Context(), filepath.Join(dir, ".formation"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := st.Get(t.Context(), statusReport(t)) // through the store: objects are compressed at rest
	var rep map[string]any
	if json.Unmarshal(raw, &rep) == nil {
		seal, _ = rep["report_sha256"].(string)
	}
	_, errs = mustRun(t, "promote", seal, "--trusted-keys", "curator.key.pub")
	if !strings.Contains(errs, "is the seal of report object "+statusReport(t)) {
		t.Fatalf("promote by seal: %s", errs)
	}
}

// --help lists every environment variable the code reads: every flag's,
// the S3 ones and the rest.
func TestHelpListsEveryEnvironmentVariable(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	_, help, _ := runIn(t, "", "--help")
	all := help
	for _, v := range leavesOf(cli.NewApp(cli.IO{})) {
		code, out, _ := runIn(t, "", append(v, "--help")...)
		if code != 0 {
			t.Fatalf("%v --help: exit %d", v, code)
		}
		all += out
	}
	names := map[string]bool{}
	literal := regexp.MustCompile(`"((?:FORMATION|AWS|CORE)_[A-Z0-9_]+)"`)
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasSuffix(d.Name(), "test") || d.Name() == "testutil"):
			return filepath.SkipDir // test support (testutil, storetest, ledgertest, keytest) reads its own variables
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range literal.FindAllStringSubmatch(string(raw), -1) {
			names[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"FORMATION_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "FORMATION_STORE", "FORMATION_PROMOTE_KEY", "CI"} {
		names[must] = true
	}
	var missing []string
	for n := range names {
		if !strings.Contains(all, n) {
			missing = append(missing, n)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Fatalf("--help does not list %v", missing)
	}
	if !strings.Contains(help, "FORMATION_S3_ENDPOINT") || !strings.Contains(help, "FORMATION_<VERB>_<FLAG>") {
		t.Fatal("formation --help lacks the S3 variables or the rule")
	}
	t.Logf("%d variables found in the code, all listed", len(names))
}

// leavesOf lists the command paths of every runnable verb.
func leavesOf(app *ucli.App) [][]string {
	var out [][]string
	var walk func([]*ucli.Command, []string)
	walk = func(cmds []*ucli.Command, parent []string) {
		for _, c := range cmds {
			path := append(slices.Clone(parent), c.Name)
			if c.Action != nil {
				out = append(out, path)
			}
			walk(c.Subcommands, path)
		}
	}
	walk(app.Commands, nil)
	return out
}
