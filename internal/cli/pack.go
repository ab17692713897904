package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/pipeline"
	"formation/signing"
)

func packCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "pack",
		Usage: "safety and identity packs",
		Subcommands: []*cli.Command{{
			Name:      "ratify",
			Usage:     "ratify a safety or identity pack through the pipeline and write its companion mastery report",
			ArgsUsage: "PACK_FILE...",
			Description: `Composes an identity_anchor course from the pack (its boundaries or axes as
concepts citing the exact bytes of their descriptions in the pack's canonical
form, the canned override attempts as counter-claims), runs it twice through
the real runtime in bootstrap mode (unratified packs allowed for this run
only), ratifies it, writes <pack>.mastery_report.json beside the pack and
embeds the report's digest in the pack. Packs holding floats are refused.
Idempotent: an existing report is kept, and no byte changes, when the pack
passes the runtime's ratification check with it (the check formation verify
runs) and its course and plan digests still match. --issued-at is needed only when a new report is written.

With --check nothing is written: each pack must pass that ratification check
as it is; a pack edited since its companion report exits 65
(companion_report_stale), any other failure exits with its own code. CI runs
it on every shipped pack.`,
			Flags:  []cli.Flag{issuedAtFlag(), &cli.BoolFlag{Name: "check", Usage: "write nothing; exit 65 when a pack changed since its companion report"}},
			Action: func(c *cli.Context) error { return runPackRatify(c, io) },
		}, {
			Name:      "check",
			Usage:     "enforce the versioning policy between two versions of a pack",
			ArgsUsage: "OLD_FILE NEW_FILE",
			Description: `Compares two versions of a safety or identity pack (not their ratification)
and checks that NEW's version moved by exactly the bump the policy requires:
a description or other text edit is a patch; a boundary or an identity axis
added is a minor; a boundary or axis removed, an axis's direction or weight
changed, or any threshold changed is a major and a new pack id (its _v<major>
suffix follows); a schema change is a major and a new schema_version. Exit 0
when the bump is right, 65 naming the rule broken.`,
			Action: func(c *cli.Context) error { return runPackCheck(c, io) },
		}, {
			Name:      "promote",
			Usage:     "sign a ratified pack's ratification with a pack key",
			ArgsUsage: "PACK_FILE",
			Description: `Signs an in-toto statement about the ratified pack (its id, version, content
digest and companion report) in a DSSE envelope with --key and writes it
beside the pack as <pack>.promotion.dsse.json. The pack must pass the
runtime's ratification check first. Pack keys are their own trust root: when
--trusted-pack-keys (FORMATION_TRUSTED_PACK_KEYS) is set, the runtime starts
only if the safety pack and the selected identity pack carry a valid
signature from one of them (exit 77 otherwise); --trusted-keys (curators)
neither replaces nor narrows it. Make a pack key with formation keygen. To
rotate, sign again with the new key and replace the trusted pack keys file.`,
			Flags:  []cli.Flag{&cli.StringFlag{Name: "key", Usage: "the pack signer's private key file (formation keygen)"}},
			Action: func(c *cli.Context) error { return runPackPromote(c, io) },
		}},
	}
}

// runPackCheck compares two versions of a pack under the versioning policy.
func runPackCheck(c *cli.Context, io IO) error {
	if c.NArg() != 2 {
		return exitcode.Newf(exitcode.Usage, "pack check: give OLD.json and NEW.json")
	}
	var docs [2]*canon.Object
	for i, path := range c.Args().Slice() {
		doc, err := readTolerant(path)
		if err != nil {
			return exitcode.With(exitcode.NotFound, fmt.Errorf("pack check: %s: %w", path, err))
		}
		obj, ok := doc.(*canon.Object)
		if !ok {
			return exitcode.Newf(exitcode.Rejected, "pack check: %s is not a JSON object", path)
		}
		docs[i] = obj
	}
	vc, err := packs.CheckVersion(docs[0], docs[1])
	if wantJSON(c) {
		if werr := writeJSON(io.Stdout, vc); werr != nil {
			return werr
		}
	} else {
		for _, ch := range vc.Changes {
			fmt.Fprintf(io.Stdout, "  %-5s %s\n", ch.Bump, ch.What)
		}
		if err == nil {
			fmt.Fprintf(io.Stdout, "ok: %s %s → %s is the %s bump its changes require\n", vc.PackID, vc.OldVersion, vc.NewVersion, vc.Required)
		}
	}
	return err
}

// runPackPromote signs a ratified pack's ratification.
func runPackPromote(c *cli.Context, io IO) error {
	if c.NArg() != 1 || c.String("key") == "" {
		return exitcode.Newf(exitcode.Usage, "pack promote: give one PACK.json and --key FILE")
	}
	key, err := signing.LoadSigningKey(c.String("key"))
	if err != nil {
		return err
	}
	st, err := packs.SignPack(c.Context, c.Args().First(), key)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		return writeJSON(io.Stdout, st)
	}
	fmt.Fprintf(io.Stdout, "signed %s %s (content %s, report %s) with key %s → %s\n", st.Predicate.PackID, st.Predicate.Version,
		short(st.Predicate.PackSHA256), short(st.Predicate.MasteryReportSHA256), short(key.KeyID), packs.SignaturePath(c.Args().First()))
	return nil
}

// runPackRatifyCheck is pack ratify --check: every pack must pass the
// runtime's ratification check as it stands.
func runPackRatifyCheck(c *cli.Context, io IO) error {
	var failed error
	for _, path := range c.Args().Slice() {
		v := VerifyFile(c.Context, path)
		verdict := "ratified and current"
		if !v.Valid {
			verdict = "NOT " + verdict + ": " + v.Reason
			if failed == nil {
				code := exitcode.SealInvalid
				if v.Code == string(packs.ReasonReportStale) || v.Kind != "pack" {
					code = exitcode.Rejected
				}
				failed = exitcode.Newf(code, "pack ratify --check: %s: %s", path, v.Reason)
			}
		}
		fmt.Fprintf(io.Stdout, "%s: %s\n", path, verdict)
	}
	return failed
}

func runPackRatify(c *cli.Context, io IO) error {
	if c.Bool("check") {
		return runPackRatifyCheck(c, io)
	}
	p, done, err := newPipeline(c, io)
	if err != nil {
		return err
	}
	defer done()
	var results []pipeline.PackResult
	for _, path := range c.Args().Slice() {
		res, err := p.RatifyPack(c.Context, path, c.String("issued-at"))
		if err != nil {
			return err
		}
		results = append(results, res)
		if !wantJSON(c) {
			state := "ratified, report written"
			if res.Kept {
				state = "existing report kept (course and plan unchanged)"
			}
			fmt.Fprintf(io.Stderr, "pack %s (%s): %s: report seal %s\n", res.PackID, res.Kind, state, res.ReportSHA256)
		}
	}
	if wantJSON(c) {
		return emit(io, map[string]any{"schema_version": "1.0.0", "packs": results})
	}
	return nil
}
