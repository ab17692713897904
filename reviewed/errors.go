package reviewed

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
		return "reviewed state: " + e.Reason
	}
	return "reviewed state: " + e.Reason + ": " + e.Detail
}

// ExitCode is the refusal's exit code (exitcode.Coder).
func (e *Error) ExitCode() int { return e.Code }

// ReasonCode is the refusal's reason code (exitcode.Reasoner).
func (e *Error) ReasonCode() string { return e.Reason }

func refuse(code int, reason, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Reason codes.
const (
	// ReasonCorruptObject: an object of the state does not hash to its name (65).
	ReasonCorruptObject = "corrupt_object"
	// ReasonUndecodableState: a ref or an object of the state is malformed (65).
	ReasonUndecodableState = "undecodable_state"
	// ReasonDanglingState: the state names an object the store does not hold (65).
	ReasonDanglingState = "dangling_state"
	// ReasonBrokenChain: a state's link to the previous one does not verify (65).
	ReasonBrokenChain = "state_chain_broken"
	// ReasonHeadMismatch: the head is not the digest the operator pinned (77).
	ReasonHeadMismatch = "state_head_mismatch"
	// ReasonIncoherent: the change contradicts reviewed knowledge (65).
	ReasonIncoherent = "review_incoherent"
	// ReasonConcurrentChange: the course moved while the change was derived (75).
	ReasonConcurrentChange = "concurrent_change"
	// ReasonStatementBad: a signed promotion payload is not a well-formed
	// promotion statement (77).
	ReasonStatementBad = "statement_malformed"
)
