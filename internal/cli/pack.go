package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"formation/pipeline"
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
runs) and its course and plan digests still match. --issued-at is needed only when a new report is written.`,
			Flags:  []cli.Flag{issuedAtFlag()},
			Action: func(c *cli.Context) error { return runPackRatify(c, io) },
		}},
	}
}

func runPackRatify(c *cli.Context, io IO) error {
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
