package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/promote"
	"formation/signing"
	"formation/store"
)

func promoteCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "promote",
		Usage:     "apply a ratified course to the reviewed knowledge, signed by a curator",
		ArgsUsage: "REPORT",
		Description: `REPORT names a stored mastery report by its object digest (what autorun,
ratify and status print) or by its seal (the report_sha256 inside it);
promote says which one it resolved. Promote verifies the seal (exit 77), that it is ratified (exit 3), the course's
prerequisites and that the validated set is the report's, reviews every
concept and triple, signs an in-toto statement in a DSSE envelope with --key
(which must be one of --trusted-keys, exit 77 otherwise), and moves the
reviewed state (knowledge/state: the reviewed knowledge, the mastered-courses
index and the envelope, in one step) to its next state, whose digest it prints
for pinning (ledger and check --expect-head). Promoting the same report again
does nothing and exits 0. A newer report of a promoted course replaces it only
with --supersede; it prints the facts it adds and removes, and refuses to
remove any (exit 65, removal_not_allowed) unless --allow-removal is given.
Formats and reason codes: promote/README.md.

Example (REPORT: the report object digest autorun printed):

   $ formation promote REPORT --key curator.key --trusted-keys curator.key.pub`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "key", Usage: "the curator's private key file (formation keygen)"},
			&cli.BoolFlag{Name: "supersede", Usage: "replace the course's current promotion with this newer report"},
			&cli.BoolFlag{Name: "allow-removal", Usage: "let --supersede remove facts from the reviewed knowledge (each removal is audited)"},
			&cli.StringFlag{Name: "vts", Usage: "object digest of the validated set (default: ref index/validated/<validated_set_sha>)"},
			&cli.StringFlag{Name: "envelope-out", Usage: "also write the promotion's DSSE envelope to this file"},
		},
		Action: func(c *cli.Context) error { return runPromote(c, io) },
	}
}

func runPromote(c *cli.Context, io IO) error {
	keyPath, trustedPath := c.String("key"), globalString(c, flagTrustedKeys)
	if keyPath == "" || trustedPath == "" {
		return exitcode.Newf(exitcode.Usage, "promote: --key FILE and --trusted-keys FILE are both required (FORMATION_PROMOTE_KEY, FORMATION_TRUSTED_KEYS)")
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
	report, err := resolveReport(c, io, s, c.Args().First())
	if err != nil {
		return err
	}
	p := &promote.Promoter{Store: s, Audit: auditWriter(s, io)}
	res, err := p.Promote(c.Context, promote.Request{Report: report, VTS: c.String("vts"),
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
		return emit(io, res)
	}
	printPromotion(io, res)
	return nil
}

// resolveReport returns the object digest of the report REPORT names: the
// digest itself when the store holds that object, else the object of the
// subject whose latest ratify output carries that seal. It says on stderr
// which one it resolved. Anything else passes through for promote to refuse.
func resolveReport(c *cli.Context, io IO, s store.Store, given string) (string, error) {
	if !store.ValidDigest(given) {
		return given, nil
	}
	if ok, err := s.Has(c.Context, given); err != nil || ok {
		if ok && !quietFlag(c) {
			fmt.Fprintf(io.Stderr, "promote: %s is a report object digest\n", short(given))
		}
		return given, err
	}
	refs, err := s.ListRefs(c.Context, "subjects/")
	if err != nil {
		return "", err
	}
	for _, ref := range refs {
		if !strings.HasSuffix(ref, "/ratify") {
			continue
		}
		val, _, err := s.GetRef(c.Context, ref)
		if err != nil {
			return "", err
		}
		obj := strings.TrimSpace(string(val))
		raw, err := s.Get(c.Context, obj)
		if err != nil {
			continue // promote reports the object's own problem when it is named
		}
		rep, err := artifact.Decode[artifact.MasteryReport](raw)
		if err == nil && rep.ReportSHA256 == given {
			if !quietFlag(c) {
				fmt.Fprintf(io.Stderr, "promote: %s is the seal of report object %s (%s)\n", short(given), obj, ref)
			}
			return obj, nil
		}
	}
	return given, nil
}

func printPromotion(io IO, res promote.Result) {
	report := fmt.Sprintf("report object %s (seal %s)", res.ReportObject, res.ReportSHA256)
	switch {
	case res.Resigned:
		fmt.Fprintf(io.Stdout, "signed again: course %s under %s (its envelope no longer verified); envelope %s; reviewed state %s\n",
			res.CourseID, report, res.Envelope, res.State)
		return
	case res.Idempotent:
		fmt.Fprintf(io.Stdout, "already promoted: course %s under %s; nothing to do\n", res.CourseID, report)
		return
	case res.Superseded != "":
		fmt.Fprintf(io.Stdout, "promoted course %s under %s, superseding the report with seal %s\n", res.CourseID, report, res.Superseded)
	default:
		fmt.Fprintf(io.Stdout, "promoted course %s under %s\n", res.CourseID, report)
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
