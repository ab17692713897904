package eval

import (
	"context"
	"fmt"
	"sort"

	"formation/artifact"
	"formation/canon"
	"formation/ident"
	"formation/reviewed"
	"formation/runtime/knowledge"
	"formation/seal"
	"formation/signing"
	"formation/store"
)

// CourseCheck is one promoted course of a domain's subjects and the verdict
// of its end-to-end verification.
type CourseCheck struct {
	CourseID     string `json:"course_id"`
	Subject      string `json:"subject"`
	ReportSHA256 string `json:"report_sha256"`
	CourseSHA256 string `json:"course_sha256"`
	Verified     bool   `json:"verified"`
	Reason       string `json:"reason"`
	// IntegrityFailure is set when the course failed on a seal, a signature
	// or a stored object (anything but missing trusted keys): something in the
	// store is not what was promoted.
	IntegrityFailure bool `json:"integrity_failure"`
}

// Promoted is a domain's promoted knowledge as lanes and the ledger see it:
// every promoted course of the domain's subjects with its verdict, and the
// reviewed knowledge restricted to the contributions of the courses that
// verified. A course that fails verification contributes nothing.
type Promoted struct {
	Courses     []CourseCheck
	Knowledge   *knowledge.Knowledge
	ReviewedSHA ident.Digest         // the reviewed knowledge object read
	StateHead   ident.Digest         // the reviewed state (knowledge/state) read
	CourseYAML  map[string][]byte    // course_id → course YAML bytes, verified courses only
	Citations   []knowledge.Citation // every citation the knowledge holds
	Terms       []string             // concept terms of the knowledge, sorted
}

// Verified lists the ids of the courses that verified, sorted.
func (p *Promoted) Verified() []string {
	var out []string
	for _, c := range p.Courses {
		if c.Verified {
			out = append(out, c.CourseID)
		}
	}
	sort.Strings(out)
	return out
}

