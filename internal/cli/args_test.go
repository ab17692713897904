package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
)

// leaf is a runnable command of the app with its path from the root.
type leaf struct {
	path []string
	cmd  *cli.Command
}

// leaves lists every runnable command of app, sub-commands included, by
// walking the tree: a verb added tomorrow is in the table without a change
// here.
func leaves(cmds []*cli.Command, parent []string) []leaf {
	var out []leaf
	for _, c := range cmds {
		path := append(slices.Clone(parent), c.Name)
		if c.Action != nil {
			out = append(out, leaf{path: path, cmd: c})
		}
		out = append(out, leaves(c.Subcommands, path)...)
	}
	return out
}

func testIO() (IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Now: func() time.Time { return time.Unix(0, 0).UTC() }}, &out, &errb
}

// flagWords is a flag as a user types it, with a sample value.
func flagWords(f cli.Flag) []string {
	name := "--" + f.Names()[0]
	switch f.(type) {
	case *cli.BoolFlag:
		return []string{name}
	case *cli.IntFlag, *cli.Int64Flag:
		return []string{name, "7"}
	case *cli.DurationFlag:
		return []string{name, "7s"}
	}
	return []string{name, "sample-value"}
}

// positionals is a valid number of sample arguments for a command.
func positionals(t *testing.T, c *cli.Command) ([]string, arity) {
	t.Helper()
	a, err := parseArity(c.ArgsUsage)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	n := a.min
	if n == 0 && a.max != 0 {
		n = 1
	}
	args := make([]string, n)
	for i := range args {
		args[i] = fmt.Sprintf("arg%d", i+1)
	}
	return args, a
}

// The argument table: for every verb, every one of its flags written after
// the arguments (and a global flag after the verb) reaches urfave/cli as a
// flag, and the arguments as arguments; a surplus argument, an unknown flag
// and a missing sub-command are usage errors; `formation help VERB` works;
// every flag reads the environment variable the rule names.
func TestArgumentTableCoversEveryVerb(t *testing.T) {
	io, _, _ := testIO()
	app := NewApp(io)
	all := leaves(app.Commands, nil)
	if len(all) < 25 {
		t.Fatalf("only %d runnable commands found", len(all))
	}
	flagsChecked := 0
	for _, l := range all {
		t.Run(strings.Join(l.path, "_"), func(t *testing.T) {
			args, a := positionals(t, l.cmd)
			for _, f := range l.cmd.Flags {
				if findFlag(app.Flags, f.Names()[0]) != nil {
					t.Fatalf("flag --%s is both global and the verb's own", f.Names()[0])
				}
				if got, want := f.(cli.DocGenerationFlag).GetEnvVars(), []string{envName(l.path[0], f.Names()[0])}; !slices.Equal(got, want) {
					t.Errorf("--%s reads %v, want %v", f.Names()[0], got, want)
				}
				line := append(append(append([]string{"formation"}, l.path...), args...), flagWords(f)...)
				line = append(line, "--json", "--store", "file:///x")
				got, _, err := normalize(app, line, noEnv)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				want := append([]string{"formation", "--json", "--store", "file:///x"}, l.path...)
				want = append(want, flagWords(f)...)
				if len(args) > 0 {
					want = append(append(want, "--"), args...)
				}
				if !slices.Equal(got, want) {
					t.Errorf("normalize(%q) = %q, want %q", line, got, want)
				}
				flagsChecked++
			}
			if a.max >= 0 {
				extra := append(append(append([]string{"formation"}, l.path...), args...), make([]string, a.max-len(args))...)
				extra = append(extra, "surplus-word")
				_, _, err := normalize(app, slices.DeleteFunc(extra, func(s string) bool { return s == "" }), noEnv)
				if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), `"surplus-word"`) {
					t.Errorf("a surplus argument: %v", err)
				}
			}
			if a.min > 0 {
				_, _, err := normalize(app, append([]string{"formation"}, l.path...), noEnv)
				if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "missing") {
					t.Errorf("no argument: %v", err)
				}
			}
			_, _, err := normalize(app, append(append([]string{"formation"}, l.path...), "--no-such-flag"), noEnv)
			if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--no-such-flag") {
				t.Errorf("an unknown flag: %v", err)
			}
			got, _, err := normalize(app, append([]string{"formation", "help"}, l.path...), noEnv)
			if err != nil || !slices.Equal(got, append(append([]string{"formation"}, l.path...), "--help")) {
				t.Errorf("help %v: %q %v", l.path, got, err)
			}
		})
	}
	t.Logf("%d commands, %d flags after arguments", len(all), flagsChecked)
}

func noEnv(string) (string, bool) { return "", false }

