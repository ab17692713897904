// Package cli is Formation's command line: the `formation` verbs and the
// wiring shared by the one-stage binaries (`formation-forge` …). Commands are
// thin: they parse flags, open the store, call a stage or a package, print
// the result (one JSON document on stdout under --json, human text otherwise)
// and return an error whose exit code is one of Formation's process exit
// codes (package exitcode).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
	"formation/internal/gcpace"
	"formation/internal/version"
	"formation/packs"
	"formation/store"
)

// IO is where a command reads and writes; tests replace it.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time

	out *output // the --json document of the run (NewApp sets it)
}

// StdIO is the process's own streams and clock.
func StdIO() IO {
	return IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now}
}

// Global flag names.
const (
	flagStore           = "store"
	flagJSON            = "json"
	flagQuiet           = "quiet"
	flagTrustedKeys     = "trusted-keys"
	flagTrustedPackKeys = "trusted-pack-keys"
	flagPacksDir        = "packs-dir"
	flagCoursesDir      = "courses-dir"
)

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagStore, Usage: "object store: " + store.AcceptedURLs + " (default ./.formation)"},
		&cli.BoolFlag{Name: flagJSON, Usage: "write exactly one JSON document to stdout (run and chat: one line per step or turn, then the result); a failure's document has an \"error\" object"},
		&cli.BoolFlag{Name: flagQuiet, Aliases: []string{"q"}, Usage: "no progress or chatter on stderr"},
		&cli.StringFlag{Name: flagTrustedKeys, Usage: "file of trusted curator ed25519 public keys"},
		&cli.StringFlag{Name: flagTrustedPackKeys, Usage: "file of trusted pack ed25519 public keys: the runtime then starts only with packs a trusted key signed (formation pack promote)"},
		&cli.StringFlag{Name: flagPacksDir, Usage: "folder holding safety/ and identity/ packs (default: ./packs found upward)"},
		&cli.StringFlag{Name: flagCoursesDir, Usage: "folder holding subject folders (default ./courses)"},
	}
}

// NewApp builds the `formation` application with every verb. Flags may
// come before or after arguments (see normalize), and each reads the
// environment variable its name gives (see applyEnvRule).
func NewApp(io IO) *cli.App {
	if io.out == nil {
		io.out = &output{}
	}
	app := &cli.App{
		Name:      "formation",
		Usage:     "turn untrusted subject material into ratified, replay-proof knowledge",
		UsageText: "formation [global flags] VERB [flags] [arguments]   (flags may also follow the arguments; `--` ends them)",
		Version:   version.String(),
		Flags:     globalFlags(),
		Reader:    io.Stdin,
		Writer:    io.Stdout,
		ErrWriter: io.Stderr,
		Commands:  commands(io),
		Metadata:  map[string]any{outputKey: io.out},
		// Main decides the exit code after RunContext returns, so that audit
		// writes and deferred cleanups of the command always finish first.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return exitcode.With(exitcode.Usage, err)
		},
		HideHelpCommand: true,
		After:           releaseLocks,
	}
	app.Metadata[metaLocks] = &heldLocks{}
	app.Description = exitCodeHelp() + envOther
	applyEnvRule(app)
	prepareCommands(app.Commands)
	return app
}

// prepareCommands makes a flag error of any command exit 2 and takes the
// implicit `help` sub-command away (`formation help VERB` is read by
// normalize; a word "help" is an argument like any other).
func prepareCommands(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return exitcode.With(exitcode.Usage, err)
		}
		c.HideHelpCommand = true
		prepareCommands(c.Subcommands)
	}
}

// NewStageApp builds a one-stage binary (`formation-forge` …) around the same
// command as the `formation` verb, with the same global flags.
func NewStageApp(io IO, verb string) *cli.App {
	app := NewApp(io)
	for _, c := range app.Commands {
		if c.Name == verb {
			app.Name = "formation-" + verb
			app.Usage = c.Usage
			app.UsageText = "formation-" + verb + " [global options] " + strings.TrimPrefix(c.ArgsUsage, " ")
			app.ArgsUsage = c.ArgsUsage
			app.Flags = append(app.Flags, c.Flags...)
			app.Action = c.Action
			app.Commands = nil
			return app
		}
	}
	panic("cli: no verb " + verb) // a build-time wiring bug, never input
}

// exitCodeHelp is the exit-code table for `formation --help`.
func exitCodeHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	for _, r := range exitcode.Table() {
		fmt.Fprintf(&b, "   %3d  %s\n", r.Code, r.Meaning)
	}
	return b.String()
}

// Main runs app with args and returns the process exit code. SIGINT and
// SIGTERM cancel the command's context. The garbage collector is paced for
// a batch command (gcpace) unless GOGC or GOMEMLIMIT is set.
func Main(app *cli.App, args []string) int {
	defer gcpace.Start(gcpace.DefaultHeadroom)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, _ := app.Metadata[outputKey].(*output)
	if out == nil {
		out = &output{}
	}
	jsonMode := jsonRequested(args)
	norm, warnings, err := normalize(app, args, lookupEnv)
	if err == nil {
		jsonMode = jsonRequested(norm)
		printWarnings(app.ErrWriter, warnings)
		warnUnratified(app.ErrWriter)
		err = lockLost(app, app.RunContext(ctx, norm))
	}
	code := exitcode.Of(err)
	if err != nil && ctx.Err() != nil && code == exitcode.Internal {
		code = exitcode.Interrupted
	}
	var silent *silentError
	if err != nil && !errors.As(err, &silent) {
		fmt.Fprintf(app.ErrWriter, "%s: %v\n", app.Name, err)
	}
	if jsonMode {
		if werr := out.finish(app.Writer, err, code); werr != nil && code == exitcode.OK {
			fmt.Fprintf(app.ErrWriter, "%s: %v\n", app.Name, werr)
			code = exitcode.Internal
		}
	}
	return code
}

// warnUnratified says, on every start, that packs are loaded without their
// ratification check.
func warnUnratified(w io.Writer) {
	if os.Getenv(packs.EnvAllowUnratifiedSafety) == "1" {
		fmt.Fprintf(w, "warning: %s=1: safety and identity packs load WITHOUT their ratification check (development only)\n", packs.EnvAllowUnratifiedSafety)
	} else if os.Getenv(packs.EnvAllowUnratifiedIdentity) == "1" {
		fmt.Fprintf(w, "warning: %s=1: identity packs load WITHOUT their ratification check (development only)\n", packs.EnvAllowUnratifiedIdentity)
	}
}

// silentError carries an exit code for a result that the command has already
// reported in full (e.g. verify listing each invalid file).
// Its message goes only into a --json document's error object.
type silentError struct{ msg string }

func (e *silentError) Error() string { return e.msg }

func quietExit(code int, msg string) error { return exitcode.With(code, &silentError{msg}) }
