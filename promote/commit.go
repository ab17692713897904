package promote

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"formation/artifact"
	"formation/audit"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/reviewed"
	"formation/signing"
	"formation/store"
)

// commit reviews the set, checks what it would remove, signs the promotion
// and applies it as one new reviewed state: the envelope is stored first,
// then knowledge, index and envelope move together with the state ref, so
// an interrupted promotion leaves the old state whole.
func (j *job) commit(ctx context.Context, res Result) (Result, error) {
	ch, rejected, err := buildChange(j.report, j.course.Subject.SubjectID, j.replaces, j.vts)
	if err != nil {
		return res, err
	}
	if len(rejected) > 0 {
		return res, j.rejectReview(ctx, rejected)
	}
	if _, err := j.apply(j.snap, ch); err != nil {
		return res, j.rejectErr(ctx, err)
	}
	st := reviewed.NewStatement(j.report, j.req.Report, len(j.vts.Concepts), len(j.vts.Relations), len(j.vts.Counters), j.replaces)
	env, err := reviewed.SignPromotion(st, j.req.Key)
	if err != nil {
		return res, err
	}
	if _, err := reviewed.OpenPromotion(env, j.req.Trusted); err != nil {
		return res, j.rejectErr(ctx, err)
	}
	if res.Envelope, err = j.storeEnvelope(ctx, env); err != nil {
		return res, err
	}
	var diff reviewed.Diff
	snap, _, err := reviewed.Commit(ctx, j.p.Store, func(cur reviewed.Snapshot) (reviewed.Next, error) {
		next, err := j.apply(cur, ch)
		if err == nil {
			next.Promotions[j.report.CourseID] = res.Envelope
			diff = reviewed.DiffFacts(cur.Knowledge, next.Knowledge)
		}
		return next, err
	})
	if err != nil {
		return res, j.rejectErr(ctx, err)
	}
	res.State, res.Knowledge, res.Index = snap.Head, snap.State.Knowledge, snap.State.Index
	res.Added, res.Removed, res.Superseded = diff.Added, diff.Removed, j.replaces
	res.PromotedConcepts, res.PromotedTriples, res.PromotedCounters = st.Predicate.PromotedConcepts, st.Predicate.PromotedTriples, st.Predicate.PromotedCounters
	return res, j.recordPromotion(ctx, res)
}

// apply derives the state after this promotion from cur: the knowledge
// through the one teaching path (refusing a removal unless allowed), the
// index entry, and the promotions (the caller adds this course's envelope).
func (j *job) apply(cur reviewed.Snapshot, ch reviewed.Change) (reviewed.Next, error) {
	k, diff, changed, err := cur.Knowledge.Apply(ch)
	if err != nil {
		return reviewed.Next{}, err
	}
	if !changed {
		// Another promotion of this very report finished meanwhile.
		return reviewed.Next{}, store.ErrNoChange
	}
	if len(diff.Removed) > 0 && !j.req.AllowRemoval {
		return reviewed.Next{}, refuse(exitcode.Rejected, ReasonRemovalNotAllowed,
			"superseding report %s with %s would remove %d fact(s) from the reviewed knowledge, first %s; pass --allow-removal to remove them (each is audited)",
			j.replaces, j.report.ReportSHA256, len(diff.Removed), diff.Removed[0])
	}
	entry := artifact.MasteredCourseEntry{CourseID: j.report.CourseID, ReportSHA256: j.report.ReportSHA256,
		IssuedAt: j.report.IssuedAt, CourseSHA256: j.report.CourseSHA256, ValidatedSetSHA: j.report.ValidatedSetSHA}
	idx, _, err := reviewed.AddEntry(cur.Index, entry, j.replaces)
	if err != nil {
		return reviewed.Next{}, err
	}
	promotions := maps.Clone(cur.State.Promotions)
	if promotions == nil {
		promotions = map[string]ident.Digest{}
	}
	return reviewed.Next{Knowledge: k, Index: idx, Promotions: promotions}, nil
}

// rejectErr audits a refusal (not a store failure, nor a lost race, which
// are retried rather than recorded).
func (j *job) rejectErr(ctx context.Context, err error) error {
	reason, detail, code := "", "", 0
	var (
		pe *Error
		re *reviewed.Error
		se *signing.Error
	)
	switch {
	case errors.As(err, &pe):
		reason, detail, code = pe.Reason, pe.Detail, pe.Code
	case errors.As(err, &re):
		reason, detail, code = re.Reason, re.Detail, re.Code
	case errors.As(err, &se):
		reason, detail, code = se.Reason, se.Detail, se.Code
	default:
		return err
	}
	if code == exitcode.Unavailable {
		return err
	}
	return j.record(ctx, err, audit.Record{Kind: audit.KindRejection, ReasonCode: reason, Key: j.req.Report, Detail: detail})
}

// storeEnvelope stores the envelope object; the state names it.
func (j *job) storeEnvelope(ctx context.Context, env signing.Envelope) (ident.Digest, error) {
	body, err := artifact.Encode(env)
	if err != nil {
		return "", fmt.Errorf("promote: encode envelope: %w", err)
	}
	d, err := j.p.Store.Put(ctx, body)
	if err != nil {
		return "", fmt.Errorf("promote: store envelope: %w", err)
	}
	return ident.Digest(d), nil
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

// recordPromotion writes the promotion's audit records: the promotion, the
// report it superseded, and one record per fact it removed.
func (j *job) recordPromotion(ctx context.Context, res Result) error {
	j.inputs = append(j.inputs, res.Envelope.String(), res.State.String())
	recs := []audit.Record{{Kind: audit.KindPromotion, ReasonCode: "promoted", Key: j.req.Report,
		Detail: fmt.Sprintf("course %s under report %s by key %s: %d concept(s), %d triple(s), %d counter-claim(s) reviewed coherent; %d fact(s) added, %d removed; envelope %s; state %s",
			res.CourseID, res.ReportSHA256, j.req.Key.KeyID, res.PromotedConcepts, res.PromotedTriples, res.PromotedCounters,
			len(res.Added), len(res.Removed), res.Envelope, res.State)}}
	if res.Superseded != "" {
		recs = append(recs, audit.Record{Kind: audit.KindPromotion, ReasonCode: "superseded", Key: j.req.Report,
			Detail: fmt.Sprintf("course %s: report %s superseded by %s", res.CourseID, res.Superseded, res.ReportSHA256)})
	}
	for _, f := range res.Removed {
		recs = append(recs, audit.Record{Kind: audit.KindPromotion, ReasonCode: ReasonFactRemoved, Key: f.String(),
			Detail: fmt.Sprintf("removed by --allow-removal when report %s superseded %s", res.ReportSHA256, res.Superseded)})
	}
	return j.record(ctx, nil, recs...)
}
