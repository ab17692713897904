package cli

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
	"formation/promote"
	"formation/signing"
)

func promoteCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "promote",
		Usage:     "apply a ratified course to the reviewed knowledge, signed by a curator",
		ArgsUsage: "REPORT_DIGEST",
		Description: `REPORT_DIGEST is the object digest of a stored mastery report. Promote
verifies its seal (exit 77), that it is ratified (exit 3), the course's
prerequisites and that the validated set is the report's, reviews every
concept and triple, signs an in-toto statement in a DSSE envelope with --key
(which must be one of --trusted-keys, exit 77 otherwise), and moves the
reviewed state (knowledge/state: the reviewed knowledge, the mastered-courses
index and the envelope, in one step) to its next state, whose digest it prints
for pinning (ledger and check --expect-head). Promoting the same report again
does nothing and exits 0. A newer report of a promoted course replaces it only
with --supersede; it prints the facts it adds and removes, and refuses to
remove any (exit 65, removal_not_allowed) unless --allow-removal is given.
Formats and reason codes: promote/README.md.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "key", Usage: "the curator's private key file (formation keygen)", EnvVars: []string{"FORMATION_CURATOR_KEY"}},
			&cli.BoolFlag{Name: "supersede", Usage: "replace the course's current promotion with this newer report", EnvVars: []string{"FORMATION_PROMOTE_SUPERSEDE"}},
			&cli.BoolFlag{Name: "allow-removal", Usage: "let --supersede remove facts from the reviewed knowledge (each removal is audited)", EnvVars: []string{"FORMATION_PROMOTE_ALLOW_REMOVAL"}},
			&cli.StringFlag{Name: "vts", Usage: "object digest of the validated set (default: ref index/validated/<validated_set_sha>)", EnvVars: []string{"FORMATION_PROMOTE_VTS"}},
			&cli.StringFlag{Name: "envelope-out", Usage: "also write the promotion's DSSE envelope to this file", EnvVars: []string{"FORMATION_PROMOTE_ENVELOPE_OUT"}},
		},
		Action: func(c *cli.Context) error { return runPromote(c, io) },
	}
}

func runPromote(c *cli.Context, io IO) error {
	if err := requireArgs(c, 1, "REPORT_DIGEST"); err != nil {
		return err
	}
	if c.NArg() > 1 {
		return exitcode.Newf(exitcode.Usage, "promote: one report digest at a time")
	}
	keyPath, trustedPath := c.String("key"), globalString(c, flagTrustedKeys)
	if keyPath == "" || trustedPath == "" {
		return exitcode.Newf(exitcode.Usage, "promote: --key FILE and the global --trusted-keys FILE are both required")
	}
	key, err := signing.LoadSigningKey(keyPath)
	if err != nil {
		return err
	}
	trusted, err := signing.LoadTrustedKeys(trustedPath)
	if err != nil {
		return err
	}
	s, err := openWriteStore(c)
	if err != nil {
		return err
	}
	p := &promote.Promoter{Store: s, Audit: auditWriter(s, io)}
	res, err := p.Promote(c.Context, promote.Request{Report: c.Args().First(), VTS: c.String("vts"),
		Supersede: c.Bool("supersede"), AllowRemoval: c.Bool("allow-removal"), Key: key, Trusted: trusted})
	if err != nil {
		return err
	}
	if out := c.String("envelope-out"); out != "" && res.Envelope != "" {
		raw, err := s.Get(c.Context, res.Envelope.String())
		if err != nil {
			return fmt.Errorf("promote: read envelope %s: %w", res.Envelope, err)
		}
		if err := os.WriteFile(out, raw, 0o644); err != nil {
			return fmt.Errorf("promote: write %s: %w", out, err)
		}
	}
	if wantJSON(c) {
		return writeJSON(io.Stdout, res)
	}
	printPromotion(io, res)
	return nil
}

func printPromotion(io IO, res promote.Result) {
	switch {
	case res.Resigned:
		fmt.Fprintf(io.Stdout, "signed again: course %s under report %s (its envelope no longer verified); envelope %s; reviewed state %s\n",
			res.CourseID, res.ReportSHA256, res.Envelope, res.State)
		return
	case res.Idempotent:
		fmt.Fprintf(io.Stdout, "already promoted: course %s under report %s; nothing to do\n", res.CourseID, res.ReportSHA256)
		return
	case res.Superseded != "":
		fmt.Fprintf(io.Stdout, "promoted course %s under report %s, superseding report %s\n", res.CourseID, res.ReportSHA256, res.Superseded)
	default:
		fmt.Fprintf(io.Stdout, "promoted course %s under report %s\n", res.CourseID, res.ReportSHA256)
	}
	fmt.Fprintf(io.Stdout, "  %d concept(s), %d triple(s), %d counter-claim(s) reviewed; envelope %s\n",
		res.PromotedConcepts, res.PromotedTriples, res.PromotedCounters, res.Envelope)
	fmt.Fprintf(io.Stdout, "  facts: %d added, %d removed; reviewed state %s\n", len(res.Added), len(res.Removed), res.State)
	if res.Superseded != "" {
		for _, f := range res.Added {
			fmt.Fprintf(io.Stdout, "  + %s\n", f)
		}
		for _, f := range res.Removed {
			fmt.Fprintf(io.Stdout, "  - %s\n", f)
		}
	}
}
