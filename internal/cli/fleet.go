package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
)

// A fleet of subjects on a fixed list runs as a Kubernetes Indexed Job: each
// pod runs `formation autorun --subjects FILE --index $(JOB_COMPLETION_INDEX)`
// over the list a ConfigMap mounts as FILE.
const (
	flagSubjects = "subjects"
	flagIndex    = "index"
)

// fleetFlags are autorun's flags for picking its subject from a list.
func fleetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagSubjects, Usage: "take the subject from `FILE`, one subject id a line (blank lines and # comments skipped): the one at --index"},
		&cli.IntFlag{Name: flagIndex, Usage: "the position `N` (from 0) in --subjects of the subject to run; an Indexed Job passes $(JOB_COMPLETION_INDEX)"},
	}
}

// fleetSubject is the subject a command runs: its SUBJECT argument, or the
// --index-th subject of --subjects. A list that is not there exits 66; an
// index outside it, or both ways at once, is a usage error.
func fleetSubject(c *cli.Context) (string, error) {
	list := c.String(flagSubjects)
	switch {
	case list == "" && c.IsSet(flagIndex):
		return "", exitcode.Newf(exitcode.Usage, "%s: --index picks a subject from --subjects FILE", c.Command.Name)
	case list == "":
		if c.NArg() != 1 {
			return "", exitcode.Newf(exitcode.Usage, "%s: give a SUBJECT, or --subjects FILE --index N", c.Command.Name)
		}
		return c.Args().First(), nil
	case c.NArg() > 0:
		return "", exitcode.Newf(exitcode.Usage, "%s: a SUBJECT argument and --subjects: give one", c.Command.Name)
	case !c.IsSet(flagIndex):
		return "", exitcode.Newf(exitcode.Usage, "%s: --subjects needs --index N", c.Command.Name)
	}
	raw, err := os.ReadFile(list)
	if errors.Is(err, fs.ErrNotExist) {
		return "", exitcode.Newf(exitcode.NotFound, "%s: --subjects %s: no such file", c.Command.Name, list)
	} else if err != nil {
		return "", fmt.Errorf("%s: --subjects: %w", c.Command.Name, err)
	}
	subjects := subjectLines(string(raw))
	i := c.Int(flagIndex)
	if i < 0 || i >= len(subjects) {
		return "", exitcode.Newf(exitcode.Usage, "%s: --index %d: %s lists %d subjects", c.Command.Name, i, list, len(subjects))
	}
	return subjects[i], nil
}

// subjectLines are the subject ids of a list: one a line, trimmed, without
// blank lines and # comments.
func subjectLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}
