package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/store"
)

func auditCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "read the append-only audit records",
		Subcommands: []*cli.Command{{
			Name:  "list",
			Usage: "list audit records, oldest first",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "subject", Usage: "only this subject"},
				&cli.StringFlag{Name: "stage", Usage: "only this stage"},
			},
			Action: func(c *cli.Context) error { return runAuditList(c, io) },
		}},
	}
}

func runAuditList(c *cli.Context, io IO) error {
	f := audit.Filter{Subject: c.String("subject"), Stage: c.String("stage")}
	if f.Subject != "" {
		if err := store.ValidSubjectID(f.Subject); err != nil {
			return exitcode.With(exitcode.Usage, err)
		}
	}
	s, err := openStore(c)
	if err != nil {
		return err
	}
	recs, err := audit.List(c.Context, s, f)
	if err != nil {
		return err
	}
	if wantJSON(c) {
		if recs == nil {
			recs = []audit.Record{}
		}
		return emit(io, map[string]any{"schema_version": "1.0.0", "records": recs})
	}
	for _, r := range recs {
		fmt.Fprintf(io.Stdout, "%s %-8s %-10s %-9s %s %s %s\n", r.Time, r.Stage, r.Subject, r.Kind, r.ReasonCode, r.Key, r.Detail)
	}
	if !wantJSON(c) {
		fmt.Fprintf(io.Stderr, "%d record(s)\n", len(recs))
	}
	return nil
}
