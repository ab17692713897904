package promote

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"formation/artifact"
	"formation/audit"
	"formation/canon"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/reviewed"
	"formation/seal"
	"formation/signing"
	"formation/store"
)

// StageName is the audit stage of every promote record.
const StageName = "promote"

// unverifiedSubject is the audit subject of records written before the
// report's seal is known to hold (its course_id cannot be trusted yet).
const unverifiedSubject = "_unverified"

// Promoter applies ratified courses to the reviewed knowledge.
type Promoter struct {
	Store store.Store
	Audit *audit.Writer
}

// Request is one promotion.
type Request struct {
	Report       string              // object digest of the stored MasteryReport
	VTS          string              // optional object digest of the validated set; default: ref index/validated/<validated_set_sha>
	Supersede    bool                // replace the course's current promotion with this newer report
	AllowRemoval bool                // let a supersede remove facts from the reviewed knowledge
	Key          signing.SigningKey  // the curator's key
	Trusted      signing.TrustedKeys // the key must be one of these
}

// Result says what a promotion did.
type Result struct {
	SchemaVersion string `json:"schema_version"`
	CourseID      string `json:"course_id"`
	ReportObject  string `json:"report_object_sha256"`
	ReportSHA256  string `json:"report_sha256"`
	Idempotent    bool   `json:"idempotent"`
	// Resigned: the report was already promoted, but its envelope no longer
	// verified against the trusted keys (a rotated curator key), so it was
	// signed again with this key.
	Resigned         bool         `json:"resigned"`
	Superseded       string       `json:"superseded"`
	PromotedConcepts int          `json:"promoted_concepts"`
	PromotedTriples  int          `json:"promoted_triples"`
	PromotedCounters int          `json:"promoted_counters"`
	Envelope         ident.Digest `json:"envelope_sha256"`
	Knowledge        ident.Digest `json:"knowledge_sha256"`
	Index            ident.Digest `json:"index_sha256"`
	// State is the reviewed state (knowledge/state) after the promotion:
	// pin it with `formation ledger --expect-head` to detect a rollback.
	State ident.Digest `json:"state_sha256"`
	// Added and Removed are the facts the promotion added to and removed
	// from the reviewed knowledge (removal needs AllowRemoval).
	Added   []reviewed.Fact `json:"added"`
	Removed []reviewed.Fact `json:"removed"`
}

// job carries one promotion through its checks.
type job struct {
	p         *Promoter
	req       Request
	subject   string   // audit subject: _unverified, then the course id, then the subject id
	inputs    []string // digests read so far
	report    artifact.MasteryReport
	course    courseBody
	vtsDigest string
	vts       artifact.ValidatedTripleSet
	replaces  string
	snap      reviewed.Snapshot // the reviewed state the checks ran against
}

// Promote verifies the report and, if every check passes, applies its
// validated set to the reviewed knowledge, records the signed envelope and
// adds the course to the mastered-courses index, all in one new reviewed
// state. A refusal changes nothing but the audit log.
func (p *Promoter) Promote(ctx context.Context, req Request) (Result, error) {
	if !store.ValidDigest(req.Report) || (req.VTS != "" && !store.ValidDigest(req.VTS)) {
		return Result{}, refuse(exitcode.Usage, ReasonInvalidDigest, "report %q / validated set %q: a digest is 64 lowercase hex", req.Report, req.VTS)
	}
	j := &job{p: p, req: req, subject: unverifiedSubject, inputs: []string{req.Report}}
	if err := j.loadReport(ctx); err != nil {
		return Result{}, err
	}
	res := Result{SchemaVersion: artifact.SchemaVersion, CourseID: j.report.CourseID,
		ReportObject: req.Report, ReportSHA256: j.report.ReportSHA256}
	snap, err := reviewed.Load(ctx, p.Store)
	if err != nil {
		return res, j.stateErr(ctx, err)
	}
	j.snap = snap
	if e, ok := reviewed.IndexEntry(j.snap.Index, j.report.CourseID); ok && e.ReportSHA256 == j.report.ReportSHA256 {
		if j.signedByTrusted(ctx) {
			return j.already(res), nil
		}
		return j.resign(ctx, res)
	}
	if err := j.checks(ctx, j.snap.Index); err != nil {
		return res, err
	}
	return j.commit(ctx, res)
}

