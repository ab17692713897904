package pipeline

import (
	"context"
	"errors"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/smelting"
	"formation/stage"
)

// Smelt extracts candidates, each citing a byte span of a stored text, from
// the subject's latest OreBundle.
func (p *Pipeline) Smelt(ctx context.Context, subject string) (stage.Result, error) {
	s, err := p.Subject(ctx, subject)
	if err != nil {
		return stage.Result{}, err
	}
	bundleDigest, err := p.Env.ResolveRef(ctx, subject, "mine")
	if err != nil {
		return stage.Result{}, err
	}
	params := SmeltParams{Extractor: smelting.Extractor, Relations: s.Vocabulary().Declared()}
	spec := smeltSpec(subject, params, SmeltInputs{OreBundle: bundleDigest})
	return p.Env.Run(ctx, spec, func(ctx context.Context) (stage.Output, error) {
		bundle, err := stage.Load[artifact.OreBundle](ctx, p.Env, spec, bundleDigest)
		if err != nil {
			return stage.Output{}, err
		}
		texts, err := p.oreTexts(ctx, spec, bundle)
		if err != nil {
			return stage.Output{}, err
		}
		out, err := smelting.SmeltWith(bundle, texts, func(done, total int) {
			p.progress("smelt", "texts smelted", int64(done), int64(total))
		})
		if err != nil {
			if errors.Is(err, smelting.ErrMalformedDigest) || errors.Is(err, smelting.ErrMissingText) ||
				errors.Is(err, smelting.ErrTextDigest) || errors.Is(err, smelting.ErrInvalidText) {
				return stage.Output{}, &stage.Halt{Code: exitcode.Rejected, Reason: "ore_unusable", Detail: err.Error()}
			}
			return stage.Output{}, err
		}
		p.logf("smelt %s: %d concepts, %d relations, %d counters, %d ordering hints", subject,
			len(out.Concepts), len(out.Relations), len(out.Counters), len(out.OrderingHints))
		return stage.Output{Artifact: out}, nil
	})
}

// Autorun runs every stage from mine to ratify and stops before promote, or
// at the first stage that fails.
func (p *Pipeline) Autorun(ctx context.Context, subject string) ([]stage.Result, error) {
	var done []stage.Result
	for _, st := range []func(context.Context, string) (stage.Result, error){p.Mine, p.Smelt, p.Forge, p.Compose, p.Run, p.Ratify} {
		res, err := st(ctx, subject)
		if res.Stage != "" {
			done = append(done, res)
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
