package cli

import (
	"context"
	"fmt"
	goio "io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"formation/mining"
	"formation/pipeline"
	"formation/smelting"
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
	sentences := &cli.BoolFlag{Name: "sentences", Usage: "run nothing: report every sentence of the latest mined texts with the candidates it yields or why it yields none (JSONL with --json)"}
	cmd := stageCommand(io, "smelt", "extract candidates citing byte spans of the mined texts", []cli.Flag{sentences},
		func(ctx context.Context, _ *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			return p.Smelt(ctx, subject)
		})
	run := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if !c.Bool("sentences") {
			return run(c)
		}
		if err := requireArgs(c, 1, "SUBJECT"); err != nil {
			return err
		}
		p, err := newPipeline(c, io)
		if err != nil {
			return err
		}
		reports, err := p.SmeltSentences(c.Context, c.Args().First())
		if err != nil {
			return err
		}
		return writeSentences(io.Stdout, reports, wantJSON(c))
	}
	return cmd
}

// writeSentences prints a sentence report: one JSON object per line under
// --json, otherwise one line per sentence (the text's URL and byte range,
// what it yielded or why not, the sentence) and a count per reason.
func writeSentences(w goio.Writer, reports []smelting.SentenceReport, asJSON bool) error {
	if asJSON {
		for _, r := range reports {
			if err := writeJSON(w, r); err != nil {
				return err
			}
		}
		return nil
	}
	var b strings.Builder
	reasons := map[string]int{}
	yielded := 0
	for _, r := range reports {
		fmt.Fprintf(&b, "%s [%d,%d) ", r.URL, r.Start, r.End)
		if len(r.Yielded) == 0 {
			reasons[r.Reason]++
			fmt.Fprintf(&b, "nothing (%s)", r.Reason)
		} else {
			yielded++
			for i, y := range r.Yielded {
				if i > 0 {
					b.WriteString("; ")
				}
				fmt.Fprintf(&b, "%s (%s)", y.Kind, strings.Join(y.Key, " | "))
			}
		}
		fmt.Fprintf(&b, "\n    %s\n", r.Text)
	}
	fmt.Fprintf(&b, "%d sentences: %d yielded candidates", len(reports), yielded)
	for _, k := range slices.Sorted(maps.Keys(reasons)) {
		fmt.Fprintf(&b, ", %d %s", reasons[k], k)
	}
	b.WriteString("\n")
	_, err := goio.WriteString(w, b.String())
	return err
}

func autorunCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "autorun",
		Usage:     "run mine, smelt, forge, compose, run and ratify; stop before promote",
		ArgsUsage: "SUBJECT",
		Flags:     append([]cli.Flag{explainFlag, issuedAtFlag}, mineFlags()...),
		Action: func(c *cli.Context) error {
			if err := requireArgs(c, 1, "SUBJECT"); err != nil {
				return err
			}
			p, err := newPipeline(c, io)
			if err != nil {
				return err
			}
			configureMine(c, io, p)
			p.IssuedAt = c.String("issued-at")
			results, err := p.Autorun(c.Context, c.Args().First())
			if wantJSON(c) {
				if results == nil {
					results = []stage.Result{}
				}
				if werr := writeJSON(io.Stdout, map[string]any{"schema_version": "1.0.0", "subject": c.Args().First(), "stages": results}); werr != nil && err == nil {
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
				fmt.Fprintf(io.Stderr, "autorun %s: ratified; promote with `formation promote --key KEY %s`\n", c.Args().First(), results[len(results)-1].Output)
			}
			return err
		},
	}
}
