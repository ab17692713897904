package promote

import (
	"context"
	"fmt"
	"maps"

	"formation/audit"
	"formation/internal/exitcode"
	"formation/reviewed"
	"formation/signing"
	"formation/store"
)

// ReasonResigned names the audit record of a promotion signed again.
const ReasonResigned = "resigned"

// signedByTrusted reports whether the course's current promotion envelope
// verifies against the request's trusted keys. After a key rotation (the old
// curator key removed from the trusted keys) it does not, and promoting the
// same report again signs it anew.
func (j *job) signedByTrusted(ctx context.Context) bool {
	d, ok := j.snap.Envelope(j.report.CourseID)
	if !ok {
		return false
	}
	raw, err := j.p.Store.Get(ctx, d.String())
	if err != nil {
		return false
	}
	env, err := signing.DecodeEnvelope(raw)
	if err != nil {
		return false
	}
	st, err := reviewed.OpenPromotion(env, j.req.Trusted)
	return err == nil && st.Predicate.ReportSHA256 == j.report.ReportSHA256
}

// resign signs the promotion of a report the index already holds with the
// request's key, after the same course and validated-set checks as a first
// promotion, and moves the state to name the new envelope; the knowledge and
// the index stay as they are.
func (j *job) resign(ctx context.Context, res Result) (Result, error) {
	if err := j.loadCourse(ctx); err != nil {
		return res, err
	}
	if err := j.loadVTS(ctx); err != nil {
		return res, err
	}
	st := reviewed.NewStatement(j.report, j.req.Report, len(j.vts.Concepts), len(j.vts.Relations), len(j.vts.Counters), "")
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
	snap, _, err := reviewed.Commit(ctx, j.p.Store, func(cur reviewed.Snapshot) (reviewed.Next, error) {
		if e, ok := reviewed.IndexEntry(cur.Index, j.report.CourseID); !ok || e.ReportSHA256 != j.report.ReportSHA256 {
			return reviewed.Next{}, refuse(exitcode.Unavailable, reviewed.ReasonConcurrentChange,
				"course %s moved to another report while this promotion was signed again; retry", j.report.CourseID)
		}
		if cur.State.Promotions[j.report.CourseID] == res.Envelope {
			return reviewed.Next{}, store.ErrNoChange
		}
		promotions := maps.Clone(cur.State.Promotions)
		promotions[j.report.CourseID] = res.Envelope
		return reviewed.Next{Knowledge: cur.Knowledge, Index: cur.Index, Promotions: promotions}, nil
	})
	if err != nil {
		return res, j.rejectErr(ctx, err)
	}
	res.State, res.Knowledge, res.Index = snap.Head, snap.State.Knowledge, snap.State.Index
	res.Added, res.Removed = []reviewed.Fact{}, []reviewed.Fact{}
	res.Resigned = true
	j.inputs = append(j.inputs, res.Envelope.String(), res.State.String())
	return res, j.record(ctx, nil, audit.Record{Kind: audit.KindPromotion, ReasonCode: ReasonResigned, Key: j.req.Report,
		Detail: fmt.Sprintf("course %s under report %s signed again by key %s (its envelope did not verify against the trusted keys); envelope %s; state %s",
			res.CourseID, res.ReportSHA256, j.req.Key.KeyID, res.Envelope, res.State)})
}
