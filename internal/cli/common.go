package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"formation/audit"
	"formation/canon"
	"formation/internal/exitcode"
	"formation/internal/version"
	"formation/reviewed"
	"formation/store"
)

// commands lists every verb of `formation`.
func commands(io IO) []*cli.Command {
	return []*cli.Command{
		canonCommand(io),
		verifyCommand(io),
		auditCommand(io),
		statusCommand(io),
		mineCommand(io),
		smeltCommand(io),
		forgeCommand(io),
		composeCommand(io),
		runCommand(io),
		ratifyCommand(io),
		autorunCommand(io),
		promoteCommand(io),
		keygenCommand(io),
		askCommand(io),
		chatCommand(io),
		reviewCommand(io),
		packCommand(io),
		allowCommand(io),
		evalCommand(io),
		ledgerCommand(io),
		claimCommand(io),
		reviewersCommand(io),
		checkCommand(io),
		versionCommand(io),
		gcCommand(io),
		showCommand(io),
		exportCommand(io),
	}
}

func versionCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of this build",
		Action: func(c *cli.Context) error {
			if wantJSON(c) {
				return emit(io, map[string]any{"schema_version": "1.0.0", "version": version.String()})
			}
			_, err := fmt.Fprintln(io.Stdout, "formation", version.String())
			return err
		},
	}
}

// wantJSON reports whether the global --json flag is set.
func wantJSON(c *cli.Context) bool {
	for _, lc := range c.Lineage() {
		if lc.IsSet(flagJSON) && lc.Bool(flagJSON) {
			return true
		}
	}
	return c.Bool(flagJSON)
}

// globalString reads a global flag from any level of the context lineage.
func globalString(c *cli.Context, name string) string {
	for _, lc := range c.Lineage() {
		if lc.IsSet(name) {
			return lc.String(name)
		}
	}
	return c.String(name)
}

// writeJSON writes v as one canonical JSON document and a newline.
func writeJSON(w io.Writer, v any) error {
	b, err := canon.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// openStore opens the existing store named by --store (default
// ./.formation) for a command that needs one: a store that does not exist
// is exit 66 and nothing is created. A mistyped URL is a usage error (2).
func openStore(c *cli.Context) (store.Store, error) {
	return storeFrom(store.OpenExisting(c.Context, globalString(c, flagStore)))
}

// createStore opens the store named by --store for a command that writes
// its results, creating a file:// folder that does not exist yet.
func createStore(c *cli.Context) (store.Store, error) {
	return storeFrom(store.Open(c.Context, globalString(c, flagStore)))
}

// storeName is the store --store names, for messages.
func storeName(c *cli.Context) string {
	if u := globalString(c, flagStore); u != "" {
		return u
	}
	return store.DefaultURL
}

func storeFrom(s store.Store, err error) (store.Store, error) {
	if errors.Is(err, store.ErrInvalid) {
		return nil, exitcode.With(exitcode.Usage, fmt.Errorf("--store: %w", err))
	}
	return s, err
}

// auditWriter returns the audit writer of a command.
func auditWriter(s store.Store, io IO) *audit.Writer {
	return &audit.Writer{Store: s, Now: io.Now, CodeVersion: version.String(), Secrets: audit.SecretsFromEnv()}
}

// appendAudit writes the audit records of a command that stops on what it
// found. A record that cannot be written (read-only credentials, a
// read-only folder) is reported on stderr as a warning: the command's own
// exit code, which says what it found, stays.
func appendAudit(c *cli.Context, io IO, s store.Store, recs ...audit.Record) {
	if err := auditWriter(s, io).Append(c.Context, recs...); err != nil {
		fmt.Fprintf(io.Stderr, "warning: the audit record(s) of %s could not be written: %v\n", c.Command.Name, err)
	}
}

// auditStateError writes one audit record when a command stops on the
// reviewed state (a corrupt, missing or malformed object of it: exit 65; a
// head that is not the pinned one: 77) and returns err. A store failure
// passes as is; a failed audit write is a warning (appendAudit).
func auditStateError(c *cli.Context, io IO, s store.Store, verb string, err error) error {
	var e *reviewed.Error
	if !errors.As(err, &e) || (e.Code != exitcode.Rejected && e.Code != exitcode.SealInvalid) {
		return err
	}
	kind := audit.KindHalt
	if e.Code == exitcode.SealInvalid {
		kind = audit.KindRejection
	}
	rec := audit.Record{Stage: verb, Subject: "_store", Kind: kind, ReasonCode: e.Reason, Key: reviewed.StateRef, Detail: e.Detail}
	appendAudit(c, io, s, rec)
	return err
}
