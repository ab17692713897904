package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/forge"
	"formation/ident"
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
				Name:  "add",
				Usage: "allow source digests with an authority tier",
				Description: "Adds each digest with the tier, label and curated flag given, or updates the\n" +
					"entry already listing it, and writes the file once; a bad digest writes nothing.\n" +
					"Every document of a folder at once:\n\n" +
					"   sha256sum courses/S/sources/* | cut -d' ' -f1 | xargs formation allow add --subject S --tier primary",
				ArgsUsage: "SHA256...",
				Flags: []cli.Flag{subject,
					&cli.StringFlag{Name: "tier", Usage: "primary, secondary or llm (required)"},
					&cli.StringFlag{Name: "label", Usage: "what the source is"},
					&cli.BoolFlag{Name: "curated", Usage: "hand-written candidates from this source may cite no byte range"},
				},
				Action: func(c *cli.Context) error {
					if c.String("tier") == "" {
						return exitcode.Newf(exitcode.Usage, "allow add: --tier primary|secondary|llm is required")
					}
					if err := digestArgs(c); err != nil {
						return err
					}
					var es []artifact.AllowedSource
					for _, d := range c.Args().Slice() {
						es = append(es, artifact.AllowedSource{SourceSHA: d, Tier: c.String("tier"), Label: c.String("label"), Curated: c.Bool("curated")})
					}
					return editAllowlist(c, io, func(cur []byte) ([]byte, error) { return forge.AllowAdd(cur, es...) })
				},
			},
			{
				Name:      "remove",
				Usage:     "remove source digests (one write for all)",
				ArgsUsage: "SHA256...",
				Flags:     []cli.Flag{subject},
				Action: func(c *cli.Context) error {
					if err := digestArgs(c); err != nil {
						return err
					}
					return editAllowlist(c, io, func(cur []byte) ([]byte, error) { return forge.AllowRemove(cur, c.Args().Slice()...) })
				},
			},
			{
				Name:  "exclude",
				Usage: "exclude evidence: a byte range of an extracted text (--text --start --end) or a sentence by its SHA-256 (--sentence), with a reason",
				Flags: []cli.Flag{subject,
					&cli.StringFlag{Name: "text", Usage: "the text_sha of an extracted text"},
					&cli.Int64Flag{Name: "start", Usage: "first byte of the excluded range", Value: -1},
					&cli.Int64Flag{Name: "end", Usage: "end of the excluded range (exclusive)", Value: -1},
					&cli.StringFlag{Name: "sentence", Usage: "the SHA-256 of the sentence's bytes"},
					&cli.StringFlag{Name: "reason", Usage: "why the evidence is excluded (required unless --remove)"},
					&cli.BoolFlag{Name: "remove", Usage: "remove the exclusion of this evidence instead"},
				},
				Action: func(c *cli.Context) error {
					e, err := exclusionFlags(c)
					if err != nil {
						return err
					}
					if c.Bool("remove") {
						return editAllowlist(c, io, func(cur []byte) ([]byte, error) { return forge.AllowUnexclude(cur, e) })
					}
					return editAllowlist(c, io, func(cur []byte) ([]byte, error) { return forge.AllowExclude(cur, e) })
				},
			},
			{
				Name:   "list",
				Usage:  "list the allowed sources, sorted by digest, and the curator's exclusions",
				Flags:  []cli.Flag{subject},
				Action: func(c *cli.Context) error { return listAllowlist(c, io) },
			},
		},
	}
}

// digestArgs refuses (exit 2) an allow add or remove with an argument that
// is not a source's SHA-256, before anything is written, saying what to
// give: a user who names the source file itself is told how to get its
// digest. (The argument count is checked before, with the verb's usage
// line.)
func digestArgs(c *cli.Context) error {
	verb := "allow " + c.Command.Name
	for _, arg := range c.Args().Slice() {
		if ident.ValidDigest(arg) {
			continue
		}
		if info, err := os.Stat(arg); err == nil && !info.IsDir() {
			return exitcode.Newf(exitcode.Usage, "%s: %q is a file, not its digest: give its SHA-256 (sha256sum %s prints it)", verb, arg, arg)
		}
		return exitcode.Newf(exitcode.Usage, "%s: %q is not a SHA-256 (64 lowercase hex characters; sha256sum FILE prints a file's)", verb, arg)
	}
	return nil
}

// exclusionFlags reads the evidence an exclude command names: either a text
// range (all three of --text, --start and --end) or --sentence.
func exclusionFlags(c *cli.Context) (forge.Exclusion, error) {
	if c.NArg() > 0 {
		return forge.Exclusion{}, exitcode.Newf(exitcode.Usage, "allow exclude takes no arguments; name the evidence with --text/--start/--end or --sentence")
	}
	e := forge.Exclusion{TextSHA: c.String("text"), SentenceSHA: c.String("sentence"), Reason: c.String("reason")}
	ranged := c.IsSet("text") || c.IsSet("start") || c.IsSet("end")
	switch {
	case ranged == c.IsSet("sentence"):
		return e, exitcode.Newf(exitcode.Usage, "allow exclude: give either --text with --start and --end, or --sentence")
	case ranged && !(c.IsSet("text") && c.IsSet("start") && c.IsSet("end")):
		return e, exitcode.Newf(exitcode.Usage, "allow exclude: --text, --start and --end go together")
	case !c.Bool("remove") && !c.IsSet("reason"):
		return e, exitcode.Newf(exitcode.Usage, "allow exclude: --reason is required")
	}
	if ranged {
		start, end := c.Int64("start"), c.Int64("end")
		e.Start, e.End = &start, &end
	}
	return e, nil
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
	a, err := forge.LoadAllowlist(raw)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	entries, excludes := a.Entries(), a.Exclusions()
	if wantJSON(c) {
		doc := map[string]any{"schema_version": "1.0.0", "entries": entries}
		if len(excludes) > 0 {
			doc["exclude"] = excludes
		}
		return emit(io, doc)
	}
	for _, e := range entries {
		curated := ""
		if e.Curated {
			curated = " curated"
		}
		fmt.Fprintf(io.Stdout, "%s %-9s%s %s\n", e.SourceSHA, e.Tier, curated, e.Label)
	}
	for _, e := range excludes {
		if e.IsRange() {
			fmt.Fprintf(io.Stdout, "exclude text %s [%d,%d) %s\n", e.TextSHA, *e.Start, *e.End, e.Reason)
		} else {
			fmt.Fprintf(io.Stdout, "exclude sentence %s %s\n", e.SentenceSHA, e.Reason)
		}
	}
	return nil
}
