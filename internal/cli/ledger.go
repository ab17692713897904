package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/courses"
	"formation/internal/exitcode"
	"formation/ledger"
	"formation/signing"
)

// defaultRegistry is the reviewer registry read when --registry is not given.
const defaultRegistry = "reviewers.yaml"

func ledgerCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "ledger",
		Usage: "place every domain on the capability ladder (blocked … audit-passed)",
		Description: `For each domain of courses/domains.yaml (or only --domain D): its status,
the value of every predicate and the reason each unmet one fails (ladder:
ledger/README.md). Promotions are verified against --trusted-keys; claims
come from the reviewer registry (--registry, default ./reviewers.yaml).

A registry that is missing, unparsable or invalid grants nothing: every row
stays below audit-passed, its reason names the registry error, and the
command exits 77 after printing the rows. A claim whose signature does not
verify also exits 77. --json writes the report (ledger.Report).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "domain", Usage: "only this domain", EnvVars: []string{"FORMATION_LEDGER_DOMAIN"}},
			&cli.StringFlag{Name: "registry", Value: defaultRegistry, Usage: "reviewer registry file", EnvVars: []string{"FORMATION_LEDGER_REGISTRY"}},
		},
		Action: func(c *cli.Context) error { return runLedger(c, io) },
	}
}

func runLedger(c *cli.Context, io IO) error {
	if c.NArg() > 0 {
		return exitcode.Newf(exitcode.Usage, "ledger: no arguments; use --domain D")
	}
	trusted, err := trustedKeys(c)
	if err != nil {
		return err
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	rep, err := ledger.Build(c.Context, ledger.Sources{Store: s, CoursesDir: coursesDir(c), RegistryPath: c.String("registry"),
		Trusted: trusted}, c.String("domain"))
	if err != nil {
		return inputError("ledger", err)
	}
	if wantJSON(c) {
		err = writeJSON(io.Stdout, rep)
	} else {
		printLedger(io, rep)
	}
	if err != nil {
		return err
	}
	return registryExit(rep.Registry)
}

// registryExit is 77 when the registry failed or a claim's signature did
// not verify; the rows are already printed, so the exit carries no message
// beyond a one-line summary on stderr.
func registryExit(st ledger.RegistryStatus) error {
	switch {
	case !st.Valid:
		return exitcode.Newf(exitcode.SealInvalid, "reviewer registry invalid, nothing can be audit-passed: %s", st.Error)
	case len(st.ClaimErrors) > 0:
		parts := make([]string, len(st.ClaimErrors))
		for i, e := range st.ClaimErrors {
			parts[i] = e.Domain + ": " + e.Error
		}
		return exitcode.Newf(exitcode.SealInvalid, "claim signature invalid: %s", strings.Join(parts, "; "))
	}
	return nil
}

func printLedger(io IO, rep ledger.Report) {
	reg := "valid"
	if !rep.Registry.Valid {
		reg = "INVALID: " + rep.Registry.Error
	}
	fmt.Fprintf(io.Stdout, "reviewer registry %s: %s\n", rep.Registry.Path, reg)
	fmt.Fprintf(io.Stdout, "%-24s %-18s %s\n", "DOMAIN", "STATUS", "AUDIT-PASSED REASON")
	for _, r := range rep.Domains {
		fmt.Fprintf(io.Stdout, "%-24s %-18s %s\n", r.Domain, r.Status, r.AuditPassedReason)
		for _, why := range []struct{ rung, reason string }{
			{"seeded", r.SeededReason}, {"grounded", r.GroundedReason}, {"reasoning-capable", r.ReasoningCapableReason}} {
			if why.reason != "" {
				fmt.Fprintf(io.Stdout, "  not %s: %s\n", why.rung, why.reason)
			}
		}
		for _, e := range r.Evidence {
			verdict := "pass"
			if !e.Pass {
				verdict = "FAIL " + e.Reason
			}
			fmt.Fprintf(io.Stdout, "  lane %s/%s %s %s\n", e.Lane, e.Split, e.Timestamp, verdict)
		}
	}
}

// trustedKeys loads --trusted-keys; without it no promotion verifies (the
// rows say so). A file that does not load is an error (77).
func trustedKeys(c *cli.Context) (*signing.TrustedKeys, error) {
	path := globalString(c, flagTrustedKeys)
	if path == "" {
		return nil, nil
	}
	t, err := signing.LoadTrustedKeys(path)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// coursesDir is --courses-dir, default ./courses.
func coursesDir(c *cli.Context) string {
	if d := globalString(c, flagCoursesDir); d != "" {
		return d
	}
	return "courses"
}

// inputError maps the errors of reading domains and question files: a
// missing file or domain is 66, a rejected one 65; anything else keeps its
// own classification (the store's, for instance).
func inputError(verb string, err error) error {
	var ve *courses.ValidationError
	switch {
	case errors.As(err, &ve):
		return exitcode.With(exitcode.Rejected, fmt.Errorf("%s: %w", verb, err))
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, ledger.ErrUnknownDomain):
		return exitcode.With(exitcode.NotFound, fmt.Errorf("%s: %w", verb, err))
	}
	return err
}
