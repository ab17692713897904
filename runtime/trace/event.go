package trace

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// TurnEvent is the durable record of one turn; exactly one is emitted per
// turn, on every path (answered, refused, gated, halted). Numbers that are
// measurements are strings so the line stays canonical JSON.
type TurnEvent struct {
	Turn                 int      `json:"turn"`
	InputTokens          []string `json:"input_tokens"`
	Surface              string   `json:"surface"`
	WalkSurface          string   `json:"walk_surface"`
	ArticulationSurface  string   `json:"articulation_surface"`
	DialogueRole         string   `json:"dialogue_role"`
	Intent               string   `json:"intent"`
	GroundingSource      string   `json:"grounding_source"`
	StubPath             bool     `json:"stub_path"` // the unknown-domain gate fired
	VaultHits            int      `json:"vault_hits"`
	VersorCondition      string   `json:"versor_condition"`
	Flagged              bool     `json:"flagged"`
	IdentityScore        string   `json:"identity_score"`
	IdentityDeviation    []string `json:"identity_deviation_axes"`
	EpistemicStatus      string   `json:"epistemic_status"`
	RefusalReason        string   `json:"refusal_reason"`
	RefusalEmitted       bool     `json:"refusal_emitted"`
	CitedSourceSHAs      []string `json:"cited_source_shas"`
	SafetyPackID         string   `json:"safety_pack_id"`
	IdentityPackID       string   `json:"identity_pack_id"`
	SafetyUpheld         bool     `json:"safety_upheld"`
	SafetyViolated       []string `json:"safety_violated"`
	SafetyCheckableCount int      `json:"safety_runtime_checkable_count"`
	IdentityHashBefore   string   `json:"identity_hash_before"`
	IdentityHashAfter    string   `json:"identity_hash_after"`
	Halted               bool     `json:"halted"`
	TraceHash            string   `json:"trace_hash"`
	// TeachingProposal and TeachingEpistemicStatus: see ChatResponse; absent
	// outside teaching, so every other event's line is as it always was.
	TeachingProposal        string `json:"teaching_proposal,omitempty"`
	TeachingEpistemicStatus string `json:"teaching_epistemic_status,omitempty"`
}

// EventSink receives TurnEvents.
type EventSink interface {
	Emit(ctx context.Context, e TurnEvent) error
}

// MarshalLine is the JSON line of an event: canonical JSON and a newline.
func MarshalLine(e TurnEvent) ([]byte, error) {
	for _, l := range []*[]string{&e.InputTokens, &e.IdentityDeviation, &e.CitedSourceSHAs, &e.SafetyViolated} {
		if *l == nil {
			*l = []string{}
		}
	}
	b, err := AppendEvent(nil, &e) // sized for the event and its newline
	if err != nil {
		return nil, fmt.Errorf("trace: encode turn event: %w", err)
	}
	return append(b, '\n'), nil
}

// JSONLWriter writes one canonical JSON line per event to w. It is safe for
// concurrent use; each line is written with a single Write call.
type JSONLWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONLWriter returns a sink writing to w.
func NewJSONLWriter(w io.Writer) *JSONLWriter { return &JSONLWriter{w: w} }

// Emit writes the event's line.
func (s *JSONLWriter) Emit(ctx context.Context, e TurnEvent) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("trace: emit: %w", err)
	}
	line, err := MarshalLine(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(line); err != nil {
		return fmt.Errorf("trace: write turn event: %w", err)
	}
	return nil
}

// Memory keeps events in memory, for tests and for callers that batch.
type Memory struct {
	mu     sync.Mutex
	events []TurnEvent
}

// Emit appends the event.
func (m *Memory) Emit(_ context.Context, e TurnEvent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, e)
	return nil
}

// Events returns a copy of what was emitted, in order.
func (m *Memory) Events() []TurnEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]TurnEvent(nil), m.events...)
}