// LoadPromoted reads the mastered-courses index and the reviewed knowledge,
// keeps the courses whose subject is one of subjects, and verifies each one:
// its promotion envelope against the trusted curator keys, the statement
// inside against the index entry, and the report object's bytes, seal,
// ratification and identity. Objects are re-hashed as they are read, so a
// changed byte anywhere fails the course with the store's reason. A nil
// trusted set verifies nothing.
func LoadPromoted(ctx context.Context, s store.Store, trusted *signing.TrustedKeys, subjects []string) (*Promoted, error) {
	snap, err := reviewed.Load(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return LoadPromotedAt(ctx, s, snap, trusted, subjects)
}

// LoadPromotedAt is LoadPromoted over a reviewed state already read.
func LoadPromotedAt(ctx context.Context, s store.Store, snap reviewed.Snapshot, trusted *signing.TrustedKeys, subjects []string) (*Promoted, error) {
	var err error
	subjectOf := map[string]reviewed.CourseRecord{}
	for _, c := range snap.Knowledge.Courses {
		subjectOf[c.CourseID] = c
	}
	p := &Promoted{ReviewedSHA: snap.State.Knowledge, StateHead: snap.Head, CourseYAML: map[string][]byte{}}
	keep := map[string]bool{}
	for _, e := range snap.Index.Entries {
		rec, ok := subjectOf[e.CourseID]
		if !ok || !contains(subjects, rec.SubjectID) {
			continue
		}
		check := CourseCheck{CourseID: e.CourseID, Subject: rec.SubjectID, ReportSHA256: e.ReportSHA256, CourseSHA256: e.CourseSHA256}
		yamlBytes, reason := verifyCourse(ctx, s, trusted, snap, e, rec)
		check.Verified, check.Reason = reason == "", reason
		check.IntegrityFailure = reason != "" && trusted != nil
		if check.Verified {
			keep[e.CourseID] = true
			p.CourseYAML[e.CourseID] = yamlBytes
		}
		p.Courses = append(p.Courses, check)
	}
	restricted := snap.Knowledge.Restrict(func(c reviewed.CourseRecord) bool { return keep[c.CourseID] })
	if p.Knowledge, err = restricted.Index(); err != nil {
		return nil, fmt.Errorf("eval: domain knowledge: %w", err)
	}
	for _, c := range restricted.Concepts {
		if !contains(p.Terms, c.Term) {
			p.Terms = append(p.Terms, c.Term)
		}
	}
	sort.Strings(p.Terms)
	p.Citations = CitationsOf(p.Knowledge, p.Terms)
	return p, nil
}

// verifyCourse returns the course YAML and "" when the promotion holds, or
// the first reason it does not.
func verifyCourse(ctx context.Context, s store.Store, trusted *signing.TrustedKeys, snap reviewed.Snapshot, e artifact.MasteredCourseEntry, rec reviewed.CourseRecord) ([]byte, string) {
	if trusted == nil {
		return nil, "no trusted curator keys (pass --trusted-keys FILE or set FORMATION_TRUSTED_KEYS)"
	}
	if rec.ReportSHA256 != e.ReportSHA256 || rec.ValidatedSetSHA != e.ValidatedSetSHA {
		return nil, "the reviewed knowledge and the mastered-courses index disagree on this course's report"
	}
	envDigest, ok := snap.Envelope(e.CourseID)
	if !ok {
		return nil, "no promotion envelope in the reviewed state"
	}
	st, reason := openPromotion(ctx, s, *trusted, envDigest)
	if reason != "" {
		return nil, reason
	}
	p := st.Predicate
	if p.CourseID != e.CourseID || p.ReportSHA256 != e.ReportSHA256 || p.CourseSHA256 != e.CourseSHA256 || p.ValidatedSetSHA != e.ValidatedSetSHA {
		return nil, "signed promotion statement does not match the mastered-courses index entry"
	}
	if reason := checkReport(ctx, s, p.ReportObject, e); reason != "" {
		return nil, reason
	}
	course, err := s.Get(ctx, e.CourseSHA256)
	if err != nil {
		return nil, "course " + e.CourseSHA256 + ": " + err.Error()
	}
	return course, ""
}

// openPromotion reads a promotion envelope and verifies it.
func openPromotion(ctx context.Context, s store.Store, trusted signing.TrustedKeys, digest ident.Digest) (reviewed.Statement, string) {
	raw, err := s.Get(ctx, digest.String())
	if err != nil {
		return reviewed.Statement{}, "promotion envelope: " + err.Error()
	}
	env, err := signing.DecodeEnvelope(raw)
	if err != nil {
		return reviewed.Statement{}, "promotion envelope: " + err.Error()
	}
	st, err := reviewed.OpenPromotion(env, trusted)
	if err != nil {
		return reviewed.Statement{}, "promotion signature does not verify against the trusted curator keys: " + err.Error()
	}
	return st, ""
}

// checkReport re-reads the mastery report and checks its seal, its verdict
// and that it is the report the index names.
func checkReport(ctx context.Context, s store.Store, object string, e artifact.MasteredCourseEntry) string {
	raw, err := s.Get(ctx, object)
	if err != nil {
		return "mastery report: " + err.Error()
	}
	doc, err := canon.Decode(raw)
	if err != nil {
		return "mastery report is not canonical JSON: " + err.Error()
	}
	if v := seal.VerifySeal(doc, seal.DefaultField); !v.Valid {
		return "mastery report seal invalid: " + v.Reason
	}
	r, err := artifact.Decode[artifact.MasteryReport](raw)
	if err != nil {
		return "mastery report undecodable: " + err.Error()
	}
	switch {
	case !r.Ratified:
		return "mastery report is not ratified"
	case r.ReportSHA256 != e.ReportSHA256 || r.CourseID != e.CourseID || r.CourseSHA256 != e.CourseSHA256 || r.ValidatedSetSHA != e.ValidatedSetSHA:
		return "mastery report does not match the mastered-courses index entry"
	}
	return ""
}

// CitationsOf collects every citation the knowledge holds, on its triples,
// its counter-claims and the definitions of the given concept terms: the
// citations an answer may draw from.
func CitationsOf(k *knowledge.Knowledge, terms []string) []knowledge.Citation {
	seen := map[knowledge.Citation]bool{}
	var out []knowledge.Citation
	add := func(cs []knowledge.Citation) {
		for _, c := range cs {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	for _, t := range k.Triples() {
		add(t.Sources)
	}
	for _, t := range k.Counters() {
		add(t.Sources)
	}
	for _, t := range terms {
		for _, d := range k.Definitions(t) {
			add(d.Sources)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
