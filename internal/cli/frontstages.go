package cli

import (
	"context"
	"fmt"
	goio "io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/mining"
	"formation/pipeline"
	"formation/smelting"
	"formation/stage"
)

func mineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "jobs", Usage: "parallel workers: mining's readers, the run stage's runtimes (default: the number of CPUs); no output depends on it"},
		&cli.BoolFlag{Name: "enable-llm-source", Usage: "allow the LLM ideation adapter (off: an llm source is refused)"},
		&cli.StringFlag{Name: "llm-command", Usage: "with --enable-llm-source: generate llm sources by running this command (no shell; prompt on stdin, model in FORMATION_LLM_MODEL) instead of reading their recorded output files"},
	}
}

// configureMine applies the mining flags.
func configureMine(c *cli.Context, p *pipeline.Pipeline) {
	p.Jobs = c.Int("jobs")
	p.EnableLLM = c.Bool("enable-llm-source")
	if argv := strings.Fields(c.String("llm-command")); len(argv) > 0 {
		p.LLM = mining.CommandLLM{Argv: argv}
	}
}

func mineCommand(io IO) *cli.Command {
	return stageCommand(io, "mine", "read the subject's sources into an OreBundle (raw bytes and extracted texts stored as objects)", mineFlags(),
		func(ctx context.Context, c *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			configureMine(c, p)
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
		p, done, err := newPipeline(c, io)
		if err != nil {
			return err
		}
		defer done()
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
		ArgsUsage: "[SUBJECT]",
		Description: `Runs one SUBJECT, or, with --subjects FILE --index N, the N-th subject of
the list FILE (as a Kubernetes Indexed Job does).`,
		Flags: append(append([]cli.Flag{explainFlag(), issuedAtFlag()}, fleetFlags()...), mineFlags()...),
		Action: func(c *cli.Context) error {
			subject, err := fleetSubject(c)
			if err != nil {
				return err
			}
			p, done, err := newPipeline(c, io)
			if err != nil {
				return err
			}
			defer done()
			configureMine(c, p)
			p.IssuedAt = c.String("issued-at")
			results, err := p.Autorun(c.Context, subject)
			if wantJSON(c) {
				if results == nil {
					results = []stage.Result{}
				}
				if werr := emit(io, map[string]any{"schema_version": "1.0.0", "subject": subject, "stages": results}); werr != nil && err == nil {
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
				fmt.Fprintf(io.Stderr, "autorun %s: ratified (report object %s); to promote it:\n", subject, results[len(results)-1].Output)
				line, missing := promoteHint(c, results[len(results)-1].Output)
				fmt.Fprintf(io.Stderr, "  %s\n", line)
				for _, m := range missing {
					fmt.Fprintf(io.Stderr, "  (%s)\n", m)
				}
			}
			return err
		},
	}
}

// promoteHint is the promote command line for a ratified report, written to
// work when pasted from any folder: the store and the key files as absolute
// names, taken from this command's flags and environment. What this command
// cannot know (the curator's key, the trusted keys when none were given) is
// a placeholder, explained in missing.
func promoteHint(c *cli.Context, report string) (line string, missing []string) {
	words := []string{"formation", "promote", "--store", absStoreURL(storeName(c))}
	trusted := globalString(c, flagTrustedKeys)
	if trusted == "" {
		trusted = "TRUSTED_KEYS_FILE"
		missing = append(missing, "TRUSTED_KEYS_FILE: the curators' public keys, e.g. the KEY_FILE.pub that `formation keygen --out KEY_FILE` wrote")
	}
	key := os.Getenv(envName("promote", "key"))
	if key == "" {
		key = os.Getenv("FORMATION_CURATOR_KEY") // the deprecated name, still read
	}
	if key == "" {
		key = "KEY_FILE"
		missing = append(missing, "KEY_FILE: your curator key (`formation keygen --out KEY_FILE` makes one)")
	}
	words = append(words, "--trusted-keys", absPath(trusted), "--key", absPath(key), report)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " "), missing
}

// absStoreURL makes a file:// or plain-path store URL absolute.
func absStoreURL(u string) string {
	if strings.HasPrefix(u, "s3://") {
		return u
	}
	return "file://" + absPath(strings.TrimPrefix(u, "file://"))
}

// absPath makes a path absolute; placeholders (upper-case words) stay.
func absPath(p string) string {
	if p == strings.ToUpper(p) && !strings.ContainsAny(p, "/.") {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
