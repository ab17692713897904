package field

import (
	"fmt"

	"formation/runtime/algebra"
)

// Transition is what an operator composes: the turn's prompt rotor and the
// previous committed state (First: there is none yet).
type Transition struct {
	Prompt algebra.MV
	Prev   algebra.MV
	First  bool
}

// Operator turns a Transition into the candidate state. Production uses
// Conjugate; a test may install a drifting operator to prove that drift is
// refused, never repaired. The field calls it on every turn.
type Operator func(Transition) algebra.MV

// Conjugate is the production operator: the prompt conjugates the previous
// field, P·F·~P (the original's cross-turn conjugation); on the first turn the
// state is the prompt itself. For unit rotors the result is again a unit rotor.
//
// The direction matters numerically: conjugating by a freshly built exact
// rotor P is an isometry of the coefficients, so rounding error in F grows
// only linearly with the turn count. Conjugating the other way (F·P·~F)
// squares F's own error every turn and leaves closure within ~30 turns.
func Conjugate(t Transition) algebra.MV {
	if t.First {
		return t.Prompt
	}
	return algebra.Sandwich(t.Prompt, t.Prev)
}

// ClosureError reports a candidate state that left versor closure. The state
// was not committed; the field is halted.
type ClosureError struct {
	Turn      int     // index of the turn that produced the state (0-based)
	Condition float64 // measured versor_condition of the candidate state
}

func (e *ClosureError) Error() string {
	return fmt.Sprintf("field: turn %d: versor_condition %.3e >= %.0e: state not committed, field halted",
		e.Turn, e.Condition, algebra.ClosureBound)
}

// HaltedError reports a turn attempted on a field halted by an earlier
// closure violation.
type HaltedError struct {
	Turn      int // the turn that was refused
	HaltedAt  int // the turn whose state left closure
	Condition float64
}

func (e *HaltedError) Error() string {
	return fmt.Sprintf("field: turn %d refused: field halted at turn %d (versor_condition %.3e)",
		e.Turn, e.HaltedAt, e.Condition)
}

// Step is what one Advance produced.
type Step struct {
	Turn      int        // 0-based index of this turn
	Prompt    algebra.MV // the prompt rotor of the turn's tokens
	State     algebra.MV // the committed state (the candidate, if refused)
	Condition float64    // versor_condition of State
	Flipped   bool       // the hemisphere rule negated the candidate
}

// Field is the committed state of one conversation. It is not safe for
// concurrent use; a conversation is sequential.
type Field struct {
	op       Operator
	state    algebra.MV
	anchor   algebra.MV
	turns    int
	halt     *ClosureError
	hasState bool
	rotors   *Rotors // nil: word rotors computed afresh
	// seen is this field's own view of the memo's first tier, kept across
	// Reset: a worker reuses one field for every step it drives, and a
	// plain map read costs a fraction of a look-up in the shared memo.
	seen RotorView
}

// New returns a field at the identity rotor. A nil operator means the
// production Conjugate.
func New(op Operator) *Field {
	if op == nil {
		op = Conjugate
	}
	return &Field{op: op, state: algebra.One()}
}

// NewWithRotors is New with the word rotors of the field's prompts taken
// from (and added to) a memo shared with other fields.
func NewWithRotors(op Operator, rotors *Rotors) *Field {
	f := New(op)
	f.rotors = rotors
	return f
}

// Reset returns the field to the identity rotor with no turn taken, as
// New gave it, keeping its operator and its rotor memo.
func (f *Field) Reset() {
	*f = Field{op: f.op, state: algebra.One(), rotors: f.rotors, seen: f.seen}
}

// State returns the committed state (the identity rotor before the first
// turn) and whether any turn has committed one.
func (f *Field) State() (algebra.MV, bool) { return f.state, f.hasState }

// Condition is the versor condition of the committed state.
func (f *Field) Condition() float64 { return algebra.VersorCondition(f.state) }

// Halted returns the closure violation that halted the field, or nil.
func (f *Field) Halted() *ClosureError { return f.halt }

// Turns is the number of turns attempted so far.
func (f *Field) Turns() int { return f.turns }

// Advance runs one turn: encode the tokens, compose with the previous state,
// fix the hemisphere against the anchor, measure closure and commit. A
// candidate at or above the closure bound is returned in Step with a
// *ClosureError and is not committed; after that every call returns a
// *HaltedError.
func (f *Field) Advance(tokens []string) (Step, error) {
	turn := f.turns
	f.turns++
	if f.halt != nil {
		return Step{Turn: turn, State: f.state, Condition: f.halt.Condition},
			&HaltedError{Turn: turn, HaltedAt: f.halt.Turn, Condition: f.halt.Condition}
	}
	prompt := f.rotors.PromptSeen(tokens, &f.seen)
	cand := f.op(Transition{Prompt: prompt, Prev: f.state, First: !f.hasState})
	step := Step{Turn: turn, Prompt: prompt}
	// Hemisphere rule: F and −F are the same rotation; keep the sign whose
	// scalar product with the anchor is non-negative so that states of one
	// conversation stay comparable. This is a sign choice, not a repair.
	if f.hasState && algebra.ScalarProduct(cand, f.anchor) < 0 {
		cand = algebra.Neg(cand)
		step.Flipped = true
	}
	step.State = cand
	step.Condition = algebra.VersorCondition(cand)
	if !(step.Condition < algebra.ClosureBound) || !algebra.IsFinite(cand) {
		f.halt = &ClosureError{Turn: turn, Condition: step.Condition}
		return step, f.halt
	}
	if !f.hasState {
		f.anchor = cand
	}
	f.state, f.hasState = cand, true
	return step, nil
}
