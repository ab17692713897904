package pipeline

import (
	"context"
	"errors"

	"formation/artifact"
	"formation/courses"
	"formation/internal/exitcode"
	"formation/smelting"
	"formation/stage"
)

// Smelt extracts candidates, each citing a byte span of a stored text, from
// the subject's latest OreBundle, with the smelter subject.yaml pins (the
// default when it pins none).
func (p *Pipeline) Smelt(ctx context.Context, subject string) (stage.Result, error) {
	s, err := p.Subject(ctx, subject)
	if err != nil {
		return stage.Result{}, err
	}
	bundleDigest, err := p.Env.ResolveRef(ctx, subject, "mine")
	if err != nil {
		return stage.Result{}, err
	}
	params := smeltParams(s)
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
		opts := smeltOptions(params)
		opts.OnText = func(done, total int) { p.progress("smelt", "texts smelted", int64(done), int64(total)) }
		out, err := smelting.SmeltWith(bundle, texts, opts)
		if err != nil {
			return stage.Output{}, smeltHalt(err)
		}
		p.logf("smelt %s: %d concepts, %d relations, %d counters, %d ordering hints", subject,
			len(out.Concepts), len(out.Relations), len(out.Counters), len(out.OrderingHints))
		return stage.Output{Artifact: out}, nil
	})
}

// SmeltSentences reports every sentence of the subject's latest mined
// texts, with what the subject's smelter makes of it: the candidates it
// yields, or why it yields nothing. It reads the store and writes nothing:
// no stage runs, no ref moves.
func (p *Pipeline) SmeltSentences(ctx context.Context, subject string) ([]smelting.SentenceReport, error) {
	if err := checkSubject(subject); err != nil {
		return nil, err
	}
	s, err := p.Subject(ctx, subject)
	if err != nil {
		return nil, err
	}
	bundleDigest, err := p.Env.ResolveRef(ctx, subject, "mine")
	if err != nil {
		return nil, err
	}
	params := smeltParams(s)
	spec := smeltSpec(subject, params, SmeltInputs{OreBundle: bundleDigest})
	bundle, err := stage.Load[artifact.OreBundle](ctx, p.Env, spec, bundleDigest)
	if err != nil {
		return nil, err
	}
	texts, err := p.oreTexts(ctx, spec, bundle)
	if err != nil {
		return nil, err
	}
	out, err := smelting.Sentences(bundle, texts, smeltOptions(params))
	if err != nil {
		return nil, smeltHalt(err)
	}
	return out, nil
}

// smeltParams are the smelt stage's parameters for a subject: the smelter
// it pins or the default, and the relations it declares (none until
// subject.yaml can declare them; always a list, never null, so that the
// cache key has one spelling).
func smeltParams(s *courses.Subject) SmeltParams {
	return SmeltParams{Extractor: s.ExtractorOf(), Relations: s.Vocabulary().Declared()}
}

func smeltOptions(p SmeltParams) smelting.Options {
	return smelting.Options{Extractor: p.Extractor, Relations: p.Relations}
}

// smeltHalt turns the smelter's refusals into a halt of the stage (exit
// 65, audited); any other error stays an error.
func smeltHalt(err error) error {
	switch {
	case errors.Is(err, smelting.ErrMalformedDigest) || errors.Is(err, smelting.ErrMissingText) ||
		errors.Is(err, smelting.ErrTextDigest) || errors.Is(err, smelting.ErrInvalidText):
		return &stage.Halt{Code: exitcode.Rejected, Reason: "ore_unusable", Detail: err.Error()}
	case errors.Is(err, smelting.ErrOptions):
		return &stage.Halt{Code: exitcode.Rejected, Reason: "smelt_options_invalid", Detail: err.Error()}
	}
	return err
}

// Autorun runs every stage from mine to ratify and stops before promote, or
// at the first stage that fails. Its results carry no Bytes: each stage
// reads its input from the store, and keeping every output (the smelted
// bundle, the validated set, the run record, each about as large as the
// source or many times larger) until the end would hold them all through
// the later stages; and between stages the garbage a stage leaves is
// collected, so that the next one reuses its memory
// (stage.CollectBetweenStages).
func (p *Pipeline) Autorun(ctx context.Context, subject string) ([]stage.Result, error) {
	var done []stage.Result
	for _, st := range []func(context.Context, string) (stage.Result, error){p.Mine, p.Smelt, p.Forge, p.Compose, p.Run, p.Ratify} {
		res, err := st(ctx, subject)
		res.Bytes = nil
		stage.CollectBetweenStages()
		if res.Stage != "" {
			done = append(done, res)
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
