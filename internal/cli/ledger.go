package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/audit"
	"formation/courses"
	"formation/internal/exitcode"
	"formation/ledger"
	"formation/reviewed"
	"formation/signing"
	"formation/store"
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
verify also exits 77, and so does any seal, signature or stored object that
fails verification (a promotion envelope, a mastery report, a lane result, a
link of the reviewed-state chain), each with an audit record; a lane result
that merely no longer counts (an older lane version) demotes its row and
exits 0. --expect-head DIGEST (or --expect-head-file FILE holding the digest
on one line; FORMATION_EXPECT_HEAD) exits 77 when the reviewed state is not
that one: pin the state promote printed to detect a rollback. --json writes
the report (ledger.Report).`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "domain", Usage: "only this domain"},
			&cli.StringFlag{Name: "registry", Value: defaultRegistry, Usage: "reviewer registry file"},
		}, expectHeadFlags()...),
		Action: func(c *cli.Context) error { return runLedger(c, io) },
	}
}

func runLedger(c *cli.Context, io IO) error {
	trusted, err := trustedKeys(c)
	if err != nil {
		return err
	}
	expect, err := expectedHead(c)
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
		return auditStateError(c, io, s, "ledger", inputError("ledger", err))
	}
	if wantJSON(c) {
		err = emit(io, rep)
	} else {
		printLedger(io, rep)
	}
	if err != nil {
		return err
	}
	if err := auditIntegrity(c, io, s, "ledger", rep.Integrity); err != nil {
		return err
	}
	if err := reviewed.CheckHead(reviewed.Snapshot{Head: rep.StateHead}, expect); err != nil {
		return auditStateError(c, io, s, "ledger", err)
	}
	return registryExit(rep.Registry)
}

// auditIntegrity writes one audit record per integrity failure and returns
// exit 77 naming them, or nil when there are none.
func auditIntegrity(c *cli.Context, io IO, s store.Store, verb string, fails []ledger.IntegrityFailure) error {
	if len(fails) == 0 {
		return nil
	}
	recs := make([]audit.Record, len(fails))
	parts := make([]string, len(fails))
	for i, f := range fails {
		subject := f.Domain
		if subject == "" {
			subject = "_store"
		}
		recs[i] = audit.Record{Stage: verb, Subject: subject, Kind: audit.KindRejection, ReasonCode: "integrity_failure", Key: f.Object, Detail: f.Reason}
		parts[i] = f.Object + ": " + f.Reason
	}
	err := exitcode.Newf(exitcode.SealInvalid, "%d integrity failure(s): %s", len(fails), strings.Join(parts, "; "))
	appendAudit(c, io, s, recs...)
	return err
}

// expectHeadFlags are the flags that pin the reviewed state.
func expectHeadFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "expect-head", Usage: "exit 77 unless the reviewed state (knowledge/state) is this digest"},
		&cli.StringFlag{Name: "expect-head-file", Usage: "like --expect-head, the digest read from the first line of FILE"},
	}
}

// expectedHead reads --expect-head or --expect-head-file ("" when neither).
func expectedHead(c *cli.Context) (string, error) {
	head, file := strings.TrimSpace(c.String("expect-head")), c.String("expect-head-file")
	switch {
	case head != "" && file != "":
		return "", exitcode.Newf(exitcode.Usage, "%s: give --expect-head or --expect-head-file, not both", c.Command.Name)
	case file != "":
		raw, err := os.ReadFile(file)
		if err != nil {
			return "", exitcode.With(exitcode.NotFound, fmt.Errorf("%s: --expect-head-file: %w", c.Command.Name, err))
		}
		head, _, _ = strings.Cut(string(raw), "\n")
		head = strings.TrimSpace(head)
	}
	if head != "" && !store.ValidDigest(head) {
		return "", exitcode.Newf(exitcode.Usage, "%s: expected head %q is not 64 lowercase hex", c.Command.Name, head)
	}
	return head, nil
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
	head := rep.StateHead
	if head == "" {
		head = "none (nothing promoted)"
	}
	fmt.Fprintf(io.Stdout, "reviewed state %s\n", head)
	for _, f := range rep.Integrity {
		fmt.Fprintf(io.Stdout, "INTEGRITY FAILURE %s %s: %s\n", f.Domain, f.Object, f.Reason)
	}
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
