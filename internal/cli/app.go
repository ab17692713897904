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
	"formation/internal/version"
	"formation/store"
)

// IO is where a command reads and writes; tests replace it.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time
}

// StdIO is the process's own streams and clock.
func StdIO() IO {
	return IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now}
}

// Global flag names.
const (
	flagStore       = "store"
	flagJSON        = "json"
	flagQuiet       = "quiet"
	flagTrustedKeys = "trusted-keys"
	flagPacksDir    = "packs-dir"
	flagCoursesDir  = "courses-dir"
)

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagStore, Usage: "object store: file://DIR (default ./.formation) or s3://bucket/prefix", EnvVars: []string{"FORMATION_STORE"}},
		&cli.BoolFlag{Name: flagJSON, Usage: "write exactly one JSON document (or NDJSON for streams) to stdout", EnvVars: []string{"FORMATION_JSON"}},
		&cli.BoolFlag{Name: flagQuiet, Aliases: []string{"q"}, Usage: "no progress or chatter on stderr", EnvVars: []string{"FORMATION_QUIET"}},
		&cli.StringFlag{Name: flagTrustedKeys, Usage: "file of trusted curator ed25519 public keys", EnvVars: []string{"FORMATION_TRUSTED_KEYS"}},
		&cli.StringFlag{Name: flagPacksDir, Usage: "folder holding safety/ and identity/ packs (default: ./packs found upward)", EnvVars: []string{"FORMATION_PACKS_DIR"}},
		&cli.StringFlag{Name: flagCoursesDir, Usage: "folder holding subject folders (default ./courses)", EnvVars: []string{"FORMATION_COURSES_DIR"}},
	}
}

// NewApp builds the `formation` application with every verb.
func NewApp(io IO) *cli.App {
	app := &cli.App{
		Name:      "formation",
		Usage:     "turn untrusted subject material into ratified, replay-proof knowledge",
		Version:   version.String(),
		Flags:     globalFlags(),
		Reader:    io.Stdin,
		Writer:    io.Stdout,
		ErrWriter: io.Stderr,
		Commands:  commands(io),
		// Main decides the exit code after RunContext returns, so that audit
		// writes and deferred cleanups of the command always finish first.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return exitcode.With(exitcode.Usage, err)
		},
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintf(c.App.ErrWriter, "formation: unknown command %q; see `formation --help`\n", name)
		},
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Metadata:             map[string]any{metaLocks: &heldLocks{}},
		After:                releaseLocks,
	}
	app.Description = exitCodeHelp + "\n\n" + s3Help
	markUsageErrors(app.Commands)
	return app
}

// markUsageErrors makes a flag error of any command exit 2.
func markUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return exitcode.With(exitcode.Usage, err)
		}
		markUsageErrors(c.Subcommands)
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
			app.Flags = append(app.Flags, c.Flags...)
			app.Action = c.Action
			app.Commands = nil
			return app
		}
	}
	panic("cli: no verb " + verb) // a build-time wiring bug, never input
}

const exitCodeHelp = `Exit codes: 0 ok (a cache hit included), 1 internal error, 2 usage error,
3 ratification gates failed, 65 input rejected (bad input, corrupt object,
hard halt; never retry), 66 missing input, 75 store unavailable (retry),
77 seal, signature or reviewer registry invalid, 130 interrupted.`

const s3Help = `S3 stores (--store s3://bucket/prefix): FORMATION_S3_ENDPOINT (host[:port],
or an http:// or https:// URL), FORMATION_S3_INSECURE=1 (plain http),
FORMATION_S3_TIMEOUT (per request attempt, a Go duration, default 30s),
FORMATION_S3_RETRY_BUDGET (how long one operation retries transient failures,
default 60s), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
AWS_REGION. A dead endpoint exits 75 within TIMEOUT + RETRY_BUDGET.`

// Main runs app with args and returns the process exit code. SIGINT and
// SIGTERM cancel the command's context.
func Main(app *cli.App, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := lockLost(app, app.RunContext(ctx, args))
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Of(err, storeExitCode)
	if ctx.Err() != nil && code == exitcode.Internal {
		code = exitcode.Interrupted
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(app.ErrWriter, "%s: %v\n", app.Name, err)
	}
	return code
}

// silentError carries an exit code for a result that the command has already
// reported in full (e.g. verify listing each invalid file).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func quietExit(code int) error { return exitcode.With(code, &silentError{code}) }

// storeExitCode classifies store errors; 0 means "not a store error".
func storeExitCode(err error) int {
	if code := store.ExitCode(err); code != exitcode.Internal {
		return code
	}
	return 0
}
