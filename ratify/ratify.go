package ratify

import (
	"fmt"
	"slices"
	"time"

	"formation/artifact"
	"formation/ident"
)

// Gate names, in the order the report lists them (the original's order).
const (
	GateReplay      = "G1_replay_determinism"
	GateAdversarial = "G3_adversarial_rejection_rate"
	GateLegitimate  = "G4_legitimate_acceptance_rate"
	GateProvenance  = "G5_provenance_nonempty_rate"
	GateCoverage    = "G6_phase2_relation_coverage"
	GatePrior       = "G2_prior_course_regression"
)

// Threshold is every gate's threshold: each rate must be exactly 1.
const Threshold = "1.0"

// DeferredNoPriorCourses is G2's measurement while no course is mastered yet.
const DeferredNoPriorCourses = "deferred:no_prior_courses"

// issuedAtLayout is the only accepted form of issued_at (UTC, whole seconds).
const issuedAtLayout = "2006-01-02T15:04:05Z"

// PriorCourse is the G2 verdict on one mastered course, re-run now through
// the current runtime by the orchestrator.
type PriorCourse struct {
	CourseID    string   `json:"course_id"`
	Passed      bool     `json:"passed"`
	FailedGates []string `json:"failed_gates"`
}

// Input is everything a report is a function of.
type Input struct {
	CourseID        string
	SourceBundleSHA string
	ValidatedSetSHA string
	CourseSHA256    string
	Plan            artifact.FormationPlan
	ValidatedSet    artifact.ValidatedTripleSet
	FirstRun        artifact.RunOutput
	SecondRun       artifact.RunOutput
	// Index is the mastered-courses index the orchestrator re-ran for G2;
	// PriorCourses must hold exactly one verdict per entry.
	Index        artifact.MasteredCoursesIndex
	PriorCourses []PriorCourse
	// IssuedAt is YYYY-MM-DDTHH:MM:SSZ, from --issued-at or the subject file.
	IssuedAt string
}

// Ratify measures the gates and returns the sealed report. A report that
// does not ratify is still a report (Ratified false, every failed gate in
// FailureReasons); an *Error means the inputs do not belong together.
func Ratify(in Input) (artifact.MasteryReport, error) {
	plan := PlanOf(in.Plan)
	if err := check(in, &plan, ""); err != nil {
		return artifact.MasteryReport{}, err
	}
	return measureWhole(newGauge(in, plan), in)
}

// assemble measures the gates and seals the report. It trusts its inputs:
// Ratify checks them first.
func assemble(in Input) (artifact.MasteryReport, error) {
	return measureWhole(newGauge(in, PlanOf(in.Plan)), in)
}

// measureWhole feeds both whole runs to g and seals its report.
func measureWhole(g *Gauge, in Input) (artifact.MasteryReport, error) {
	if err := g.feed(0, in.FirstRun); err != nil {
		return artifact.MasteryReport{}, err
	}
	if err := g.feed(1, in.SecondRun); err != nil {
		return artifact.MasteryReport{}, err
	}
	return g.Report()
}

// check refuses inputs that do not describe one course; plan stands for
// in.Plan. projected, when not empty, is artifact.ValidatedSetSHA of
// in.ValidatedSet as the caller computed it, in place of hashing the set
// again.
func check(in Input, plan *Plan, projected string) error {
	if in.CourseID == "" {
		return errorf(ReasonInvalidCourseID, "course_id is empty")
	}
	for _, d := range []struct{ name, v string }{
		{"source_bundle_sha", in.SourceBundleSHA}, {"validated_set_sha", in.ValidatedSetSHA},
		{"course_sha256", in.CourseSHA256}, {"plan_sha256", plan.PlanSHA256},
	} {
		if !ident.ValidDigest(d.v) {
			return errorf(ReasonInvalidDigest, "%s %q is not 64 lowercase hex", d.name, d.v)
		}
	}
	if t, err := time.Parse(issuedAtLayout, in.IssuedAt); err != nil || t.Format(issuedAtLayout) != in.IssuedAt {
		return errorf(ReasonInvalidIssuedAt, "issued_at %q is not YYYY-MM-DDTHH:MM:SSZ", in.IssuedAt)
	}
	if err := checkPlan(in, plan); err != nil {
		return err
	}
	vs := projected
	if vs == "" {
		var err error
		if vs, err = artifact.ValidatedSetSHA(in.ValidatedSet); err != nil {
			return errorf(ReasonUnhashable, "validated set: %v", err)
		}
	}
	if vs != in.ValidatedSetSHA {
		return errorf(ReasonValidatedSetMismatch, "validated_set_sha %s, but the set given hashes to %s", in.ValidatedSetSHA, vs)
	}
	if err := checkTeaches(in, plan); err != nil {
		return err
	}
	return checkPriors(in.Index, in.PriorCourses)
}

