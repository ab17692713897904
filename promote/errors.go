package promote

import "fmt"

// Error is every refusal of this package: a stable reason code, the exit
// code it maps to and a human detail.
type Error struct {
	Code   int
	Reason string
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "promote: " + e.Reason
	}
	return "promote: " + e.Reason + ": " + e.Detail
}

// ExitCode is the refusal's exit code (exitcode.Coder).
func (e *Error) ExitCode() int { return e.Code }

// ReasonCode is the refusal's reason code (exitcode.Reasoner).
func (e *Error) ReasonCode() string { return e.Reason }

func refuse(code int, reason, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Reason codes of promote (signatures: package signing; reviewed state:
// package reviewed). README.md
// documents each with its exit code.
const (
	ReasonInvalidDigest        = "invalid_digest"
	ReasonReportNotFound       = "report_not_found"
	ReasonCorruptObject        = "corrupt_object"
	ReasonSealInvalid          = "seal_invalid"
	ReasonUndecodableReport    = "undecodable_report"
	ReasonNotRatified          = "not_ratified"
	ReasonInvalidCourseID      = "invalid_course_id"
	ReasonOtherReportPromoted  = "already_promoted_other_report"
	ReasonSupersedeNotNewer    = "supersede_not_newer"
	ReasonCourseNotFound       = "course_not_found"
	ReasonUndecodableCourse    = "undecodable_course"
	ReasonCourseMismatch       = "course_mismatch"
	ReasonMissingPrerequisites = "missing_prerequisites"
	ReasonVTSNotFound          = "validated_set_not_found"
	ReasonUndecodableVTS       = "undecodable_validated_set"
	ReasonVTSMismatch          = "validated_set_mismatch"
	ReasonNotValidated         = "not_validated"
	ReasonReviewIdentity       = "review_rejected_identity"
	ReasonReviewEmpty          = "review_rejected_empty"
	ReasonRemovalNotAllowed    = "removal_not_allowed"
	// ReasonFactRemoved names the audit record of each fact a supersede
	// removed under --allow-removal.
	ReasonFactRemoved = "fact_removed"
)
