package deploytest

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	ucli "github.com/urfave/cli/v2"

	"formation/internal/cli"
)

// sampleVars stand for the Argo variables a container's command and args
// use, and the stages the stage template runs.
var sampleVars = map[string]string{
	"inputs.parameters.subject": "optics", "inputs.parameters.store": "s3://formation/prod",
	"inputs.parameters.shard": "0", "inputs.parameters.shards": "4",
}

var stageNames = []string{"mine", "smelt", "forge", "compose", "run", "ratify"}

// invocations are the command lines a container runs: its command (or the
// image's entry point) and args, with sample values for Argo's variables
// (each stage for the stage template) and for $(JOB_COMPLETION_INDEX).
func invocations(t *testing.T, c container, entrypoint []string) [][]string {
	t.Helper()
	argv := append([]string{}, c.c.Command...)
	if len(argv) == 0 {
		argv = append(argv, entrypoint...)
	}
	argv = append(argv, c.c.Args...)
	var out [][]string
	stages := []string{""}
	if strings.Contains(strings.Join(argv, " "), "{{inputs.parameters.stage}}") {
		stages = stageNames
	}
	for _, st := range stages {
		vars := map[string]string{"inputs.parameters.stage": st}
		for k, v := range sampleVars {
			vars[k] = v
		}
		line := make([]string, len(argv))
		for i, a := range argv {
			s, err := substitute(a, vars)
			if err != nil {
				t.Fatalf("%s: %v", c.where, err)
			}
			line[i] = strings.ReplaceAll(s, "$(JOB_COMPLETION_INDEX)", "0")
		}
		out = append(out, line)
	}
	return out
}

// app is the command line a binary of the image runs, every action
// replaced by one that records how many arguments it was given.
func app(t *testing.T, binary string, positional *int) *ucli.App {
	t.Helper()
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Now: time.Now}
	var a *ucli.App
	if binary == "formation" {
		a = cli.NewApp(io)
	} else {
		verb, ok := strings.CutPrefix(binary, "formation-")
		if !ok || !contains(stageNames, verb) {
			t.Fatalf("%s is not a binary of the image", binary)
		}
		a = cli.NewStageApp(io, verb)
	}
	record := func(c *ucli.Context) error { *positional = c.NArg(); return nil }
	var walk func([]*ucli.Command)
	walk = func(cmds []*ucli.Command) {
		for _, c := range cmds {
			if c.Action != nil {
				c.Action = record
			}
			walk(c.Subcommands)
		}
	}
	if a.Action != nil {
		a.Action = record
	}
	walk(a.Commands)
	return a
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Every command line of every manifest parses with the binary's own flags
// (built in process: a flag the CLI does not have, or a value of the wrong
// type, fails) and names one subject.
func TestManifestFlagsExist(t *testing.T) {
	m := manifests(t)
	ep, _ := dockerfile(t).Final().Last("ENTRYPOINT")
	lines := 0
	for _, c := range m.containers() {
		for _, argv := range invocations(t, c, ep.Args) {
			positional := -1
			a := app(t, path.Base(argv[0]), &positional)
			a.ExitErrHandler = func(*ucli.Context, error) {}
			if err := a.RunContext(context.Background(), argv); err != nil {
				t.Errorf("%s: %v: %v", c.where, argv, err)
				continue
			}
			subjects := positional
			if contains(argv, "--subjects") {
				subjects++
			}
			if subjects != 1 {
				t.Errorf("%s: %v: %d subjects", c.where, argv, subjects)
			}
			lines++
		}
	}
	if lines < 10 {
		t.Fatalf("parsed %d command lines", lines)
	}
}

// Every environment variable the manifests and the image set is one the
// program reads: a flag's variable, or a name the module's own code reads
// (a string literal of its non-test sources).
func TestManifestEnvironmentExists(t *testing.T) {
	m := manifests(t)
	known := map[string]bool{}
	positional := 0
	for _, bin := range append([]string{"formation"}, prefixed("formation-", stageNames)...) {
		a := app(t, bin, &positional)
		var walk func([]ucli.Flag, []*ucli.Command)
		walk = func(flags []ucli.Flag, cmds []*ucli.Command) {
			for _, f := range flags {
				if ev, ok := f.(interface{ GetEnvVars() []string }); ok {
					for _, e := range ev.GetEnvVars() {
						known[e] = true
					}
				}
			}
			for _, c := range cmds {
				walk(c.Flags, c.Subcommands)
			}
		}
		walk(a.Flags, a.Commands)
	}
	literals := sourceLiterals(t)
	used := map[string]string{}
	for _, c := range m.containers() {
		for _, e := range c.c.Env {
			used[e.Name] = c.where
		}
		for _, ef := range c.c.EnvFrom {
			if cm := m.ConfigMaps[ef.ConfigMapRef.Name]; cm != nil {
				for k := range cm.Data {
					used[ef.Prefix+k] = "ConfigMap " + cm.Name
				}
			}
		}
	}
	for _, kv := range dockerfile(t).Final().Env() {
		used[kv[0]] = "deploy/Dockerfile"
	}
	for name, where := range used {
		if !known[name] && !literals[name] {
			t.Errorf("%s sets %s, which the program does not read", where, name)
		}
	}
	if len(used) < 6 {
		t.Fatalf("only %d variables", len(used))
	}
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// sourceLiterals are the string literals of the main module's non-test Go
// files (this test module and test support left out).
func sourceLiterals(t *testing.T) map[string]bool {
	t.Helper()
	root := repoRoot(t)
	out := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || rel == filepath.Join("deploy", "deploytest") || rel == filepath.Join("internal", "testutil")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out[s] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
