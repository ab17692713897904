package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"formation/artifact"
	"formation/canon"
	"formation/courses"
	"formation/runtime"
)

// TurnFunc asks one question in a fresh session over the domain's promoted
// knowledge. Every call must start from the same state, so that asking twice
// is a replay.
type TurnFunc func(ctx context.Context, question string) (runtime.ChatResponse, error)

// SubjectQuestions is one subject's questions of the split being run.
type SubjectQuestions struct {
	Subject   string
	Questions []courses.Question
}

// RunSpec is one lane run.
type RunSpec struct {
	Domain      string
	Lane        string
	LaneVersion string
	Split       string
	Questions   []SubjectQuestions
	Promoted    *Promoted
	Objects     ObjectReader // for byte-checking cited spans
	Turn        TurnFunc
	Now         time.Time // injected; only stamps the result
	CodeVersion string
}

// Error is a lane run that cannot produce evidence: an unregistered lane, a
// lane without a runner here, a split without questions for the lane.
type Error struct{ Reason string }

func (e *Error) Error() string { return "eval: " + e.Reason }

// questionKinds are the question kinds each runnable lane asks.
func questionKinds(lane string) ([]string, bool) {
	switch lane {
	case LaneFabricationControl:
		return []string{courses.KindUnknown, courses.KindFalsePremise, courses.KindOffDomain}, true
	case LaneInferenceClosure:
		return []string{courses.KindWalk}, true
	case LaneCognition:
		return []string{courses.KindDefinition, courses.KindRelation, courses.KindWalk}, true
	case LaneDomainQA:
		return []string{courses.KindDefinition, courses.KindRelation, courses.KindWalk,
			courses.KindUnknown, courses.KindFalsePremise, courses.KindOffDomain}, true
	}
	return nil, false
}

// refusalClass maps a refusal question kind to its fabrication-control class.
func refusalClass(kind string) string {
	switch kind {
	case courses.KindUnknown:
		return ClassUnknownTerm
	case courses.KindFalsePremise:
		return ClassFalsePremise
	}
	return ClassOffDomainTerm
}

type asked struct {
	subject string
	q       courses.Question
}

// Run asks every question of the split that the lane uses, observes the
// answers, scores them in the lane's shape and returns the result (not yet
// stored: see Save). The result's verdict is the shape check of its own
// metrics, so a stored result says whether it would pass the gate.
func Run(ctx context.Context, spec RunSpec) (LaneResult, error) {
	shape, ok := ShapeOf(spec.Lane)
	if !ok {
		return LaneResult{}, &Error{UnregisteredReason(spec.Lane)}
	}
	kinds, ok := questionKinds(spec.Lane)
	if !ok {
		return LaneResult{}, &Error{fmt.Sprintf("lane '%s' (%s) has no runner in this project; runnable lanes: %s, %s, %s, %s",
			spec.Lane, shape, LaneCognition, LaneDomainQA, LaneFabricationControl, LaneInferenceClosure)}
	}
	res := LaneResult{SchemaVersion: artifact.SchemaVersion, DomainID: spec.Domain, Lane: spec.Lane, LaneVersion: spec.LaneVersion,
		Shape: string(shape), Split: spec.Split, Timestamp: spec.Now.UTC().Format(TimestampLayout),
		ReviewedSHA: spec.Promoted.ReviewedSHA.String(), Courses: nonNil(spec.Promoted.Verified()), CodeVersion: spec.CodeVersion}
	var pending []asked
	for _, sq := range spec.Questions {
		d, err := canon.SHA256Hex(sq.Questions)
		if err != nil {
			return LaneResult{}, fmt.Errorf("eval: question set digest: %w", err)
		}
		res.QuestionSets = append(res.QuestionSets, QuestionSetID{Subject: sq.Subject, Split: spec.Split, Questions: int64(len(sq.Questions)), SHA256: d})
		for _, q := range sq.Questions {
			if contains(kinds, q.Kind) {
				pending = append(pending, asked{sq.Subject, q})
			}
		}
	}
	if len(pending) == 0 {
		return LaneResult{}, &Error{fmt.Sprintf("split '%s' of domain '%s' has no questions of the kinds lane '%s' asks (%v)", spec.Split, spec.Domain, spec.Lane, kinds)}
	}
	cases, err := askAll(ctx, spec, pending)
	if err != nil {
		return LaneResult{}, err
	}
	res.Cases = cases
	res.Metrics = score(spec.Lane, pending, cases)
	res.Reason = Check(spec.Lane, res.Metrics)
	res.Pass = res.Reason == ""
	return res, nil
}

