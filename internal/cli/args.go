package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
)

// This file is the one place where a command line is read before urfave/cli
// parses it. urfave/cli (like Go's flag package) stops reading flags at the
// first positional argument, so `formation status optics --json` would take
// --json for an argument; it also ignores surplus arguments and runs nothing
// for an unknown command. normalize rewrites the line into the one shape
// urfave/cli reads without surprise:
//
//	prog [global flags] verb [sub-command] [verb flags] [-- arguments]
//
// after checking it: every flag is known (global flags may appear anywhere
// before `--`), every command and sub-command exists (an unknown one is
// named with the nearest known one), and the number of arguments is what
// the command's ArgsUsage says. Each refusal is a usage error (exit 2) that
// says how to write the line instead.

// arity is how many positional arguments a command takes; max < 0 means
// any number.
type arity struct{ min, max int }

// parseArity reads a command's ArgsUsage: space-separated words, NAME for
// one required argument, NAME... for one or more, [NAME] for an optional
// one, [NAME...] for any number. An empty ArgsUsage takes none.
func parseArity(usage string) (arity, error) {
	var a arity
	for _, w := range strings.Fields(usage) {
		optional := strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]")
		name := strings.TrimSuffix(strings.TrimPrefix(w, "["), "]")
		many := strings.HasSuffix(name, "...")
		name = strings.TrimSuffix(name, "...")
		if name == "" || strings.ContainsAny(name, "[]|-\"") || name != strings.ToUpper(name) || a.max < 0 {
			return arity{}, fmt.Errorf("ArgsUsage %q: cannot read %q (want NAME, NAME..., [NAME] or [NAME...], last if repeated)", usage, w)
		}
		if !optional {
			if a.min != a.max {
				return arity{}, fmt.Errorf("ArgsUsage %q: a required argument after an optional one", usage)
			}
			a.min++
		}
		a.max++
		if many {
			a.max = -1
		}
	}
	return a, nil
}

// node is a level of the command tree: the app's root or a command.
type node struct {
	path      []string // command names from the root
	flags     []cli.Flag
	subs      []*cli.Command
	argsUsage string
	runnable  bool // has an action of its own
}

func rootNode(app *cli.App) node {
	return node{flags: app.Flags, subs: app.Commands, argsUsage: app.ArgsUsage, runnable: app.Action != nil}
}

func commandNode(parent node, c *cli.Command) node {
	return node{path: append(slices.Clone(parent.path), c.Name), flags: c.Flags, subs: c.Subcommands,
		argsUsage: c.ArgsUsage, runnable: c.Action != nil}
}

// findFlag returns the flag of flags called name, if any.
func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// takesValue reports whether a flag reads the next word as its value.
func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

// line is a command line being sorted.
type line struct {
	globals, flags, args []string
	cmd                  node
	help, version        bool
}

// normalize checks args (args[0] is the program) against app and returns
// them in the shape described at the top of this file, with the flags that
// legacy environment variables set (and the warnings they print). A refusal
// is a usage error.
func normalize(app *cli.App, args []string, getenv func(string) (string, bool)) ([]string, []string, error) {
	if len(args) == 0 {
		return args, nil, nil
	}
	root := rootNode(app)
	l := line{cmd: root}
	words := args[1:]
	if len(words) > 0 && words[0] == "help" && len(app.Commands) > 0 {
		words, l.help = words[1:], true // formation help VERB [SUB]
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			l.args = append(l.args, words[i+1:]...)
			break
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			n, err := l.flag(root, words, i)
			if err != nil {
				return nil, nil, err
			}
			i += n
			continue
		}
		if len(l.cmd.subs) > 0 && len(l.args) == 0 {
			sub, err := subcommand(app, l.cmd, w)
			if err != nil {
				return nil, nil, err
			}
			l.cmd = commandNode(l.cmd, sub)
			continue
		}
		l.args = append(l.args, w)
	}
	if err := l.check(app); err != nil {
		return nil, nil, err
	}
	legacy, warnings := legacyFlags(l.cmd, l.flags, getenv)
	l.flags = append(legacy, l.flags...)
	return l.assemble(args[0]), warnings, nil
}

// flag sorts the flag at words[i] (and its value) into the command's flags
// or the global ones and returns how many extra words it consumed.
func (l *line) flag(root node, words []string, i int) (int, error) {
	w := words[i]
	name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
	var dst *[]string
	var f cli.Flag
	switch {
	case name == "help" || name == "h":
		l.help = true
		return 0, nil
	case (name == "version" || name == "v") && len(l.cmd.path) == 0 && !l.cmd.runnable:
		l.version = true
		return 0, nil
	}
	if len(l.cmd.path) > 0 {
		if f = findFlag(l.cmd.flags, name); f != nil {
			dst = &l.flags
		}
	}
	if f == nil {
		if f = findFlag(root.flags, name); f != nil {
			dst = &l.globals
		}
	}
	if f == nil {
		return 0, l.unknownFlag(root, w, name)
	}
	*dst = append(*dst, w)
	if !takesValue(f) || hasValue {
		return 0, nil
	}
	if i+1 >= len(words) {
		return 0, usagef("%sflag %s needs a value", l.prefix(), w)
	}
	*dst = append(*dst, words[i+1])
	return 1, nil
}

