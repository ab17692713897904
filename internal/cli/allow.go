package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/forge"
	"formation/internal/exitcode"
	"formation/store"
)

func allowCommand(io IO) *cli.Command {
	subject := &cli.StringFlag{Name: "subject", Usage: "the subject whose allowlist.yaml to edit (required)"}
	return &cli.Command{
		Name:  "allow",
		Usage: "edit a subject's source allow-list (courses/<subject>/allowlist.yaml)",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "allow a source digest with an authority tier",
				ArgsUsage: "SHA256",
				Flags: []cli.Flag{subject,
					&cli.StringFlag{Name: "tier", Usage: "primary, secondary or llm (required)"},
					&cli.StringFlag{Name: "label", Usage: "what the source is"},
					&cli.BoolFlag{Name: "curated", Usage: "hand-written candidates from this source may cite no byte range"},
				},
				Action: func(c *cli.Context) error {
					if c.String("tier") == "" {
						return exitcode.Newf(exitcode.Usage, "allow add: --tier primary|secondary|llm is required")
					}
					e := artifact.AllowedSource{SourceSHA: c.Args().First(), Tier: c.String("tier"), Label: c.String("label"), Curated: c.Bool("curated")}
					return editAllowlist(c, io, func(cur []byte) ([]byte, error) { return forge.AllowAdd(cur, e) })
				},
			},
			{
				Name:      "remove",
				Usage:     "remove a source digest",
				ArgsUsage: "SHA256",
				Flags:     []cli.Flag{subject},
				Action: func(c *cli.Context) error {
					return editAllowlist(c, io, func(cur []byte) ([]byte, error) { return forge.AllowRemove(cur, c.Args().First()) })
				},
			},
			{
				Name:   "list",
				Usage:  "list the allowed sources, sorted by digest",
				Flags:  []cli.Flag{subject},
				Action: func(c *cli.Context) error { return listAllowlist(c, io) },
			},
		},
	}
}

func allowlistPath(c *cli.Context) (string, error) {
	s := c.String("subject")
	if s == "" {
		return "", exitcode.Newf(exitcode.Usage, "allow %s: --subject S is required", c.Command.Name)
	}
	if err := store.ValidSubjectID(s); err != nil {
		return "", exitcode.With(exitcode.Usage, err)
	}
	dir := globalString(c, flagCoursesDir)
	if dir == "" {
		dir = "courses"
	}
	if _, err := os.Stat(filepath.Join(dir, s)); err != nil {
		return "", exitcode.Newf(exitcode.NotFound, "no subject folder %s", filepath.Join(dir, s))
	}
	return filepath.Join(dir, s, "allowlist.yaml"), nil
}

func readAllowlist(path string) ([]byte, error) {
	cur, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return cur, err
}

func editAllowlist(c *cli.Context, io IO, edit func([]byte) ([]byte, error)) error {
	path, err := allowlistPath(c)
	if err != nil {
		return err
	}
	cur, err := readAllowlist(path)
	if err != nil {
		return err
	}
	next, err := edit(cur)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, next, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if !wantJSON(c) {
		fmt.Fprintf(io.Stderr, "wrote %s\n", path)
	}
	return listAllowlistFile(c, io, next)
}

func listAllowlist(c *cli.Context, io IO) error {
	path, err := allowlistPath(c)
	if err != nil {
		return err
	}
	cur, err := readAllowlist(path)
	if err != nil {
		return err
	}
	return listAllowlistFile(c, io, cur)
}

func listAllowlistFile(c *cli.Context, io IO, raw []byte) error {
	entries, err := forge.AllowList(raw)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	if wantJSON(c) {
		return emit(io, map[string]any{"schema_version": "1.0.0", "entries": entries})
	}
	for _, e := range entries {
		curated := ""
		if e.Curated {
			curated = " curated"
		}
		fmt.Fprintf(io.Stdout, "%s %-9s%s %s\n", e.SourceSHA, e.Tier, curated, e.Label)
	}
	return nil
}
