package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/packs"
	"formation/pipeline"
	"formation/run"
	"formation/signing"
	"formation/stage"
	"formation/stagecache"
)

// explainFlag is every stage's --explain.
func explainFlag() cli.Flag {
	return &cli.BoolFlag{Name: "explain", Usage: "say whether the stage cache hit and, on a miss, which ingredient changed (the source file, the parameter, the upstream stage)"}
}

// newPipeline builds the pipeline of a command from the global flags, with
// a progress bar on a terminal; done clears the last bar.
func newPipeline(c *cli.Context, io IO) (p *pipeline.Pipeline, done func(), err error) {
	s, err := openWriteStore(c)
	if err != nil {
		return nil, nil, err
	}
	opts, err := packOptions(c, io)
	if err != nil {
		return nil, nil, err
	}
	p = &pipeline.Pipeline{
		Env:        stage.NewEnv(s, auditWriter(s, io)),
		CoursesDir: globalString(c, flagCoursesDir),
		Packs:      opts,
	}
	if !quiet(c) {
		p.Log = io.Stderr
	}
	p.OnProgress, done = progressFor(c, io)
	return p, done, nil
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
		Flags:     append([]cli.Flag{explainFlag()}, extra...),
		Action: func(c *cli.Context) error {
			p, done, err := newPipeline(c, io)
			if err != nil {
				return err
			}
			defer done()
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
		return emit(io, res)
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
		printExplain(io.Stderr, res.Explain)
	}
	return nil
}

// printExplain says why a stage ran: on a miss, which ingredient changed,
// named as a person knows it (the source file, the parameter, the upstream
// stage), then the digests of the inputs that came and went.
func printExplain(w io.Writer, ex stagecache.Explanation) {
	if ex.Hit {
		fmt.Fprintf(w, "  explain: cache hit (key %s)\n", short(ex.Key))
		return
	}
	fmt.Fprintf(w, "  explain: ran (key %s): %s\n", short(ex.Key), strings.Join(ex.Changed, ", "))
	for _, b := range ex.Because {
		fmt.Fprintf(w, "    %s\n", b)
	}
	for _, d := range ex.Added {
		fmt.Fprintf(w, "    + input object %s\n", d)
	}
	for _, d := range ex.Removed {
		fmt.Fprintf(w, "    - input object %s\n", d)
	}
}

func forgeCommand(io IO) *cli.Command {
	return stageCommand(io, "forge", "validate the subject's smelted candidates (the only validator)", nil,
		func(ctx context.Context, _ *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			return p.Forge(ctx, subject)
		})
}

// The run verb's sharding flags.
const (
	flagShard  = "shard"
	flagMerge  = "merge"
	flagShards = "shards"
)

func runCommand(io IO) *cli.Command {
	cmd := stageCommand(io, "run", "compile the subject's course and drive its plan twice through the runtime",
		[]cli.Flag{
			&cli.StringFlag{Name: flagShard, Usage: "run only shard `i/K` of the plan's steps (both passes) and store it as subjects/<s>/run-shards/<i>-of-<K>"},
			&cli.BoolFlag{Name: flagMerge, Usage: "merge the subject's --shards K shards into its run record (the same record an unsharded run writes)"},
			&cli.IntFlag{Name: flagShards, Usage: "the number `K` of shards a --merge merges"},
			&cli.IntFlag{Name: "jobs", Usage: "plan steps driven at once, each on a runtime of its own (default: the number of CPUs); the record does not depend on it"},
		}, runVariant)
	cmd.Description = `With --json the output is NDJSON: one line per step of each pass
({"pass","step","step_type","accepted","has_provenance","trace_hash",
"versor_condition_repr"}), then the stage result as the last line.

A very large subject runs in shards: --shard i/K (for every i from 0 to K-1,
in separate processes, in any order) and then --merge --shards K, which
refuses (exit 65) a missing shard, a wrong K and a shard of another plan, and
writes the record an unsharded run writes. With --json a shard prints its
result alone; a merge prints what run prints.`
	inner := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if !wantJSON(c) || c.IsSet(flagShard) {
			return inner(c)
		}
		return runNDJSON(c, io)
	}
	return cmd
}

// runVariant runs the run verb as the flags ask: the whole run, one shard
// or the merge of the shards.
func runVariant(ctx context.Context, c *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
	shard, merge, shards := c.String(flagShard), c.Bool(flagMerge), c.Int(flagShards)
	p.Jobs = c.Int("jobs")
	switch {
	case p.Jobs < 0:
		return stage.Result{}, exitcode.Newf(exitcode.Usage, "run: --jobs %d: want 0 (every CPU) or more", p.Jobs)
	case shard != "" && (merge || c.IsSet(flagShards)):
		return stage.Result{}, exitcode.Newf(exitcode.Usage, "run: --shard runs one shard; --merge --shards K merges them: not both")
	case shard != "":
		sh, err := run.ParseShard(shard)
		if err != nil {
			return stage.Result{}, exitcode.With(exitcode.Usage, fmt.Errorf("run --shard: %w", err))
		}
		return p.RunShard(ctx, subject, sh)
	case merge != c.IsSet(flagShards):
		return stage.Result{}, exitcode.Newf(exitcode.Usage, "run: --merge and --shards K go together")
	case merge:
		if err := run.CheckShards(shards); err != nil {
			return stage.Result{}, exitcode.With(exitcode.Usage, fmt.Errorf("run --shards: %w", err))
		}
		return p.MergeRun(ctx, subject, shards)
	}
	return p.Run(ctx, subject)
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
	p, done, err := newPipeline(c, io)
	if err != nil {
		return err
	}
	defer done()
	res, runErr := runVariant(c.Context, c, p, c.Args().First())
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
		if err := emit(io, res); err != nil {
			return err
		}
	}
	return runErr
}

func issuedAtFlag() cli.Flag {
	return &cli.StringFlag{Name: "issued-at", Usage: "report time YYYY-MM-DDTHH:MM:SSZ (default: issued_at of subject.yaml; never the clock)"}
}

func ratifyCommand(io IO) *cli.Command {
	return stageCommand(io, "ratify", "measure gates G1–G6 on the run record and seal a mastery report (exit 3 when gates fail)",
		[]cli.Flag{issuedAtFlag()},
		func(ctx context.Context, c *cli.Context, p *pipeline.Pipeline, subject string) (stage.Result, error) {
			p.IssuedAt = c.String("issued-at")
			return p.Ratify(ctx, subject)
		})
}

// packOptions are the pack options of a command: the packs folder, the
// development overrides and the trusted pack keys. Without trusted pack keys
// the runtime starts as before and a note on stderr says that pack
// signatures were not checked.
func packOptions(c *cli.Context, io IO) (packs.Options, error) {
	opts := packs.OptionsFromEnv()
	opts.Dir = globalString(c, flagPacksDir)
	path := globalString(c, flagTrustedPackKeys)
	if path == "" {
		if !quietFlag(c) {
			fmt.Fprintln(io.Stderr, "note: pack signatures were not checked (no --trusted-pack-keys / FORMATION_TRUSTED_PACK_KEYS)")
		}
		return opts, nil
	}
	keys, err := signing.LoadTrustedKeys(path)
	if err != nil {
		return opts, fmt.Errorf("--trusted-pack-keys: %w", err)
	}
	opts.TrustedPackKeys = &keys
	return opts, nil
}