// checkTeaches refuses a course that teaches nothing: a plan without steps,
// or a validated set without a concept, a relation or a counter-claim. Such
// a course has nothing to ratify; it is not a failed course.
func checkTeaches(in Input, plan *Plan) error {
	v := in.ValidatedSet
	switch {
	case plan.Len() == 0:
		return errorf(ReasonNothingToTeach, "the plan has no step")
	case len(v.Concepts)+len(v.Relations)+len(v.Counters) == 0:
		return errorf(ReasonNothingToTeach, "the validated set holds no concept, relation or counter-claim")
	}
	return nil
}

func checkPlan(in Input, p *Plan) error {
	if p.CourseID != in.CourseID {
		return errorf(ReasonCourseIDMismatch, "plan is for %q, not %q", p.CourseID, in.CourseID)
	}
	if p.CourseSHA256 != in.CourseSHA256 {
		return errorf(ReasonCourseSHAMismatch, "plan compiled from course %s, not %s", p.CourseSHA256, in.CourseSHA256)
	}
	d, err := p.digest()
	if err != nil {
		return errorf(ReasonUnhashable, "plan: %v", err)
	}
	if d != p.PlanSHA256 {
		return errorf(ReasonPlanSHAMismatch, "plan claims %s but its steps hash to %s", p.PlanSHA256, d)
	}
	return nil
}

// checkPriors requires exactly one consistent verdict per mastered course,
// so that G2 cannot pass by leaving a regressed course out.
func checkPriors(index artifact.MasteredCoursesIndex, priors []PriorCourse) error {
	want := make([]string, 0, len(index.Entries))
	for _, e := range index.Entries {
		want = append(want, e.CourseID)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	got := make([]string, 0, len(priors))
	for _, p := range priors {
		if p.Passed != (len(p.FailedGates) == 0) {
			return errorf(ReasonPriorInconsistent, "course %q: passed=%t with failed gates %v", p.CourseID, p.Passed, p.FailedGates)
		}
		got = append(got, p.CourseID)
	}
	slices.Sort(got)
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			return errorf(ReasonPriorMismatch, "two verdicts for course %q", got[i])
		}
	}
	if !slices.Equal(want, got) {
		return errorf(ReasonPriorMismatch, "verdicts for %v, but the index holds %v", got, want)
	}
	return nil
}

// Error is an input that Ratify refuses; Reason is a stable code.
type Error struct {
	Reason string
	Detail string
}

func (e *Error) Error() string { return "ratify: " + e.Reason + ": " + e.Detail }

// Reasons an input is refused.
const (
	ReasonInvalidCourseID      = "invalid_course_id"
	ReasonInvalidDigest        = "invalid_digest"
	ReasonInvalidIssuedAt      = "invalid_issued_at"
	ReasonCourseIDMismatch     = "course_id_mismatch"
	ReasonCourseSHAMismatch    = "course_sha_mismatch"
	ReasonPlanSHAMismatch      = "plan_sha_mismatch"
	ReasonValidatedSetMismatch = "validated_set_mismatch"
	ReasonPriorMismatch        = "prior_results_mismatch"
	ReasonPriorInconsistent    = "prior_result_inconsistent"
	ReasonUnhashable           = "unhashable_input"
	ReasonNothingToTeach       = "nothing_to_teach"
)

func errorf(reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}
