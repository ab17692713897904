package teaching

import (
	"fmt"

	"formation/internal/exitcode"
)

// Error is every refusal of the teaching loop: a stable reason code, the
// exit code it maps to, and a human detail.
type Error struct {
	Code   int
	Reason string
	Detail string
}

func (e *Error) Error() string { return "teaching: " + e.Reason + ": " + e.Detail }

// ExitCode is the refusal's exit code (exitcode.Coder).
func (e *Error) ExitCode() int { return e.Code }

func refuse(code int, reason, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Reason codes.
const (
	// ReasonInvalid: a record that does not have the proposal's shape.
	ReasonInvalid = "proposal_invalid"
	// ReasonNotFound: no proposal has that id.
	ReasonNotFound = "proposal_not_found"
	// ReasonAlreadyDecided: a decision of a proposal that has one already.
	ReasonAlreadyDecided = "proposal_already_decided"
	// ReasonMoved: a proposal's record changed between reading it and
	// moving on from it (someone else pruned it meanwhile).
	ReasonMoved = "proposal_moved"
	// ReasonNotDecided: an operation that needs a decided proposal.
	ReasonNotDecided = "proposal_not_decided"
	// ReasonIncoherentAccept: accepting with `coheres` a proposal that the
	// reviewed knowledge contradicts.
	ReasonIncoherentAccept = "incoherent_accept"
	// ReasonWrongVerb: a reason that does not belong to the verb (accept
	// takes coheres; reject takes the others).
	ReasonWrongVerb = "reason_not_for_verb"
	// ReasonUnknownReason: a reason outside the closed set.
	ReasonUnknownReason = "unknown_reason"
	// ReasonSignature: a decision whose signature does not verify.
	ReasonSignature = "decision_signature_invalid"
	// ReasonUnauthorized: a decision signed by a key without the proposal
	// scope in the reviewer registry.
	ReasonUnauthorized = "reviewer_not_authorized"
)

var _ exitcode.Coder = (*Error)(nil)
