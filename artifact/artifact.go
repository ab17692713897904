// Package artifact defines every artifact type that more than one stage reads
// or writes, with the field names of the original system, and their canonical
// encoding and strict decoding.
//
// Artifacts are plain structs; their identity is the SHA-256 of their
// canonical JSON (package canon). Decode refuses unknown fields, missing
// required fields and wrong types, so a stage never works on a half-understood
// input. Stages extend these types (new optional fields, omitted when empty);
// they never redefine them.
package artifact

import (
	"fmt"
	"strings"

	"formation/canon"
)

// SchemaVersion is the schema_version of every artifact of this generation.
const SchemaVersion = "1.0.0"

// Encode returns the canonical bytes of an artifact.
func Encode(v any) ([]byte, error) {
	if b, ok := encodeDirect(v); ok {
		return b, nil
	}
	b, err := canon.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("artifact: encode %T: %w", v, err)
	}
	return b, nil
}

// Digest is the SHA-256 identity of an artifact.
func Digest(v any) (string, error) {
	d, err := canon.SHA256Hex(v)
	if err != nil {
		return "", fmt.Errorf("artifact: digest %T: %w", v, err)
	}
	return d, nil
}

// Decode strictly decodes data into a T.
func Decode[T any](data []byte) (T, error) {
	var v T
	if decodeDirect(data, &v) {
		return v, nil
	}
	v = *new(T) // what the direct reader filled before it declined
	if err := canon.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("artifact: decode %T: %w", v, err)
	}
	return v, nil
}

// CandidateState is where a candidate stands in the Forge.
type CandidateState string

// The candidate states, serialised by value.
const (
	StateProposed    CandidateState = "proposed"
	StateQuarantined CandidateState = "quarantined"
	StateValidated   CandidateState = "validated"
)

// SourceRef cites the source a candidate came from.
//
// The first four fields are the original's. The rest are this design's span
// extension: TextSHA names the extracted-text object, and [Start, End) is the
// byte range of that text whose bytes are exactly Span; Extractor names the
// smelter that cut the span. They are omitted when empty, and the hashing
// projections of the original never include them.
type SourceRef struct {
	SourceSHA   string `json:"source_sha"`
	Span        string `json:"span"`
	Adapter     string `json:"adapter"`
	RetrievedAt string `json:"retrieved_at"`
	TextSHA     string `json:"text_sha,omitempty"`
	Start       *int64 `json:"start,omitempty"`
	End         *int64 `json:"end,omitempty"`
	Extractor   string `json:"extractor,omitempty"`
}

// HasSpanRange reports whether the ref names a text object and a byte range,
// i.e. whether its span can be checked against stored bytes.
func (s SourceRef) HasSpanRange() bool {
	return s.TextSHA != "" && s.Start != nil && s.End != nil
}

// ConceptCandidate is a term with its definition.
type ConceptCandidate struct {
	CanonicalTerm   string         `json:"canonical_term"`
	Definition      string         `json:"definition"`
	Sources         []SourceRef    `json:"sources"`
	State           CandidateState `json:"state"`
	RejectionReason string         `json:"rejection_reason"`
}

// RelationCandidate is a typed (head, relation, tail) claim.
type RelationCandidate struct {
	Head            string         `json:"head"`
	Relation        string         `json:"relation"`
	Tail            string         `json:"tail"`
	Sources         []SourceRef    `json:"sources"`
	State           CandidateState `json:"state"`
	RejectionReason string         `json:"rejection_reason"`
}

// Triple returns the candidate's (head, relation, tail).
func (r RelationCandidate) Triple() Triple { return Triple{r.Head, r.Relation, r.Tail} }

// CounterCandidate is a claim labelled false but plausible; same shape as a relation.
type CounterCandidate = RelationCandidate

// OrderingHint says Before should be taught before After.
type OrderingHint struct {
	Before  string      `json:"before"`
	After   string      `json:"after"`
	Sources []SourceRef `json:"sources"`
}

// Triple is a bare (head, relation, tail).
type Triple struct {
	Head     string `json:"head"`
	Relation string `json:"relation"`
	Tail     string `json:"tail"`
}

