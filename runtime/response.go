package runtime

import (
	"formation/packs"
	"formation/runtime/epistemic"
	"formation/runtime/identity"
	"formation/runtime/knowledge"
	"formation/runtime/refusal"
	"formation/runtime/trace"
)

// UnknownDomainSurface is the surface of a turn the knowledge does not ground.
const UnknownDomainSurface = "I don't have field coordinates for that yet."

// Kind is what a response is.
type Kind string

// The kinds of response.
const (
	KindDefinition   Kind = "definition"
	KindConfirmation Kind = "relation_confirmation"
	KindWalk         Kind = "transitive_walk"
	KindUnknown      Kind = "unknown_domain"
	KindRefusal      Kind = "refusal"
	// KindProposal: a teaching session recorded the statement as a teaching
	// proposal (the knowledge does not confirm it).
	KindProposal Kind = "teaching_proposal"
)

// Grounding sources.
const (
	GroundedKnowledge = "knowledge"
	GroundedNone      = "none"
)

// RefusalReason is the closed set of refusal codes (package refusal).
type RefusalReason = refusal.Reason

// ChatResponse is the result of one turn. Measurements that are floats are
// strings here so the response stays canonical JSON; the exact values are
// kept beside them (not serialised) for callers that compare numbers.
type ChatResponse struct {
	Turn                int                  `json:"turn"`
	Kind                Kind                 `json:"kind"`
	Intent              string               `json:"intent"`
	Subject             string               `json:"subject"` // the term the answer is about
	Surface             string               `json:"surface"`
	WalkSurface         string               `json:"walk_surface"`
	ArticulationSurface string               `json:"articulation_surface"`
	DialogueRole        string               `json:"dialogue_role"`
	GroundingSource     string               `json:"grounding_source"`
	GateFired           bool                 `json:"gate_fired"`
	RefusalReason       RefusalReason        `json:"refusal_reason"`
	RefusalBoundaries   []string             `json:"refusal_boundaries"` // safety boundaries a refusal names
	EpistemicStatus     epistemic.Status     `json:"epistemic_status"`
	Citations           []knowledge.Citation `json:"citations"`
	Edges               []trace.Edge         `json:"edges"`      // the knowledge edges the answer rests on
	WalkTails           []string             `json:"walk_tails"` // terms a walk reached, in walk order
	VaultHits           int                  `json:"vault_hits"`
	Flagged             bool                 `json:"flagged"`
	IdentityScore       string               `json:"identity_score"`
	VersorCondition     string               `json:"versor_condition"`
	SafetyVerdict       packs.SafetyVerdict  `json:"safety_verdict"`
	Halted              bool                 `json:"halted"`
	TraceHash           string               `json:"trace_hash"`
	// TeachingProposal is the id of the teaching proposal the turn recorded;
	// TeachingEpistemicStatus the status in the store of the proposals the
	// answer rests on, folded into the trace hash. Both are "" (and absent
	// from the JSON) outside teaching.
	TeachingProposal        string `json:"teaching_proposal,omitempty"`
	TeachingEpistemicStatus string `json:"teaching_epistemic_status,omitempty"`

	// Condition is the exact versor condition of the turn's field state.
	Condition float64 `json:"-"`
	// Identity is the full identity score behind Flagged and IdentityScore.
	Identity identity.Score `json:"-"`
}

// Refused reports whether the turn refused.
func (r ChatResponse) Refused() bool { return r.RefusalReason != refusal.None }
