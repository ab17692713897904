// Package refusal is the closed set of reasons a turn may refuse for.
//
// A reason is a stable machine-readable code; the words a user reads are the
// response surface, never the code (the original overloaded one field with
// both). A refused turn always has a reason from this set and a non-empty
// surface. The unknown-domain disclosure is not a refusal and carries no
// reason: it states a fact about the knowledge, not a decision to withhold.
package refusal

// Reason is a refusal code. The zero value means "not refused".
type Reason string

// The reasons.
const (
	None Reason = ""
	// EmptyInput: the utterance has no word tokens.
	EmptyInput Reason = "empty_input"
	// MalformedInput: the utterance is not valid UTF-8 or is longer than the
	// runtime accepts.
	MalformedInput Reason = "malformed_input"
	// UngroundedRelation: every term is known, but the knowledge does not hold
	// the relation claimed or asked about.
	UngroundedRelation Reason = "ungrounded_relation"
	// ContradictedClaim: the claim contradicts the knowledge or the session
	// and is now Contested.
	ContradictedClaim Reason = "contradicted_claim"
	// IdentityOverride: the review gate found an attempt to change identity,
	// policy, review path or operators.
	IdentityOverride Reason = "identity_override"
	// InnerLoopExhaustion: admissibility left no destination for a walk step.
	InnerLoopExhaustion Reason = "inner_loop_exhaustion"
	// RotorRejection: the step exhausted after a rotor left the frame's cone.
	RotorRejection Reason = "rotor_rejection"
	// SafetyBoundary: a runtime-checkable boundary of the safety pack or
	// identity manifold was violated; the surface names the boundary.
	SafetyBoundary Reason = "safety_boundary"
	// ClosureViolation: the turn's field state left versor closure; it was
	// not committed and the session is halted.
	ClosureViolation Reason = "closure_violation"
	// SessionHalted: the session was halted by an earlier closure violation.
	SessionHalted Reason = "session_halted"
	// InputTooLong: a chat line too long for the caller to read at all; it
	// never reached the runtime as a turn.
	InputTooLong Reason = "input_too_long"
	// IdentityHardBlock: the identity check flagged the turn's trajectory
	// and the runtime runs with the identity hard-block policy on. Without
	// that policy a flag is reported and never refuses.
	IdentityHardBlock Reason = "identity_hard_block"
	// TeachingLimit: a teaching session already recorded as many proposals
	// as one session may; the statement was not recorded.
	TeachingLimit Reason = "teaching_limit"
)

// All lists every reason except None, in a fixed order.
func All() []Reason {
	return []Reason{EmptyInput, MalformedInput, UngroundedRelation, ContradictedClaim, IdentityOverride,
		InnerLoopExhaustion, RotorRejection, SafetyBoundary, ClosureViolation, SessionHalted, InputTooLong, IdentityHardBlock, TeachingLimit}
}

// Valid reports whether r is one of the reasons (None is not).
func (r Reason) Valid() bool {
	for _, x := range All() {
		if x == r {
			return true
		}
	}
	return false
}
