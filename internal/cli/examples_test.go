package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	ucli "github.com/urfave/cli/v2"

	"formation/internal/cli"
	"formation/internal/testutil"
	"formation/store"
)

// An example is one `formation …` line the documentation shows: in a fenced
// block of README.md or of a package README, or after "$ " in a --help text.
type example struct {
	source string // README path from the module root, or "help"
	line   string
}

// expectation is a row of testdata/examples.tsv: what running an example
// must give.
type expectation struct {
	example
	exit  int
	check string // out:TEXT, err:TEXT or json:KEY
}

// docExamples extracts every example, README.md first, then the package
// READMEs in path order, then the --help texts.
func docExamples(t *testing.T, root string) []example {
	t.Helper()
	files := []string{"README.md"}
	for _, pattern := range []string{"*/README.md", "*/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root, f)
			if !strings.Contains(rel, "testdata") {
				files = append(files, filepath.ToSlash(rel))
			}
		}
	}
	slices.Sort(files[1:])
	var out []example
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for _, l := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fenced = !fenced
				continue
			}
			if l = strings.TrimSpace(l); fenced && strings.HasPrefix(l, "formation ") {
				out = append(out, example{source: f, line: l})
			}
		}
	}
	var texts []string
	app := cli.NewApp(cli.IO{})
	texts = append(texts, app.Description)
	var walk func([]*ucli.Command)
	walk = func(cmds []*ucli.Command) {
		for _, c := range cmds {
			texts = append(texts, c.Description)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	for _, text := range texts {
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "$ formation ") {
				out = append(out, example{source: "help", line: strings.TrimPrefix(l, "$ ")})
			}
		}
	}
	return out
}

// expectations reads testdata/examples.tsv: exit, check, source, line.
func expectations(t *testing.T) []expectation {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "examples.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cols := strings.SplitN(l, "\t", 4)
		if len(cols) != 4 {
			t.Fatalf("examples.tsv: %q: want exit, check, source, line", l)
		}
		code, err := strconv.Atoi(cols[0])
		if err != nil || !(strings.HasPrefix(cols[1], "out:") || strings.HasPrefix(cols[1], "err:") || strings.HasPrefix(cols[1], "json:")) {
			t.Fatalf("examples.tsv: %q: bad exit or check", l)
		}
		out = append(out, expectation{example: example{source: cols[2], line: cols[3]}, exit: code, check: cols[1]})
	}
	return out
}

// words splits an example like a POSIX shell: quotes group, a # after a
// space starts a comment.
func words(t *testing.T, line string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == '#' && (i == 0 || line[i-1] == ' '):
			if in {
				out = append(out, cur.String())
			}
			return out
		case r == ' ':
			if in {
				out, in = append(out, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// Every documented example runs, in order, in a fresh copy of the courses
// and packs with a fresh store (S3 examples against the test server), and
// gives the exit code and the output property testdata/examples.tsv lists
// for it. An example deleted from the documentation, or one added without
// a row, fails the test. REPORT stands for the report object digest of
// optics at the time the example runs.
func TestDocumentedExamplesRun(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	found := docExamples(t, root)
	want := expectations(t)
	var wantEx []example
	for _, e := range want {
		wantEx = append(wantEx, e.example)
	}
	for _, e := range found {
		if !slices.Contains(wantEx, e) {
			t.Errorf("example without a row in testdata/examples.tsv: %s: %s", e.source, e.line)
		}
	}
	for _, e := range wantEx {
		if !slices.Contains(found, e) {
			t.Errorf("row for an example the documentation no longer shows: %s: %s", e.source, e.line)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	work := t.TempDir()
	for _, dir := range []string{"courses", "packs"} {
		if err := os.CopyFS(filepath.Join(work, dir), os.DirFS(filepath.Join(root, dir))); err != nil {
			t.Fatal(err)
		}
	}
	srv := testutil.StartS3(t)
	srv.SetEnv(t)
	if err := srv.Client(t).MakeBucket(t.Context(), "formation", minio.MakeBucketOptions{Region: srv.Region}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	for i, e := range want {
		args := words(t, e.line)
		for j, w := range args {
			if w == "REPORT" {
				args[j] = reportObject(t)
			}
		}
		var out, errb bytes.Buffer
		io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }}
		code := cli.Main(cli.NewApp(io), args)
		where := fmt.Sprintf("example %d (%s): %s", i+1, e.source, e.line)
		if code != e.exit {
			t.Errorf("%s: exit %d, want %d\nstdout: %.400s\nstderr: %.800s", where, code, e.exit, out.String(), errb.String())
			continue
		}
		kind, arg, _ := strings.Cut(e.check, ":")
		switch kind {
		case "out":
			if !strings.Contains(out.String(), arg) {
				t.Errorf("%s: stdout lacks %q: %.600s", where, arg, out.String())
			}
		case "err":
			if !strings.Contains(errb.String(), arg) {
				t.Errorf("%s: stderr lacks %q: %.600s", where, arg, errb.String())
			}
		case "json":
			var doc map[string]any
			dec := json.NewDecoder(&out)
			if err := dec.Decode(&doc); err != nil || dec.More() {
				t.Errorf("%s: stdout is not one JSON document: %v", where, err)
			} else if _, ok := doc[arg]; !ok {
				t.Errorf("%s: the document has no %q", where, arg)
			}
		}
	}
	t.Logf("%d documented examples ran", len(want))
}

// reportObject is the report object digest optics' ratify ref names in the
// working folder's store.
func reportObject(t *testing.T) string {
	t.Helper()
	s, err := store.OpenExisting(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := s.GetRef(t.Context(), "subjects/optics/ratify")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(v))
}
