package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/export"
	"formation/internal/exitcode"
)

func exportCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a subject's triples, concepts, audit records or run events, or a domain's lane results, as Parquet, Arrow or JSON lines",
		ArgsUsage: "KIND NAME",
		Description: `Writes one file DIR/<kind>.<ext> (parquet, arrow or jsonl) with the rows of
one KIND, of the subject or domain NAME:

  triples SUBJECT    every relation, counter-claim and quarantined triple of
                     the subject's validated set (the forge's latest output)
  concepts SUBJECT   every concept of that validated set
  audit SUBJECT      the subject's audit records, oldest first
  events SUBJECT     the TurnEvents of the subject's latest run, pass by step
  lanes DOMAIN       every case of the domain's latest lane results

The three formats hold the same rows and columns (listed in the README);
the same store exports the same bytes. Exit 66 when the subject has no such
output yet.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: export.Parquet, Usage: "parquet, arrow or jsonl"},
			&cli.StringFlag{Name: "out", Usage: "folder to write into (created if missing)"},
		},
		Action: func(c *cli.Context) error { return runExport(c, io) },
	}
}

// exportResult is the --json document of `formation export`.
type exportResult struct {
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Format  string   `json:"format"`
	Path    string   `json:"path"`
	Rows    int      `json:"rows"`
	Columns []string `json:"columns"`
}

func runExport(c *cli.Context, io IO) error {
	if c.NArg() != 2 {
		return exitcode.Newf(exitcode.Usage, "export: give KIND and SUBJECT (or lanes DOMAIN); got %q", c.Args().Slice())
	}
	if c.String("out") == "" {
		return exitcode.Newf(exitcode.Usage, "export: --out DIR is required")
	}
	format := c.String("format")
	if !contains(export.Formats(), format) {
		return exitcode.Newf(exitcode.Usage, "export: --format %q: want %s", format, strings.Join(export.Formats(), ", "))
	}
	kind, name := c.Args().Get(0), c.Args().Get(1)
	s, err := openStore(c)
	if err != nil {
		return err
	}
	t, err := export.Read(c.Context, s, kind, name)
	if err != nil {
		return err
	}
	path, err := export.Write(t, format, c.String("out"))
	if err != nil {
		return err
	}
	res := exportResult{Kind: kind, Name: name, Format: format, Path: path, Rows: len(t.Rows), Columns: []string{}}
	for _, col := range t.Columns {
		res.Columns = append(res.Columns, col.Name)
	}
	if wantJSON(c) {
		return writeJSON(io.Stdout, res)
	}
	if !quietFlag(c) {
		fmt.Fprintf(io.Stdout, "%s: %d rows of %s %s (%s)\n", path, res.Rows, kind, name, format)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