// loadReport reads the report and refuses a broken seal (77), an
// undecodable report (65) or an unratified one (3).
func (j *job) loadReport(ctx context.Context) error {
	raw, err := j.p.Store.Get(ctx, j.req.Report)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return refuse(exitcode.NotFound, ReasonReportNotFound, "no report object %s in %s", j.req.Report, j.p.Store)
	case errors.Is(err, store.ErrCorrupt):
		return j.reject(ctx, audit.KindHalt, refuse(exitcode.Rejected, ReasonCorruptObject, "%v", err))
	case err != nil:
		return fmt.Errorf("promote: read report %s: %w", j.req.Report, err)
	}
	verdict := seal.Result{Reason: "not canonical JSON"}
	if doc, derr := canon.Decode(raw); derr == nil {
		verdict = seal.VerifySeal(doc, seal.DefaultField)
	}
	if !verdict.Valid {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.SealInvalid, ReasonSealInvalid, "report object %s: %s", j.req.Report, verdict.Reason))
	}
	if j.report, err = artifact.Decode[artifact.MasteryReport](raw); err != nil {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonUndecodableReport, "%s: %v", j.req.Report, err))
	}
	if err := store.ValidSubjectID(j.report.CourseID); err != nil {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonInvalidCourseID, "%q: %v", j.report.CourseID, err))
	}
	j.subject = j.report.CourseID
	if !j.report.Ratified {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.GatesFailed, ReasonNotRatified,
			"report %s of %s is not ratified: %s", j.report.ReportSHA256, j.report.CourseID, strings.Join(j.report.FailureReasons, " | ")))
	}
	return nil
}

// already is the idempotent answer: this report is the course's promotion.
func (j *job) already(res Result) Result {
	res.Idempotent, res.Index, res.Knowledge, res.State = true, j.snap.State.Index, j.snap.State.Knowledge, j.snap.Head
	res.Envelope, _ = j.snap.Envelope(j.report.CourseID)
	res.Added, res.Removed = []reviewed.Fact{}, []reviewed.Fact{}
	return res
}

// checks runs, in order: supersede rules, the course and its prerequisites,
// the validated set and its link to the report.
func (j *job) checks(ctx context.Context, idx artifact.MasteredCoursesIndex) error {
	if prev, ok := reviewed.IndexEntry(idx, j.report.CourseID); ok {
		if !j.req.Supersede {
			return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonOtherReportPromoted,
				"course %s is already promoted under report %s (issued %s); pass --supersede to replace it with report %s (issued %s)",
				prev.CourseID, prev.ReportSHA256, prev.IssuedAt, j.report.ReportSHA256, j.report.IssuedAt))
		}
		if j.report.IssuedAt <= prev.IssuedAt {
			return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonSupersedeNotNewer,
				"report %s was issued %s, not after the promoted report %s (issued %s)",
				j.report.ReportSHA256, j.report.IssuedAt, prev.ReportSHA256, prev.IssuedAt))
		}
		j.replaces = prev.ReportSHA256
	}
	if err := j.loadCourse(ctx); err != nil {
		return err
	}
	var missing []string
	for _, req := range j.course.Subject.RequiresCourses {
		if _, ok := reviewed.IndexEntry(idx, req); !ok {
			missing = append(missing, req)
		}
	}
	if len(missing) > 0 {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonMissingPrerequisites,
			"course %s requires %s, not in the mastered-courses index", j.report.CourseID, strings.Join(missing, ", ")))
	}
	return j.loadVTS(ctx)
}

// courseBody is the part of a course YAML promote reads.
type courseBody struct {
	CourseID string `yaml:"course_id"`
	Subject  struct {
		SubjectID       string   `yaml:"subject_id"`
		RequiresCourses []string `yaml:"requires_courses"`
	} `yaml:"subject"`
}

// loadCourse reads the course YAML by report.course_sha256 (the object
// store addresses it by that very digest) for its subject and prerequisites.
func (j *job) loadCourse(ctx context.Context) error {
	raw, err := j.get(ctx, j.report.CourseSHA256, ReasonCourseNotFound, "course")
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(raw, &j.course); err != nil {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonUndecodableCourse, "course %s: %v", j.report.CourseSHA256, err))
	}
	if j.course.CourseID != j.report.CourseID || store.ValidSubjectID(j.course.Subject.SubjectID) != nil {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonCourseMismatch,
			"course %s is %q of subject %q; the report names %q", j.report.CourseSHA256, j.course.CourseID, j.course.Subject.SubjectID, j.report.CourseID))
	}
	j.subject = j.course.Subject.SubjectID
	return nil
}

