package knowledge

import (
	"fmt"
	"strings"

	"formation/runtime/epistemic"
)

// Citation points at the source span a record came from. SourceSHA is the
// SHA-256 of the source; Span is the quoted excerpt. When TextSHA is set,
// [Start, End) is the byte range of that extracted-text object whose bytes are
// Span (an absent start reads as 0).
type Citation struct {
	SourceSHA   string `json:"source_sha"`
	Span        string `json:"span"`
	Adapter     string `json:"adapter,omitempty"`
	RetrievedAt string `json:"retrieved_at,omitempty"`
	TextSHA     string `json:"text_sha,omitempty"`
	Start       int    `json:"start,omitempty"`
	End         int    `json:"end,omitempty"`
}

func (c Citation) less(o Citation) bool {
	if c.SourceSHA != o.SourceSHA {
		return c.SourceSHA < o.SourceSHA
	}
	if c.Span != o.Span {
		return c.Span < o.Span
	}
	if c.Adapter != o.Adapter {
		return c.Adapter < o.Adapter
	}
	if c.RetrievedAt != o.RetrievedAt {
		return c.RetrievedAt < o.RetrievedAt
	}
	if c.TextSHA != o.TextSHA {
		return c.TextSHA < o.TextSHA
	}
	if c.Start != o.Start {
		return c.Start < o.Start
	}
	return c.End < o.End
}

// Concept is a term with one definition and the sources that give it.
type Concept struct {
	Term       string           `json:"term"`
	Definition string           `json:"definition"`
	Sources    []Citation       `json:"sources"`
	Status     epistemic.Status `json:"epistemic_status"`
}

// Key identifies a triple: (head, relation, tail) in normal form.
type Key struct {
	Head     string `json:"head"`
	Relation string `json:"relation"`
	Tail     string `json:"tail"`
}

func (k Key) less(o Key) bool { return k.compare(o) < 0 }

// compare orders keys by head, then relation, then tail.
func (k Key) compare(o Key) int {
	if c := strings.Compare(k.Head, o.Head); c != 0 {
		return c
	}
	if c := strings.Compare(k.Relation, o.Relation); c != 0 {
		return c
	}
	return strings.Compare(k.Tail, o.Tail)
}

func (k Key) String() string { return fmt.Sprintf("(%s, %s, %s)", k.Head, k.Relation, k.Tail) }

// Triple is a typed claim with its citations and status. The zero Status
// means Speculative.
type Triple struct {
	Head     string           `json:"head"`
	Relation string           `json:"relation"`
	Tail     string           `json:"tail"`
	Sources  []Citation       `json:"sources"`
	Status   epistemic.Status `json:"epistemic_status"`
}

// Key returns the triple's identity.
func (t Triple) Key() Key { return Key{t.Head, t.Relation, t.Tail} }

// WithStatus returns a copy of t with only its status changed. The copy owns
// its own citation slice, so neither can change the other: this is the one
// sanctioned way to move a claim to another status.
func (t Triple) WithStatus(s epistemic.Status) Triple {
	c := t
	c.Sources = append([]Citation(nil), t.Sources...)
	c.Status = s
	return c
}

// Error is every error this package returns.
type Error struct {
	Reason string // stable code, e.g. "empty_term", "invalid_source"
	Detail string
}

func (e *Error) Error() string { return "knowledge: " + e.Reason + ": " + e.Detail }

// Reasons an input is refused.
const (
	ReasonEmptyTerm     = "empty_term"
	ReasonEmptyRelation = "empty_relation"
	ReasonInvalidStatus = "invalid_status"
	ReasonNoSources     = "no_sources"
	ReasonInvalidSource = "invalid_source"
	ReasonDecode        = "decode"
	ReasonQuarantined   = "quarantined_record"
)

func errorf(reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}
