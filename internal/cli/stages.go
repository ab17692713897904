package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/packs"
	"formation/pipeline"
	"formation/stage"
)

// explainFlag is every stage's --explain.
var explainFlag = &cli.BoolFlag{Name: "explain", Usage: "say whether the stage cache hit and, on a miss, which ingredient changed", EnvVars: []string{"FORMATION_EXPLAIN"}}

// newPipeline builds the pipeline of a command from the global flags.
func newPipeline(c *cli.Context, io IO) (*pipeline.Pipeline, error) {
	s, err := openWriteStore(c)
	if err != nil {
		return nil, err
	}
	opts := packs.OptionsFromEnv()
	opts.Dir = globalString(c, flagPacksDir)
	p := &pipeline.Pipeline{
		Env:        stage.NewEnv(s, auditWriter(s, io)),
		CoursesDir: globalString(c, flagCoursesDir),
		Packs:      opts,
	}
	if !quiet(c) {
		p.Log = io.Stderr
	}
	return p, nil
}

// quiet reports whether progress and chatter are off: under --json,
// --quiet or CI=true (a log, not a terminal, is reading).
func quiet(c *cli.Context) bool {
	return wantJSON(c) || os.Getenv("CI") == "true" || quietFlag(c)
}

// quietFlag reports an explicit --quiet, which also silences a command's
// one-line result.
func quietFlag(c *cli.Context) bool {
	for _, lc := range c.Lineage() {
		if lc.IsSet(flagQuiet) && lc.Bool(flagQuiet) {
			return true
		}
	}
	return false
}

// stageCommand is the shape shared by the per-subject stage verbs.
func stageCommand(io IO, name, usage string, extra []cli.Flag, run func(context.Context, *cli.Context, *pipeline.Pipeline, string) (stage.Result, error)) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "SUBJECT",
		Flags:     append([]cli.Flag{explainFlag}, extra...),
		Action: func(c *cli.Context) error {
			if err := requireArgs(c, 1, "SUBJECT"); err != nil {
				return err
			}
			p, err := newPipeline(c, io)
			if err != nil {
				return err
			}
			res, err := run(c.Context, c, p, c.Args().First())
			if res.Stage != "" {
				if perr := reportStage(c, io, res); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
}

// reportStage prints a stage's outcome: one JSON document under --json, a
// line on stderr otherwise (plus the explanation when asked).
func reportStage(c *cli.Context, io IO, res stage.Result) error {
	if wantJSON(c) {
		return writeJSON(io.Stdout, res)
	}
	if quietFlag(c) && !c.Bool("explain") {
		return nil
	}
	state := "done"
	if res.CacheHit {
		state = "cache hit, no work"
	}
	if res.Output != "" {
		fmt.Fprintf(io.Stderr, "%s %s: %s → %s\n", res.Stage, res.Subject, state, res.Output)
	}
	if c.Bool("explain") {
		if res.Explain.Hit {
			fmt.Fprintf(io.Stderr, "  explain: hit (key %s)\n", short(res.Explain.Key))
		} else {
			fmt.Fprintf(io.Stderr, "  explain: miss (key %s); changed: %s\n", short(res.Explain.Key), strings.Join(res.Explain.Changed, ", "))
			for _, d := range res.Explain.Added {
				fmt.Fprintf(io.Stderr, "    + input %s\n", d)
			}
			for _, d := range res.Explain.Removed {
				fmt.Fprintf(io.Stderr, "    - input %s\n", d)
			}
		}
	}
	return nil
}

func forgeCommand(io IO) *cli.Command {
	return stageCommand(io, "forge", "validate the subject's smelted candidates (the only validator)", nil,
		func(ctx context.Context, _ *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			return p.Forge(ctx, subject)
		})
}

func runCommand(io IO) *cli.Command {
	cmd := stageCommand(io, "run", "compile the subject's course and drive its plan twice through the runtime", nil,
		func(ctx context.Context, _ *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			return p.Run(ctx, subject)
		})
	cmd.Description = `With --json the output is NDJSON: one line per step of each pass
({"pass","step","step_type","accepted","has_provenance","trace_hash",
"versor_condition_repr"}), then the stage result as the last line.`
	inner := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if !wantJSON(c) {
			return inner(c)
		}
		return runNDJSON(c, io)
	}
	return cmd
}

// StepLine is one NDJSON line of `formation --json run`.
type StepLine struct {
	Pass                int    `json:"pass"`
	Step                int    `json:"step"`
	StepType            string `json:"step_type"`
	Accepted            bool   `json:"accepted"`
	HasProvenance       bool   `json:"has_provenance"`
	TraceHash           string `json:"trace_hash"`
	VersorConditionRepr string `json:"versor_condition_repr"`
}

func runNDJSON(c *cli.Context, io IO) error {
	if err := requireArgs(c, 1, "SUBJECT"); err != nil {
		return err
	}
	p, err := newPipeline(c, io)
	if err != nil {
		return err
	}
	res, runErr := p.Run(c.Context, c.Args().First())
	if res.Output != "" {
		raw, err := p.Env.Store.Get(c.Context, res.Output)
		if err != nil {
			return err
		}
		rec, err := artifact.Decode[artifact.RunRecord](raw)
		if err != nil {
			return err
		}
		for pass, out := range rec.Runs {
			for i, r := range out.Results {
				line := StepLine{Pass: pass + 1, Step: i, StepType: r.StepType, Accepted: r.Accepted, HasProvenance: r.HasProvenance,
					TraceHash: r.TraceHash, VersorConditionRepr: r.VersorConditionRepr}
				if err := writeJSON(io.Stdout, line); err != nil {
					return err
				}
			}
		}
	}
	if res.Stage != "" {
		if err := writeJSON(io.Stdout, res); err != nil {
			return err
		}
	}
	return runErr
}

var issuedAtFlag = &cli.StringFlag{Name: "issued-at", Usage: "report time YYYY-MM-DDTHH:MM:SSZ (default: issued_at of subject.yaml; never the clock)", EnvVars: []string{"FORMATION_ISSUED_AT"}}

func ratifyCommand(io IO) *cli.Command {
	return stageCommand(io, "ratify", "measure gates G1–G6 on the run record and seal a mastery report (exit 3 when gates fail)",
		[]cli.Flag{issuedAtFlag},
		func(ctx context.Context, c *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			p.IssuedAt = c.String("issued-at")
			return p.Ratify(ctx, subject)
		})
}
