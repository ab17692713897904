package cli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"formation/audit"
	"formation/canon"
	"formation/internal/exitcode"
	"formation/internal/version"
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
