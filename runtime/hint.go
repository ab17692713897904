package runtime

import (
	"fmt"

	"formation/runtime/text"
)

// StepHint is the typed plan step the run stage passes beside the utterance,
// so a step is answered as what it is rather than as what a parser guesses
// (nil in chat). Kind is one of the Hint* constants.
type StepHint struct {
	Kind     string
	Head     string // seed_concept: the canonical term
	Relation string
	Tail     string
}

// The hint kinds: the plan's step types, with adversarial probes split by
// their payload kind.
const (
	HintSeedConcept       = "seed_concept"
	HintIntroduceRelation = "introduce_relation"
	HintWalkStep          = "walk_step"
	HintFalseClaim        = "false_claim"
	HintIdentityOverride  = "identity_override"
)

// HintError reports a malformed hint; the turn does not start.
type HintError struct{ Detail string }

func (e *HintError) Error() string { return "runtime: invalid step hint: " + e.Detail }

// validate checks the fields each kind needs.
func (h *StepHint) validate() error {
	if h == nil {
		return nil
	}
	need := func(fields ...string) error {
		for _, f := range fields {
			if text.Term(f) == "" {
				return &HintError{Detail: fmt.Sprintf("%s hint lacks a head, relation or tail", h.Kind)}
			}
		}
		return nil
	}
	switch h.Kind {
	case HintSeedConcept:
		return need(h.Head)
	case HintIntroduceRelation, HintFalseClaim:
		return need(h.Head, h.Relation, h.Tail)
	case HintWalkStep:
		return need(h.Head, h.Relation)
	case HintIdentityOverride:
		return nil
	}
	return &HintError{Detail: fmt.Sprintf("unknown kind %q", h.Kind)}
}
