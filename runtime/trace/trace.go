// Package trace makes a turn replayable and auditable: the trace hash that
// pins what a turn produced, and the TurnEvent log.
//
// ComputeTraceHash is the SHA-256 of the canonical JSON (formation/canon:
// sorted keys, tight separators, raw UTF-8, no floats) of a Payload. The
// versor condition enters as a fixed-format string (FormatCondition), never
// as a float, so the hash does not depend on float printing. refusal_reason
// is folded only when non-empty, so a turn that did not refuse hashes the same
// whether or not refusals exist; teaching_epistemic_status (the status of the
// teaching proposals a turn's answer rests on) likewise, so every turn that
// rests on no proposal hashes as it always did; epistemic_status is always a
// key ("" when the turn rested on no claim).
package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"formation/canon"
)

// FormatCondition is the one textual form of a versor condition: "0.0e+00"
// for exactly zero, otherwise printf %.3e ("1.000e-07"), the run stage's
// versor_condition_repr.
func FormatCondition(v float64) string {
	if v == 0 {
		return "0.0e+00"
	}
	return strconv.FormatFloat(v, 'e', 3, 64) // what %.3e prints, without fmt's machinery (TestFormatConditionIsPrintf)
}

// Cite is the part of a citation a trace pins: which source, which span.
type Cite struct {
	SourceSHA string `json:"source_sha"`
	Span      string `json:"span"`
	TextSHA   string `json:"text_sha,omitempty"`
	Start     int    `json:"start,omitempty"`
	End       int    `json:"end,omitempty"`
}

// Edge is one knowledge edge the turn's answer rests on.
type Edge struct {
	Head     string `json:"head"`
	Relation string `json:"relation"`
	Tail     string `json:"tail"`
}

// Payload is everything a turn's hash covers.
type Payload struct {
	InputText           string   `json:"input_text"`
	FilteredTokens      []string `json:"filtered_tokens"`
	Surface             string   `json:"surface"`
	WalkSurface         string   `json:"walk_surface"`
	ArticulationSurface string   `json:"articulation_surface"`
	DialogueRole        string   `json:"dialogue_role"`
	VersorCondition     string   `json:"versor_condition"`
	VaultHits           int      `json:"vault_hits"`
	IntentTag           string   `json:"intent_tag"`
	ReviewHash          string   `json:"review_hash"`
	ClaimID             string   `json:"claim_id"`
	EpistemicStatus     string   `json:"epistemic_status"`
	OperatorInvocation  string   `json:"operator_invocation"`
	Citations           []Cite   `json:"citations"`
	Graph               []Edge   `json:"graph"`
	RefusalReason       string   `json:"refusal_reason,omitempty"`
	// TeachingEpistemicStatus is the status in the store, when the turn ran,
	// of the teaching proposals its answer rests on ("" when none): a replay
	// after a curator's review hashes differently.
	TeachingEpistemicStatus string `json:"teaching_epistemic_status,omitempty"`
}

// ComputeTraceHash is the lowercase hex SHA-256 of the payload's canonical
// JSON. Nil lists hash as empty lists, so absent and empty agree.
func ComputeTraceHash(p Payload) (string, error) {
	var h Hasher
	return h.Hash(p)
}

// Hasher is ComputeTraceHash with the buffer the payload is written into
// kept from one hash to the next: a conversation hashes every turn, and a
// new buffer each time was one of a turn's larger allocations. The zero
// value is ready; a Hasher is for one goroutine at a time.
type Hasher struct{ buf []byte }

// maxKept bounds the buffer a Hasher keeps between hashes: one long walk
// answer does not pin its buffer for the rest of a conversation.
const maxKept = 64 << 10

// Hash is ComputeTraceHash(p).
func (h *Hasher) Hash(p Payload) (string, error) {
	if p.FilteredTokens == nil {
		p.FilteredTokens = []string{}
	}
	if p.Citations == nil {
		p.Citations = []Cite{}
	}
	if p.Graph == nil {
		p.Graph = []Edge{}
	}
	// A buffer of about the right size: a walk's answer outgrew a fixed one
	// several times over.
	b, err := appendPayload(slices.Grow(h.buf[:0], payloadSize(&p)), &p)
	if cap(b) <= maxKept {
		h.buf = b[:0]
	}
	if err != nil {
		// canon.Marshal refuses it too, in its own words.
		if b, err = canon.Marshal(p); err != nil {
			return "", fmt.Errorf("trace: hash payload: %w", err)
		}
	}
	return hexSum(b), nil
}

// hexSum is the lowercase hex SHA-256 of b, spelled into an array first so
// that only the string is allocated (hex.EncodeToString allocates twice).
func hexSum(b []byte) string {
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// payloadSize is about the length of p's encoding: its strings as they
// are, with room for the keys, quotes and commas (a payload with every
// string empty is 271 bytes); escapes may need more.
func payloadSize(p *Payload) int {
	n := 280 + len(p.ArticulationSurface) + len(p.ClaimID) + len(p.DialogueRole) + len(p.EpistemicStatus) +
		len(p.InputText) + len(p.IntentTag) + len(p.OperatorInvocation) + len(p.RefusalReason) + len(p.ReviewHash) +
		len(p.Surface) + len(p.TeachingEpistemicStatus) + len(p.VersorCondition) + len(p.WalkSurface)
	for _, t := range p.FilteredTokens {
		n += len(t) + 3
	}
	for _, c := range p.Citations {
		n += len(c.SourceSHA) + len(c.Span) + len(c.TextSHA) + 80
	}
	for _, e := range p.Graph {
		n += len(e.Head) + len(e.Relation) + len(e.Tail) + 40
	}
	return n
}

// Digest is the lowercase hex SHA-256 of canon.Marshal(v) — the same value
// as canon.SHA256Hex, computed in one shot: turn payloads are a few hundred
// bytes, and the streaming hasher's 64 KiB chunk buffer would dominate the
// cost of a turn.
func Digest(v any) (string, error) {
	b, err := canon.Marshal(v)
	if err != nil {
		return "", err
	}
	return hexSum(b), nil
}