func (l *line) unknownFlag(root node, w, name string) error {
	var names []string
	for _, fl := range append(slices.Clone(l.cmd.flags), root.flags...) {
		names = append(names, fl.Names()...)
	}
	hint := ""
	if verbs := verbsWithFlag(l.cmd, name); len(verbs) > 0 {
		hint = fmt.Sprintf("; it is a flag of %s: put it after the verb, as in `formation %s %s …`", strings.Join(verbs, ", "), verbs[len(verbs)-1], w)
	} else if near := nearest(name, names); near != "" {
		hint = fmt.Sprintf("; did you mean --%s?", near)
	}
	return usagef("%sunknown flag %s%s (see `%s --help`)", l.prefix(), w, hint, l.name())
}

// verbsWithFlag lists the commands under n, one level down, that take the
// flag name: a verb's flag written before the verb.
func verbsWithFlag(n node, name string) []string {
	var verbs []string
	for _, c := range n.subs {
		if findFlag(c.Flags, name) != nil {
			verbs = append(verbs, c.Name)
		}
	}
	return verbs
}

// subcommand finds the command called name under n.
func subcommand(app *cli.App, n node, name string) (*cli.Command, error) {
	var names []string
	for _, c := range n.subs {
		if c.HasName(name) {
			return c, nil
		}
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	where := strings.TrimSpace(app.Name + " " + strings.Join(n.path, " "))
	what := "unknown command"
	if len(n.path) > 0 {
		what = strings.Join(n.path, " ") + ": unknown sub-command"
	}
	hint := ""
	if near := nearest(name, names); near != "" {
		hint = fmt.Sprintf("; did you mean `%s %s`?", where, near)
	}
	return nil, usagef("%s %q%s (one of: %s)", what, name, hint, strings.Join(names, ", "))
}

// check applies the rules that need the whole line: a command that has
// sub-commands needs one, and a command's arguments must fit its
// ArgsUsage. Help and version skip them.
func (l *line) check(app *cli.App) error {
	if l.help || l.version {
		return nil
	}
	if len(l.cmd.subs) > 0 && !l.cmd.runnable {
		var names []string
		for _, c := range l.cmd.subs {
			names = append(names, c.Name)
		}
		what := "command"
		if len(l.cmd.path) > 0 {
			what = "sub-command"
		}
		return usagef("%smissing %s (one of: %s); see `%s --help`", l.prefix(), what, strings.Join(names, ", "), l.nameIn(app))
	}
	a, err := parseArity(l.cmd.argsUsage)
	if err != nil {
		return exitcode.With(exitcode.Internal, err) // a wiring bug, caught by the table test
	}
	usage := strings.TrimSpace(l.nameIn(app) + " [flags] " + l.cmd.argsUsage)
	switch {
	case a.max >= 0 && len(l.args) > a.max:
		extra := l.args[a.max:]
		return usagef("%sunexpected argument(s) %s; usage: %s (flags may come before or after arguments)",
			l.prefix(), quoteAll(extra), usage)
	case len(l.args) < a.min:
		return usagef("%smissing %s; usage: %s", l.prefix(), l.cmd.argsUsage, usage)
	}
	return nil
}

func (l *line) assemble(prog string) []string {
	out := append([]string{prog}, l.globals...)
	out = append(out, l.cmd.path...)
	out = append(out, l.flags...)
	switch {
	case l.help:
		return append(out, "--help")
	case l.version:
		return append(out, "--version")
	case len(l.args) > 0:
		out = append(out, "--")
		out = append(out, l.args...)
	}
	return out
}

// prefix begins a message about the command: "mine: ", or nothing at the root.
func (l *line) prefix() string {
	if len(l.cmd.path) == 0 {
		return ""
	}
	return strings.Join(l.cmd.path, " ") + ": "
}

func (l *line) name() string { return strings.TrimSpace("formation " + strings.Join(l.cmd.path, " ")) }

func (l *line) nameIn(app *cli.App) string {
	return strings.TrimSpace(app.Name + " " + strings.Join(l.cmd.path, " "))
}

func usagef(format string, args ...any) error { return exitcode.Newf(exitcode.Usage, format, args...) }

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " ")
}

// nearest returns the candidate closest to word by edit distance, if it is
// close enough to be a plausible typo (at most a third of the word).
func nearest(word string, candidates []string) string {
	best, bestD := "", len(word)/3+1
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count
// one, so "stauts" is one step from "status").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