// loadVTS finds the validated set, and refuses one that is not the report's
// (compose-projection digest) or that holds anything not validated.
func (j *job) loadVTS(ctx context.Context) error {
	j.vtsDigest = j.req.VTS
	if j.vtsDigest == "" {
		d, found, err := reviewed.FindValidatedSet(ctx, j.p.Store, j.report.ValidatedSetSHA)
		if err != nil {
			return j.stateErr(ctx, err)
		}
		if !found {
			return refuse(exitcode.NotFound, ReasonVTSNotFound, "no ref %s: compose records every set it renders; or pass --vts DIGEST",
				reviewed.ValidatedRef(j.report.ValidatedSetSHA))
		}
		j.vtsDigest = d
	}
	raw, err := j.get(ctx, j.vtsDigest, ReasonVTSNotFound, "validated set")
	if err != nil {
		return err
	}
	if j.vts, err = artifact.Decode[artifact.ValidatedTripleSet](raw); err != nil {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonUndecodableVTS, "%s: %v", j.vtsDigest, err))
	}
	sha, err := artifact.ValidatedSetSHA(j.vts)
	if err != nil || sha != j.report.ValidatedSetSHA {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonVTSMismatch,
			"set %s projects to %s, but the report ratified validated_set_sha %s", j.vtsDigest, sha, j.report.ValidatedSetSHA))
	}
	if j.vts.SubjectID != j.course.Subject.SubjectID {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonCourseMismatch,
			"set of subject %q, course of subject %q", j.vts.SubjectID, j.course.Subject.SubjectID))
	}
	return j.checkValidated(ctx)
}

// checkValidated refuses a set that carries a quarantined or unvalidated
// record among the ones promote would apply.
func (j *job) checkValidated(ctx context.Context) error {
	var bad []string
	for _, c := range j.vts.Concepts {
		if c.State != artifact.StateValidated || c.RejectionReason != "" {
			bad = append(bad, fmt.Sprintf("concept %q is %s", c.CanonicalTerm, c.State))
		}
	}
	for _, group := range [][]artifact.RelationCandidate{j.vts.Relations, j.vts.Counters} {
		for _, r := range group {
			if r.State != artifact.StateValidated || r.RejectionReason != "" {
				bad = append(bad, fmt.Sprintf("(%s, %s, %s) is %s", r.Head, r.Relation, r.Tail, r.State))
			}
		}
	}
	if len(bad) > 0 {
		return j.reject(ctx, audit.KindRejection, refuse(exitcode.Rejected, ReasonNotValidated, "%s", strings.Join(bad, "; ")))
	}
	return nil
}

// get reads an object a check needs: missing → 66, corrupt → 65 audited.
func (j *job) get(ctx context.Context, digest, missingReason, what string) ([]byte, error) {
	raw, err := j.p.Store.Get(ctx, digest)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, refuse(exitcode.NotFound, missingReason, "no %s object %s in %s", what, digest, j.p.Store)
	case errors.Is(err, store.ErrCorrupt):
		return nil, j.reject(ctx, audit.KindHalt, refuse(exitcode.Rejected, ReasonCorruptObject, "%s: %v", what, err))
	case err != nil:
		return nil, fmt.Errorf("promote: read %s %s: %w", what, digest, err)
	}
	j.inputs = append(j.inputs, digest)
	return raw, nil
}

// reject audits a refusal and returns it.
func (j *job) reject(ctx context.Context, kind string, e *Error) error {
	return j.record(ctx, e, audit.Record{Kind: kind, ReasonCode: e.Reason, Key: j.req.Report, Detail: e.Detail})
}

// record appends audit records; a failed audit write is reported with err.
func (j *job) record(ctx context.Context, err error, recs ...audit.Record) error {
	for i := range recs {
		recs[i].Stage, recs[i].Subject = StageName, j.subject
		recs[i].InputDigests = append([]string{}, j.inputs...)
	}
	if aerr := j.p.Audit.Append(ctx, recs...); aerr != nil {
		return errors.Join(err, fmt.Errorf("promote: audit: %w", aerr))
	}
	return err
}

// stateErr audits a refusal to read the reviewed state (a corrupt or
// malformed object of it) and returns it; a store failure passes as is.
func (j *job) stateErr(ctx context.Context, err error) error {
	var e *reviewed.Error
	if !errors.As(err, &e) {
		return err
	}
	kind := audit.KindRejection
	if e.Code == exitcode.Rejected {
		kind = audit.KindHalt
	}
	return j.record(ctx, err, audit.Record{Kind: kind, ReasonCode: e.Reason, Key: reviewed.StateRef, Detail: e.Detail})
}
