package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"formation/courses"
	"formation/runtime"
	"formation/runtime/knowledge"
	"formation/signing"
	"formation/store"
)

// Env is what a lane run needs around Run.
type Env struct {
	Store       store.Store
	CoursesDir  string
	Trusted     *signing.TrustedKeys
	NewRuntime  func(*knowledge.Knowledge) (*runtime.Runtime, error) // packs are the caller's concern
	Now         func() time.Time
	CodeVersion string
}

// Outcome is a stored lane run.
type Outcome struct {
	Result LaneResult
	Object string // digest of the stored result
	Ref    string
}

// Execute runs one lane of a domain over one split and stores the result:
// the lane must be declared for the domain in domains.yaml with that split,
// and the domain must have at least one promoted course that verifies
// (evaluating knowledge nobody promoted would measure nothing). Each
// question is asked in a fresh session of a runtime over exactly the
// verified courses' reviewed knowledge.
func Execute(ctx context.Context, env Env, domain, lane, split string) (Outcome, error) {
	doms, err := courses.LoadDomains(ctx, env.CoursesDir)
	if err != nil {
		return Outcome{}, err
	}
	dom, decl, err := findLane(doms, domain, lane, split)
	if err != nil {
		return Outcome{}, err
	}
	p, err := LoadPromoted(ctx, env.Store, env.Trusted, dom.Subjects)
	if err != nil {
		return Outcome{}, err
	}
	if len(p.Verified()) == 0 {
		return Outcome{}, &Error{fmt.Sprintf("domain '%s' has no promoted course that verifies (%s); nothing to evaluate", domain, courseReasons(p))}
	}
	qs, err := splitQuestions(ctx, env.CoursesDir, dom.Subjects, split)
	if err != nil {
		return Outcome{}, err
	}
	rt, err := env.NewRuntime(p.Knowledge)
	if err != nil {
		return Outcome{}, fmt.Errorf("eval: start runtime: %w", err)
	}
	res, err := Run(ctx, RunSpec{Domain: domain, Lane: lane, LaneVersion: decl.Version, Split: split, Questions: qs,
		Promoted: p, Objects: env.Store, Now: env.Now(), CodeVersion: env.CodeVersion,
		Turn: func(ctx context.Context, q string) (runtime.ChatResponse, error) {
			return rt.NewSession().Turn(ctx, q, nil)
		}})
	if err != nil {
		return Outcome{}, err
	}
	obj, err := Save(ctx, env.Store, res)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Result: res, Object: obj, Ref: Ref(domain, lane, split)}, nil
}

func findLane(doms *courses.Domains, domain, lane, split string) (courses.Domain, courses.EvalLane, error) {
	for _, d := range doms.Domains {
		if d.ID != domain {
			continue
		}
		if _, ok := ShapeOf(lane); !ok {
			return d, courses.EvalLane{}, &Error{UnregisteredReason(lane)}
		}
		for _, l := range d.EvalLanes {
			if l.Lane == lane {
				if !contains(l.Splits, split) {
					return d, l, &Error{fmt.Sprintf("lane '%s' of domain '%s' has no split '%s' (has %v)", lane, domain, split, l.Splits)}
				}
				return d, l, nil
			}
		}
		return d, courses.EvalLane{}, &Error{fmt.Sprintf("lane '%s' is not attached to domain '%s' in %s", lane, domain, courses.DomainsFile)}
	}
	return courses.Domain{}, courses.EvalLane{}, &NotFoundError{fmt.Sprintf("domain '%s' is not in %s", domain, courses.DomainsFile)}
}

// NotFoundError is a named domain that does not exist.
type NotFoundError struct{ Detail string }

func (e *NotFoundError) Error() string { return "eval: " + e.Detail }

func splitQuestions(ctx context.Context, dir string, subjects []string, split string) ([]SubjectQuestions, error) {
	var out []SubjectQuestions
	for _, s := range subjects {
		set, err := courses.LoadQuestions(ctx, filepath.Join(dir, s))
		if err != nil {
			return nil, err
		}
		var qs []courses.Question
		switch split {
		case "public":
			qs = set.Public
		case "holdout":
			qs = set.Holdout
		case "dev":
			qs = set.Dev
		}
		out = append(out, SubjectQuestions{Subject: s, Questions: qs})
	}
	return out, nil
}

func courseReasons(p *Promoted) string {
	if len(p.Courses) == 0 {
		return "none is promoted"
	}
	out := ""
	for i, c := range p.Courses {
		if i > 0 {
			out += "; "
		}
		out += c.CourseID + ": " + c.Reason
	}
	return out
}
