package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"formation/mining"
	"formation/pipeline"
	"formation/stage"
)

func mineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "jobs", Usage: "parallel readers (default: the number of CPUs); the bundle does not depend on it", EnvVars: []string{"FORMATION_JOBS"}},
		&cli.BoolFlag{Name: "enable-llm-source", Usage: "allow the LLM ideation adapter (off: an llm source is refused)", EnvVars: []string{"FORMATION_ENABLE_LLM_SOURCE"}},
		&cli.StringFlag{Name: "llm-command", Usage: "with --enable-llm-source: generate llm sources by running this command (no shell; prompt on stdin, model in FORMATION_LLM_MODEL) instead of reading their recorded output files", EnvVars: []string{"FORMATION_LLM_COMMAND"}},
	}
}

// configureMine applies the mining flags and, on a terminal, a progress bar
// on stderr (never under --json, --quiet or CI=true).
func configureMine(c *cli.Context, io IO, p *pipeline.Pipeline) {
	p.Jobs = c.Int("jobs")
	p.EnableLLM = c.Bool("enable-llm-source")
	if argv := strings.Fields(c.String("llm-command")); len(argv) > 0 {
		p.LLM = mining.CommandLLM{Argv: argv}
	}
	f, ok := io.Stderr.(*os.File)
	if quiet(c) || !ok || !term.IsTerminal(int(f.Fd())) {
		return
	}
	bar := progressbar.NewOptions64(-1, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription("mining"),
		progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	p.Progress = func(done, total int64) {
		bar.ChangeMax64(total)
		bar.Set64(done)
	}
}

func mineCommand(io IO) *cli.Command {
	return stageCommand(io, "mine", "read the subject's sources into an OreBundle (raw bytes and extracted texts stored as objects)", mineFlags(),
		func(ctx context.Context, c *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			configureMine(c, io, p)
			return p.Mine(ctx, subject)
		})
}

func smeltCommand(io IO) *cli.Command {
	return stageCommand(io, "smelt", "extract candidates citing byte spans of the mined texts", nil,
		func(ctx context.Context, _ *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			return p.Smelt(ctx, subject)
		})
}

func autorunCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "autorun",
		Usage:     "run mine, smelt, forge, compose, run and ratify; stop before promote",
		ArgsUsage: "SUBJECT | --subjects FILE --index N",
		Flags:     append([]cli.Flag{explainFlag, issuedAtFlag, subjectsFlag, indexFlag}, mineFlags()...),
		Action: func(c *cli.Context) error {
			subject, err := fleetSubject(c)
			if err != nil {
				return err
			}
			p, err := newPipeline(c, io)
			if err != nil {
				return err
			}
			configureMine(c, io, p)
			p.IssuedAt = c.String("issued-at")
			results, err := p.Autorun(c.Context, subject)
			if wantJSON(c) {
				if results == nil {
					results = []stage.Result{}
				}
				if werr := writeJSON(io.Stdout, map[string]any{"schema_version": "1.0.0", "subject": subject, "stages": results}); werr != nil && err == nil {
					err = werr
				}
				return err
			}
			for _, r := range results {
				if perr := reportStage(c, io, r); perr != nil && err == nil {
					err = perr
				}
			}
			if err == nil && !quietFlag(c) {
				fmt.Fprintf(io.Stderr, "autorun %s: ratified; promote with `formation promote --key KEY %s`\n", subject, results[len(results)-1].Output)
			}
			return err
		},
	}
}
