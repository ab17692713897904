package cli

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"formation/eval"
	"formation/internal/exitcode"
	"formation/internal/version"
	"formation/runtime"
	"formation/runtime/knowledge"
)

func evalCommand(io IO) *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "run an eval lane of a domain over one split and store the timestamped result",
		ArgsUsage: "LANE",
		Description: `Asks every question of the split that LANE uses (questions/<split>.jsonl of
each subject of the domain) through the runtime, in a fresh session each,
over the reviewed knowledge of the domain's promoted courses that verify
against --trusted-keys. Stores the lane result (canonical JSON, rates as
exact fractions) and moves the ref lanes/<domain>/<lane>/<split> to it: the
ledger always reads the latest result.

Lanes: fabrication_control (unknown, false-premise and off-domain questions
must be refused, none fabricated), inference_closure (walk questions, each
asked twice for replay determinism), cognition (groundedness, term capture,
intent accuracy, versor closure), domain_qa (accuracy over every question).
Other registered lanes have no runner here; unregistered lanes fail closed.

Exits 0 when the stored result passes its shape's thresholds, 3 when it was
stored but fails them, 65 for a lane, split or question set it cannot run.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "domain", Usage: "domain id from courses/domains.yaml (required)"},
			&cli.StringFlag{Name: "split", Value: "public", Usage: "public, holdout or dev"},
			identityHardBlockFlag(),
		},
		Action: func(c *cli.Context) error { return runEval(c, io) },
	}
}

// EvalOutput is the --json document of `formation eval`.
type EvalOutput struct {
	SchemaVersion string          `json:"schema_version"`
	Object        string          `json:"object"`
	Ref           string          `json:"ref"`
	Result        eval.LaneResult `json:"result"`
}

func runEval(c *cli.Context, io IO) error {
	if c.String("domain") == "" {
		return exitcode.Newf(exitcode.Usage, "eval: --domain D is required; see `formation eval --help`")
	}
	trusted, err := trustedKeys(c)
	if err != nil {
		return err
	}
	s, err := openWriteStore(c)
	if err != nil {
		return err
	}
	newRuntime, err := runtimeFactory(c, io)
	if err != nil {
		return err
	}
	env := eval.Env{Store: s, CoursesDir: coursesDir(c), Trusted: trusted, NewRuntime: newRuntime, Now: io.Now, CodeVersion: version.String()}
	out, err := eval.Execute(c.Context, env, c.String("domain"), c.Args().First(), c.String("split"))
	if err != nil {
		return auditStateError(c, io, s, "eval", evalError(err))
	}
	if wantJSON(c) {
		err = emit(io, EvalOutput{SchemaVersion: "1.0.0", Object: out.Object, Ref: out.Ref, Result: out.Result})
	} else {
		printEval(io, out)
	}
	if err != nil {
		return err
	}
	if !out.Result.Pass {
		return exitcode.Newf(exitcode.GatesFailed, "eval: %s", out.Result.Reason)
	}
	return nil
}

func evalError(err error) error {
	var ee *eval.Error
	var nf *eval.NotFoundError
	switch {
	case errors.As(err, &ee):
		return exitcode.With(exitcode.Rejected, err)
	case errors.As(err, &nf):
		return exitcode.With(exitcode.NotFound, err)
	}
	return inputError("eval", err)
}

func printEval(io IO, out eval.Outcome) {
	r := out.Result
	verdict := "pass"
	if !r.Pass {
		verdict = "FAIL: " + r.Reason
	}
	fmt.Fprintf(io.Stdout, "%s/%s/%s at %s: %d case(s), %s\n", r.DomainID, r.Lane, r.Split, r.Timestamp, len(r.Cases), verdict)
	fmt.Fprintf(io.Stdout, "stored %s (ref %s)\n", out.Object, out.Ref)
	for _, c := range r.Cases {
		if !c.Passed {
			fmt.Fprintf(io.Stdout, "  %s/%s: %s\n", c.Subject, c.ID, c.Note)
		}
	}
}

// runtimeFactory loads the packs once (fail-closed: a safety pack that does
// not load exits 77) and returns how to start a runtime over knowledge.
func runtimeFactory(c *cli.Context, io IO) (func(*knowledge.Knowledge) (*runtime.Runtime, error), error) {
	loaded, err := loadPacks(c, io, "")
	if err != nil {
		return nil, err
	}
	hardBlock := c.Bool(flagIdentityHardBlock)
	return func(k *knowledge.Knowledge) (*runtime.Runtime, error) {
		return runtime.New(runtime.Config{Knowledge: k, Safety: loaded.Safety, Manifold: loaded.Manifold,
			IdentityHardBlock: hardBlock})
	}, nil
}