// urfave/cli reads the normalised line as intended: for every verb, with
// its action replaced by a recorder, flags written after the arguments are
// set and the arguments are exactly the arguments.
func TestNormalisedLinesParse(t *testing.T) {
	io, _, errb := testIO()
	app := NewApp(io)
	for _, l := range leaves(app.Commands, nil) {
		args, _ := positionals(t, l.cmd)
		own := slices.DeleteFunc(slices.Clone(l.cmd.Flags), func(f cli.Flag) bool { return f == cli.HelpFlag })
		var words []string
		for _, f := range own {
			words = append(words, flagWords(f)...)
		}
		var seen []string
		var gotArgs []string
		l.cmd.Action = func(c *cli.Context) error {
			for _, f := range own {
				if c.IsSet(f.Names()[0]) {
					seen = append(seen, f.Names()[0])
				}
			}
			gotArgs = c.Args().Slice()
			if !wantJSON(c) || globalString(c, flagStore) != "file:///x" {
				return fmt.Errorf("global flags after the verb not read")
			}
			return nil
		}
		line := append(append(append([]string{"formation"}, l.path...), args...), words...)
		line = append(line, "--store", "file:///x", "--json")
		if code := Main(app, line); code != 0 {
			t.Errorf("%q: exit %d: %s", line, code, errb)
			continue
		}
		if len(seen) != len(own) || !slices.Equal(gotArgs, args) {
			t.Errorf("%v: flags set %v of %d, args %q want %q", l.path, seen, len(own), gotArgs, args)
		}
	}
}

func TestUnknownCommandsNameTheNearest(t *testing.T) {
	io, _, _ := testIO()
	app := NewApp(io)
	for _, c := range []struct {
		line []string
		want string
	}{
		{[]string{"formation", "stauts", "optics"}, "did you mean `formation status`?"},
		{[]string{"formation", "autorn", "optics"}, "did you mean `formation autorun`?"},
		{[]string{"formation", "audit", "lsit"}, "did you mean `formation audit list`?"},
		{[]string{"formation", "audit", "bogus"}, "one of: list"},
		{[]string{"formation", "audit"}, "missing sub-command"},
		{[]string{"formation"}, "missing command"},
		{[]string{"formation", "status", "--jsno"}, "did you mean --json?"},
		{[]string{"formation", "--jobs", "2", "autorun", "optics"}, "it is a flag of mine, run, autorun: put it after the verb"},
	} {
		_, _, err := normalize(app, c.line, noEnv)
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want exit 2 saying %q", c.line, err, c.want)
		}
	}
}

func TestParseArity(t *testing.T) {
	for usage, want := range map[string]arity{
		"": {0, 0}, "SUBJECT": {1, 1}, "FILE...": {1, -1}, "[SUBJECT]": {0, 1}, "[FILE...]": {0, -1}, "A [B]": {1, 2},
	} {
		if got, err := parseArity(usage); err != nil || got != want {
			t.Errorf("parseArity(%q) = %v, %v, want %v", usage, got, err, want)
		}
	}
	for _, bad := range []string{"[A] B", "FILE... B", `"QUESTION"`, "PACK.json", "a|b"} {
		if _, err := parseArity(bad); err == nil {
			t.Errorf("parseArity(%q) accepted", bad)
		}
	}
}

// A deprecated variable still sets its flag, with a warning; the rule's
// own variable or the flag itself wins over it; FORMATION_EXPECT_HEAD is
// read without a warning.
func TestLegacyEnvironment(t *testing.T) {
	io, _, _ := testIO()
	app := NewApp(io)
	env := func(kv map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	}
	got, warn, err := normalize(app, []string{"formation", "promote", "d"}, env(map[string]string{"FORMATION_CURATOR_KEY": "k.key"}))
	if err != nil || !slices.Contains(got, "--key=k.key") || len(warn) != 1 || !strings.Contains(warn[0], "FORMATION_PROMOTE_KEY") {
		t.Fatalf("legacy key: %q %q %v", got, warn, err)
	}
	got, warn, _ = normalize(app, []string{"formation", "promote", "d"}, env(map[string]string{"FORMATION_CURATOR_KEY": "old", "FORMATION_PROMOTE_KEY": "new"}))
	if slices.Contains(got, "--key=old") || len(warn) != 0 {
		t.Fatalf("the rule's variable must win: %q %q", got, warn)
	}
	got, _, _ = normalize(app, []string{"formation", "promote", "d", "--key", "flag.key"}, env(map[string]string{"FORMATION_CURATOR_KEY": "old"}))
	if slices.Contains(got, "--key=old") {
		t.Fatalf("the flag must win: %q", got)
	}
	got, warn, _ = normalize(app, []string{"formation", "check"}, env(map[string]string{"FORMATION_EXPECT_HEAD": "abc"}))
	if !slices.Contains(got, "--expect-head=abc") || len(warn) != 0 {
		t.Fatalf("FORMATION_EXPECT_HEAD: %q %q", got, warn)
	}
	for _, ln := range legacyNames() {
		if !strings.Contains(envOther, ln.env) {
			t.Errorf("--help does not mention %s", ln.env)
		}
	}
}