// Less orders triples by (head, relation, tail).
func (t Triple) Less(o Triple) bool {
	if t.Head != o.Head {
		return t.Head < o.Head
	}
	if t.Relation != o.Relation {
		return t.Relation < o.Relation
	}
	return t.Tail < o.Tail
}

// SubjectSpec describes the subject a course teaches.
type SubjectSpec struct {
	SubjectID               string   `json:"subject_id"`
	Title                   string   `json:"title"`
	TargetDepth             string   `json:"target_depth"`
	RequiresCourses         []string `json:"requires_courses"`
	AntiRequisites          []string `json:"anti_requisites"`
	IdentityAxisConstraints []string `json:"identity_axis_constraints"`
	SchemaVersion           string   `json:"schema_version"`
}

// OreEntry is one mined source. TextSHA (this design's extension) names the
// extracted-text object when the raw bytes needed extraction. Model and
// PromptSHA record, for an LLM-generated entry only, which model wrote it
// and the SHA-256 of the prompt it answered.
type OreEntry struct {
	SourceSHA   string `json:"source_sha"`
	URL         string `json:"url"`
	Adapter     string `json:"adapter"`
	RetrievedAt string `json:"retrieved_at"`
	ByteLength  int64  `json:"byte_length"`
	Citation    string `json:"citation"`
	TextSHA     string `json:"text_sha,omitempty"`
	Model       string `json:"model,omitempty"`
	PromptSHA   string `json:"prompt_sha,omitempty"`
}

// AdapterLLMPrefix starts the adapter name of every LLM-generated entry
// ("llm_ideation/<model>") and so of every SourceRef cut from one; forge
// treats such sources as tier llm whatever the allow-list says.
const AdapterLLMPrefix = "llm_ideation/"

// IsLLMAdapter reports whether an entry or SourceRef adapter names an LLM
// source.
func IsLLMAdapter(adapter string) bool {
	return strings.HasPrefix(adapter, AdapterLLMPrefix) || adapter == "llm_ideation"
}

// OreBundle is the output of mine; source_bundle_sha is its digest.
type OreBundle struct {
	SubjectID     string     `json:"subject_id"`
	Entries       []OreEntry `json:"entries"`
	SchemaVersion string     `json:"schema_version"`
}

// SmeltedBundle is the output of smelt: candidates that cite source spans.
type SmeltedBundle struct {
	Concepts      []ConceptCandidate  `json:"concepts"`
	Relations     []RelationCandidate `json:"relations"`
	Counters      []CounterCandidate  `json:"counters"`
	OrderingHints []OrderingHint      `json:"ordering_hints"`
}

// ValidatedTripleSet is the output of forge, the only validator.
//
// DeclaredRelations (this design's extension) are the relations the subject
// declared beyond the original's 17, in code-point order: the vocabulary the
// set's claims were validated against and that the runtime reads them with.
// It is omitted when empty, so a set without a declaration has the
// original's shape and digest. (The name is not "relations": that key holds
// the validated claims.)
type ValidatedTripleSet struct {
	SubjectID         string              `json:"subject_id"`
	Concepts          []ConceptCandidate  `json:"concepts"`
	Relations         []RelationCandidate `json:"relations"`
	Counters          []CounterCandidate  `json:"counters"`
	OrderingHints     []OrderingHint      `json:"ordering_hints"`
	Quarantined       []RelationCandidate `json:"quarantined"`
	SchemaVersion     string              `json:"schema_version"`
	DeclaredRelations []string            `json:"declared_relations,omitempty"`
}

// AllowedSource is one allow-list entry. Curated marks a hand-written source
// whose candidates may carry no byte range (their spans cannot be checked).
type AllowedSource struct {
	SourceSHA string `json:"source_sha"`
	Tier      string `json:"tier"`
	Label     string `json:"label"`
	Curated   bool   `json:"curated,omitempty"`
}

// Allow-list tiers.
const (
	TierPrimary   = "primary"
	TierSecondary = "secondary"
	TierLLM       = "llm"
)
