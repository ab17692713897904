package pipeline

import (
	"context"
	"errors"
	"fmt"

	"formation/artifact"
	"formation/compose"
	"formation/internal/exitcode"
	"formation/reviewed"
	"formation/stage"
)

// Compose renders the subject's validated set into a course with the
// subject's template (or p.Template).
func (p *Pipeline) Compose(ctx context.Context, subject string) (stage.Result, error) {
	s, err := p.Subject(ctx, subject)
	if err != nil {
		return stage.Result{}, err
	}
	template := s.Template
	if p.Template != "" {
		template = p.Template
	}
	version, err := compose.TemplateVersion(template)
	if err != nil {
		return stage.Result{}, exitcode.With(exitcode.Usage, err)
	}
	vtsDigest, err := p.Env.ResolveRef(ctx, subject, "forge")
	if err != nil {
		return stage.Result{}, err
	}
	bundleDigest, err := p.Env.ResolveRef(ctx, subject, "mine")
	if err != nil {
		return stage.Result{}, err
	}
	spec := Spec(s)
	st := composeSpec(subject, ComposeParams{Subject: spec, Template: template, TemplateVersion: version},
		ComposeInputs{ValidatedSet: vtsDigest, OreBundle: bundleDigest})
	res, err := p.Env.Run(ctx, st, func(ctx context.Context) (stage.Output, error) {
		vts, err := stage.Load[artifact.ValidatedTripleSet](ctx, p.Env, st, vtsDigest)
		if err != nil {
			return stage.Output{}, err
		}
		return p.composeCore(ctx, vts, vtsDigest, spec, bundleDigest, template, version)
	})
	if err != nil || res.CacheHit {
		return res, err // on a hit the index entry was written by the run that made the output
	}
	return res, p.indexValidatedSet(ctx, res.Bytes)
}

// composeCore renders and stores the YAML; the Course is the stage output.
func (p *Pipeline) composeCore(ctx context.Context, vts artifact.ValidatedTripleSet, vtsDigest string, spec artifact.SubjectSpec, bundle, template, version string) (stage.Output, error) {
	course, yaml, err := compose.Compose(vts, spec, bundle, template, version)
	if err != nil {
		var ce *compose.Error
		if errors.As(err, &ce) {
			return stage.Output{}, &stage.Halt{Code: exitcode.Rejected, Reason: "compose_" + string(ce.Kind), Detail: err.Error()}
		}
		return stage.Output{}, err
	}
	d, err := p.Env.Store.Put(ctx, yaml)
	if err != nil {
		return stage.Output{}, err
	}
	if d != course.CourseSHA256 {
		return stage.Output{}, fmt.Errorf("compose: stored YAML digest %s differs from course_sha256 %s", d, course.CourseSHA256)
	}
	course.ValidatedSetObject = vtsDigest
	p.logf("compose %s: %s (%d bytes of YAML, course %s)", spec.SubjectID, course.CourseID, len(yaml), course.CourseSHA256[:12])
	return stage.Output{Artifact: course}, nil
}

// indexValidatedSet records validated_set_sha → VTS object, so that promote
// and ratify's G2 can find a course's validated set from its report. The
// course was composed from that set in this run, so its validated_set_sha
// is the set's, and the set is not read again.
func (p *Pipeline) indexValidatedSet(ctx context.Context, raw []byte) error {
	course, err := artifact.Decode[artifact.Course](raw)
	if err != nil {
		return exitcode.With(exitcode.Rejected, err)
	}
	return reviewed.IndexValidatedSet(ctx, p.Env.Store, course.ValidatedSetSHA, course.ValidatedSetObject)
}
