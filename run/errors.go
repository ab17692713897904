package run

import "formation/internal/exitcode"

// The reason codes of the run stage's refusals. Audit records key on them,
// so they never change spelling.
const (
	// ReasonPlanStepRejected: a compiled step the runtime cannot take as a
	// turn (its payload does not make a typed step).
	ReasonPlanStepRejected = "plan_step_rejected"
	// ReasonKnowledgeRejected: the course's validated set does not build a
	// knowledge index.
	ReasonKnowledgeRejected = "knowledge_rejected"
	// ReasonSafetyPackInvalid: the runtime refuses to start under the loaded
	// safety pack and the manifold composed from the packs.
	ReasonSafetyPackInvalid = "safety_pack_invalid"
)

// Error is a refusal of the run stage: the input cannot be run at all, as
// opposed to a run that halts on closure, which is a result and is recorded.
// It carries its reason code and decides its exit code (exitcode.Coder).
type Error struct {
	Reason string
	Code   int
	Err    error
}

func (e *Error) Error() string { return e.Reason + ": " + e.Err.Error() }

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the refusal's exit code.
func (e *Error) ExitCode() int { return e.Code }

// ReasonCode is the refusal's reason code (exitcode.Reasoner).
func (e *Error) ReasonCode() string { return e.Reason }

// Detail is the cause's text, for an audit record beside the reason code.
func (e *Error) Detail() string { return e.Err.Error() }

func rejected(reason string, err error) *Error {
	return &Error{Reason: reason, Code: exitcode.Rejected, Err: err}
}
