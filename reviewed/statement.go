package reviewed

import (
	"bytes"
	"fmt"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
	"formation/signing"
	"formation/store"
)

// The in-toto and DSSE names a promotion is signed with.
const (
	StatementType = signing.InTotoStatementType
	// PredicateType names a Formation promotion predicate (Predicate below).
	PredicateType = "https://formation.dev/promotion/v1"
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = signing.InTotoPayloadType
)

// Statement is an in-toto Statement v1 about one promotion.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject names the promoted course and the report_sha256 (the self-seal)
// of the report that ratified it.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate is what the curator attests. Counts are of records applied to
// the reviewed knowledge; Supersedes is the report_sha256 this promotion
// replaced, or "".
type Predicate struct {
	CourseID         string `json:"course_id"`
	ReportSHA256     string `json:"report_sha256"`
	ReportObject     string `json:"report_object_sha256"`
	ValidatedSetSHA  string `json:"validated_set_sha"`
	CourseSHA256     string `json:"course_sha256"`
	PlanSHA256       string `json:"plan_sha256"`
	PromotedConcepts int    `json:"promoted_concepts"`
	PromotedTriples  int    `json:"promoted_triples"`
	PromotedCounters int    `json:"promoted_counters"`
	IssuedAt         string `json:"issued_at"`
	Supersedes       string `json:"supersedes"`
}

// NewStatement builds the statement of a promotion of report (stored as
// reportObject).
func NewStatement(report artifact.MasteryReport, reportObject string, concepts, triples, counters int, supersedes string) Statement {
	return Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: report.CourseID, Digest: map[string]string{"sha256": report.ReportSHA256}}},
		PredicateType: PredicateType,
		Predicate: Predicate{
			CourseID: report.CourseID, ReportSHA256: report.ReportSHA256, ReportObject: reportObject,
			ValidatedSetSHA: report.ValidatedSetSHA, CourseSHA256: report.CourseSHA256, PlanSHA256: report.PlanSHA256,
			PromotedConcepts: concepts, PromotedTriples: triples, PromotedCounters: counters,
			IssuedAt: report.IssuedAt, Supersedes: supersedes,
		},
	}
}

// SignPromotion wraps the canonical bytes of st in a DSSE envelope signed
// by k.
func SignPromotion(st Statement, k signing.SigningKey) (signing.Envelope, error) {
	payload, err := canon.Marshal(st)
	if err != nil {
		return signing.Envelope{}, fmt.Errorf("reviewed: encode statement: %w", err)
	}
	return signing.Sign(PayloadType, payload, k), nil
}

// OpenPromotion verifies a promotion envelope against the trusted keys (see
// signing.Open) and returns the statement inside, which must be the
// canonical JSON of a well-formed promotion statement. Any failure is exit 77.
func OpenPromotion(env signing.Envelope, trusted signing.TrustedKeys) (Statement, error) {
	payload, err := signing.Open(env, PayloadType, trusted)
	if err != nil {
		return Statement{}, err
	}
	return parseStatement(payload)
}

// parseStatement decodes signed payload bytes: they must be the canonical
// JSON of a well-formed promotion statement, so that exactly one byte form
// of each statement can carry a signature.
func parseStatement(payload []byte) (Statement, error) {
	st, err := artifact.Decode[Statement](payload)
	if err != nil {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonStatementBad, "%v", err)
	}
	again, err := canon.Marshal(st)
	if err != nil || !bytes.Equal(again, payload) {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonStatementBad, "payload is not canonical JSON")
	}
	if st.Type != StatementType || st.PredicateType != PredicateType {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonStatementBad, "_type %q / predicateType %q", st.Type, st.PredicateType)
	}
	p := st.Predicate
	if len(st.Subject) != 1 || st.Subject[0].Name != p.CourseID || len(st.Subject[0].Digest) != 1 ||
		st.Subject[0].Digest["sha256"] != p.ReportSHA256 {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonStatementBad, "subject must be exactly the course and its report_sha256")
	}
	for _, d := range []string{p.ReportSHA256, p.ReportObject, p.ValidatedSetSHA, p.CourseSHA256, p.PlanSHA256} {
		if !store.ValidDigest(d) {
			return Statement{}, refuse(exitcode.SealInvalid, ReasonStatementBad, "digest %q is not 64 lowercase hex", d)
		}
	}
	if p.Supersedes != "" && !store.ValidDigest(p.Supersedes) {
		return Statement{}, refuse(exitcode.SealInvalid, ReasonStatementBad, "supersedes %q is not a digest", p.Supersedes)
	}
	return st, nil
}

// VerifyEnvelopeFile is `formation verify --trusted-keys FILE` for a
// promotion envelope file: valid, or invalid with a reason. It never panics.
func VerifyEnvelopeFile(path, trustedKeysPath string) (valid bool, reason string) {
	if trustedKeysPath == "" {
		return false, "no trusted keys: pass --trusted-keys FILE or set FORMATION_TRUSTED_KEYS"
	}
	trusted, err := signing.LoadTrustedKeys(trustedKeysPath)
	if err != nil {
		return false, err.Error()
	}
	raw, err := signing.ReadSmall(path)
	if err != nil {
		return false, err.Error()
	}
	env, err := signing.DecodeEnvelope(raw)
	if err != nil {
		return false, err.Error()
	}
	if _, err := OpenPromotion(env, trusted); err != nil {
		return false, err.Error()
	}
	return true, ""
}