// askAll runs the questions in order. Inference cases are asked twice,
// each time in a fresh session, to measure replay determinism.
func askAll(ctx context.Context, spec RunSpec, pending []asked) ([]Case, error) {
	obs := newObserver(spec.Promoted, spec.Objects)
	cases := make([]Case, 0, len(pending))
	for _, a := range pending {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := spec.Turn(ctx, a.q.Question)
		if err != nil {
			return nil, fmt.Errorf("eval: question %s/%s: %w", a.subject, a.q.ID, err)
		}
		c, err := observeCase(ctx, obs, a, r)
		if err != nil {
			return nil, err
		}
		if spec.Lane == LaneInferenceClosure {
			again, err := spec.Turn(ctx, a.q.Question)
			if err != nil {
				return nil, fmt.Errorf("eval: replay of %s/%s: %w", a.subject, a.q.ID, err)
			}
			c.Deterministic = sameResponse(r, again)
			if !c.Deterministic && c.Note == "" {
				c.Note = "replay in a fresh session gave a different response"
			}
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func observeCase(ctx context.Context, obs *observer, a asked, r runtime.ChatResponse) (Case, error) {
	c := Case{ID: a.q.ID, Subject: a.subject, QuestionKind: a.q.Kind, AnswerKind: string(r.Kind),
		RefusalReason: string(r.RefusalReason), Surface: r.Surface, TraceHash: r.TraceHash}
	allResolve, err := obs.grounding(ctx, r)
	if err != nil {
		return Case{}, fmt.Errorf("eval: question %s/%s: check citations: %w", a.subject, a.q.ID, err)
	}
	var why string
	c.Fabricated, why = obs.fabricated(r, allResolve)
	c.Refused = refused(r) && !c.Fabricated
	c.Grounded = allResolve && len(r.Citations) > 0
	c.IntentCorrect = string(r.Kind) == AnswerKind(a.q.Kind)
	c.VersorClosed = versorClosed(r)
	for _, t := range expectedTerms(a.q) {
		c.TermsExpected++
		if mentions(r.Surface, t) {
			c.TermsCaptured++
		}
	}
	c.Note = correct(a.q, r, c.Fabricated, c.Grounded)
	if c.Fabricated {
		c.Note = why
	}
	c.Passed = c.Note == ""
	return c, nil
}

// sameResponse compares two responses byte for byte in canonical form.
func sameResponse(a, b runtime.ChatResponse) bool {
	x, errA := canon.Marshal(a)
	y, errB := canon.Marshal(b)
	return errors.Join(errA, errB) == nil && string(x) == string(y)
}

// score builds the lane's metrics from its cases.
func score(lane string, pending []asked, cases []Case) Metrics {
	switch lane {
	case LaneFabricationControl:
		obs := make([]RefusalObservation, len(cases))
		for i, c := range cases {
			obs[i] = RefusalObservation{Class: refusalClass(pending[i].q.Kind), Refused: c.Refused, Fabricated: c.Fabricated}
		}
		return ScoreRefusal(obs)
	case LaneInferenceClosure:
		obs := make([]InferenceObservation, len(cases))
		for i, c := range cases {
			obs[i] = InferenceObservation{Passed: c.Passed, Deterministic: c.Deterministic}
		}
		return ScoreInference(obs)
	case LaneCognition:
		obs := make([]CognitionObservation, len(cases))
		for i, c := range cases {
			obs[i] = CognitionObservation{Grounded: c.Grounded, TermsExpected: c.TermsExpected, TermsCaptured: c.TermsCaptured,
				IntentCorrect: c.IntentCorrect, VersorClosed: c.VersorClosed}
		}
		return ScoreCognition(obs)
	}
	obs := make([]AccuracyObservation, len(cases))
	for i, c := range cases {
		obs[i] = AccuracyObservation{Correct: c.Passed}
	}
	return ScoreAccuracy(obs)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
