package promote

import (
	"context"
	"errors"
	"fmt"

	"formation/artifact"
	"formation/audit"
	"formation/internal/exitcode"
)

// commit reviews the set, signs the promotion and applies it. The order
// keeps every interruption recoverable by promoting the same report again:
// the knowledge (the point where concurrent promotions of one course are
// serialised), then the envelope and its ref, then the index entry, which is
// what makes the promotion count as done.
func (j *job) commit(ctx context.Context, res Result) (Result, error) {
	ch, rejected, err := buildChange(j.report, j.course.Subject.SubjectID, j.replaces, j.vts)
	if err != nil {
		return res, err
	}
	if len(rejected) > 0 {
		return res, j.rejectReview(ctx, rejected)
	}
	st := NewStatement(j.report, j.req.Report, len(j.vts.Concepts), len(j.vts.Relations), len(j.vts.Counters), j.replaces)
	env, err := Sign(st, j.req.Key)
	if err != nil {
		return res, err
	}
	if err := VerifyEnvelope(env, j.req.Trusted); err != nil {
		return res, j.rejectErr(ctx, err)
	}
	if res.Knowledge, err = updateRef(ctx, j.p.Store, KnowledgeRef, emptyKnowledge(), func(k ReviewedKnowledge) (ReviewedKnowledge, bool, error) {
		return k.apply(ch)
	}); err != nil {
		return res, j.rejectErr(ctx, err)
	}
	if res.Envelope, err = j.storeEnvelope(ctx, env); err != nil {
		return res, err
	}
	entry := artifact.MasteredCourseEntry{CourseID: j.report.CourseID, ReportSHA256: j.report.ReportSHA256,
		IssuedAt: j.report.IssuedAt, CourseSHA256: j.report.CourseSHA256, ValidatedSetSHA: j.report.ValidatedSetSHA}
	if res.Index, err = updateRef(ctx, j.p.Store, IndexRef, emptyIndex(), func(idx artifact.MasteredCoursesIndex) (artifact.MasteredCoursesIndex, bool, error) {
		return addEntry(idx, entry, j.replaces)
	}); err != nil {
		return res, err
	}
	res.Superseded = j.replaces
	res.PromotedConcepts, res.PromotedTriples, res.PromotedCounters = st.Predicate.PromotedConcepts, st.Predicate.PromotedTriples, st.Predicate.PromotedCounters
	return res, j.recordPromotion(ctx, res)
}

// rejectErr audits a refusal of this package (not a store failure, which
// is retried rather than recorded).
func (j *job) rejectErr(ctx context.Context, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Code != exitcode.Unavailable {
		return j.reject(ctx, audit.KindRejection, e)
	}
	return err
}

// storeEnvelope stores the envelope object and points the course's
// promotion ref at it.
func (j *job) storeEnvelope(ctx context.Context, env Envelope) (string, error) {
	body, err := artifact.Encode(env)
	if err != nil {
		return "", fmt.Errorf("promote: encode envelope: %w", err)
	}
	d, err := j.p.Store.Put(ctx, body)
	if err != nil {
		return "", fmt.Errorf("promote: store envelope: %w", err)
	}
	return d, j.moveRef(ctx, PromotionRef(j.report.CourseID), d)
}

// rejectReview audits every candidate the review gate refused, then refuses
// the whole promotion: a course is promoted entirely or not at all.
func (j *job) rejectReview(ctx context.Context, rejected []rejection) error {
	recs := make([]audit.Record, len(rejected))
	for i, r := range rejected {
		recs[i] = audit.Record{Kind: audit.KindRejection, ReasonCode: r.reason, Key: r.item, Detail: r.fired}
	}
	first := rejected[0]
	e := refuse(exitcode.Rejected, first.reason, "%d candidate(s) refused by review, first %q (%s); nothing was promoted",
		len(rejected), first.item, first.fired)
	return j.record(ctx, e, recs...)
}

// recordPromotion writes the promotion's audit records.
func (j *job) recordPromotion(ctx context.Context, res Result) error {
	j.inputs = append(j.inputs, res.Envelope, res.Knowledge, res.Index)
	recs := []audit.Record{{Kind: audit.KindPromotion, ReasonCode: "promoted", Key: j.req.Report,
		Detail: fmt.Sprintf("course %s under report %s by key %s: %d concept(s), %d triple(s), %d counter-claim(s) reviewed coherent; envelope %s",
			res.CourseID, res.ReportSHA256, j.req.Key.KeyID, res.PromotedConcepts, res.PromotedTriples, res.PromotedCounters, res.Envelope)}}
	if res.Superseded != "" {
		recs = append(recs, audit.Record{Kind: audit.KindPromotion, ReasonCode: "superseded", Key: j.req.Report,
			Detail: fmt.Sprintf("course %s: report %s superseded by %s", res.CourseID, res.Superseded, res.ReportSHA256)})
	}
	return j.record(ctx, nil, recs...)
}
