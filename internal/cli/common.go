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
		packCommand(io),
		allowCommand(io),
		evalCommand(io),
		ledgerCommand(io),
		claimCommand(io),
		reviewersCommand(io),
		checkCommand(io),
		gcCommand(io),
		showCommand(io),
		exportCommand(io),
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

// openStore opens the store named by --store (default ./.formation).
func openStore(c *cli.Context) (store.Store, error) {
	s, err := store.Open(c.Context, globalString(c, flagStore))
	if err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	return s, nil
}

// auditWriter returns the audit writer of a command.
func auditWriter(s store.Store, io IO) *audit.Writer {
	return &audit.Writer{Store: s, Now: io.Now, CodeVersion: version.String(), Secrets: audit.SecretsFromEnv()}
}

// requireArgs checks the number of positional arguments.
func requireArgs(c *cli.Context, min int, what string) error {
	if c.NArg() < min {
		return exitcode.Newf(exitcode.Usage, "%s: missing %s; see `formation %s --help`", c.Command.Name, what, c.Command.Name)
	}
	return nil
}

// auditStateError writes one audit record when a command stops on the
// reviewed state (a corrupt, missing or malformed object of it: exit 65; a
// head that is not the pinned one: 77) and returns err. A store failure
// passes as is; a failed audit write is reported beside err.
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
	if aerr := auditWriter(s, io).Append(c.Context, rec); aerr != nil {
		return errors.Join(err, fmt.Errorf("audit: %w", aerr))
	}
	return err
}
