package teaching

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"formation/artifact"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/runtime/epistemic"
	"formation/runtime/text"
)

// Kind is what a proposal proposes.
type Kind string

// The kinds of proposal.
const (
	// Relation proposes a triple: "a lens causes refraction".
	Relation Kind = "relation"
	// Definition proposes a term's definition: "a lens is a curved glass".
	Definition Kind = "definition"
	// CounterClaim proposes that a triple is false: "a lens does not cause
	// refraction".
	CounterClaim Kind = "counter_claim"
)

// Limits of a proposal.
const (
	// MaxPerSession is how many proposals one chat session may record.
	MaxPerSession = 100
	// MaxWordsBytes bounds the user's words (the runtime's input bound).
	MaxWordsBytes = 4096
)

// TimeLayout is the form of decided_at and pruned_at (UTC, seconds).
const TimeLayout = "2006-01-02T15:04:05Z"

// Triple is a proposed claim: its terms in the normal form a user's sentence
// is read in (text.NormalTerm, the form the forge validates terms in), its
// relation as the vocabulary writes it (text.Relation).
type Triple struct {
	Head     string `json:"head"`
	Relation string `json:"relation"`
	Tail     string `json:"tail"`
}

// Proposal is one teaching proposal (the contract's PackMutationProposal);
// with a Decision it is the decided copy (the contract's
// ReviewedTeachingExample). Its id is the SHA-256 of its canonical JSON
// (Digest); a decided or pruned copy names the proposal it derives from in
// Proposal, so the id survives every later record.
type Proposal struct {
	SchemaVersion string `json:"schema_version"`
	Kind          Kind   `json:"kind"`
	// Triple is set for relations and counter-claims.
	Triple *Triple `json:"triple,omitempty"`
	// Term and Definition are set for definitions.
	Term       string `json:"term,omitempty"`
	Definition string `json:"definition,omitempty"`
	// Words are the user's words as typed ("" once pruned).
	Words string `json:"words"`
	// TraceHash is the trace hash of the turn that made the proposal.
	TraceHash string `json:"trace_hash"`
	// SessionID names the chat session; Turn is the turn's index in it.
	SessionID       string           `json:"session_id"`
	Turn            int              `json:"turn"`
	EpistemicStatus epistemic.Status `json:"epistemic_status"`

	// Proposal is the id of the proposal a decided or pruned copy derives
	// from; "" on the proposal itself.
	Proposal string    `json:"proposal,omitempty"`
	Decision *Decision `json:"decision,omitempty"`
	// PrunedAt is when the user's words were dropped from a decided copy.
	PrunedAt string `json:"pruned_at,omitempty"`
}

// NewRelation is the proposal of a triple (negated: a counter-claim).
// Terms and relation are put in normal form.
func NewRelation(t Triple, negated bool, words, traceHash, sessionID string, turn int) Proposal {
	kind := Relation
	if negated {
		kind = CounterClaim
	}
	n := Triple{Head: text.NormalTerm(t.Head), Relation: text.Relation(t.Relation), Tail: text.NormalTerm(t.Tail)}
	return Proposal{SchemaVersion: artifact.SchemaVersion, Kind: kind, Triple: &n, Words: words,
		TraceHash: traceHash, SessionID: sessionID, Turn: turn, EpistemicStatus: epistemic.Speculative}
}

// NewDefinition is the proposal of a term's definition. The term is put in
// normal form (text.NormalTerm); the definition is kept as given.
func NewDefinition(term, definition, words, traceHash, sessionID string, turn int) Proposal {
	return Proposal{SchemaVersion: artifact.SchemaVersion, Kind: Definition, Term: text.NormalTerm(term),
		Definition: strings.TrimSpace(definition), Words: words, TraceHash: traceHash, SessionID: sessionID,
		Turn: turn, EpistemicStatus: epistemic.Speculative}
}

// Original reports whether p is a proposal as recorded, not a copy that
// decides or prunes one.
func (p Proposal) Original() bool { return p.Proposal == "" && p.Decision == nil && p.PrunedAt == "" }

// Decided reports whether p carries a decision.
func (p Proposal) Decided() bool { return p.Decision != nil }

// WithStatus returns a copy of p with only its status changed: the one way a
// proposal's status moves (the contract's with_status). The copy shares
// nothing with p, so neither can change the other.
func (p Proposal) WithStatus(s epistemic.Status) Proposal {
	c := p
	if p.Triple != nil {
		t := *p.Triple
		c.Triple = &t
	}
	if p.Decision != nil {
		d := p.Decision.clone()
		c.Decision = &d
	}
	c.EpistemicStatus = s
	return c
}

// Canonical is the canonical JSON of p: the bytes its id is the digest of.
func (p Proposal) Canonical() ([]byte, error) {
	b, err := artifact.Encode(p)
	if err != nil {
		return nil, fmt.Errorf("teaching: %w", err)
	}
	return b, nil
}

// Digest is the SHA-256 of Canonical: the id of an original proposal.
func (p Proposal) Digest() (string, error) {
	b, err := p.Canonical()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Decode reads a record: strict canonical JSON (exactly one byte form per
// record) of a well-formed proposal. Anything else is ReasonInvalid (65).
func Decode(raw []byte) (Proposal, error) {
	p, err := artifact.Decode[Proposal](raw)
	if err != nil {
		return Proposal{}, refuse(exitcode.Rejected, ReasonInvalid, "%v", err)
	}
	again, err := p.Canonical()
	if err != nil || !bytes.Equal(again, raw) {
		return Proposal{}, refuse(exitcode.Rejected, ReasonInvalid, "the record is not canonical JSON")
	}
	if err := p.Check(); err != nil {
		return Proposal{}, err
	}
	return p, nil
}

// Check validates the shape of a record (it does not verify a decision's
// signature: VerifyDecision does).
func (p Proposal) Check() error {
	bad := func(format string, args ...any) error {
		return refuse(exitcode.Rejected, ReasonInvalid, format, args...)
	}
	if p.SchemaVersion != artifact.SchemaVersion {
		return bad("schema_version %q, want %q", p.SchemaVersion, artifact.SchemaVersion)
	}
	if err := p.checkClaim(); err != nil {
		return bad("%v", err)
	}
	switch {
	case !utf8.ValidString(p.Words) || len(p.Words) > MaxWordsBytes:
		return bad("words must be UTF-8 of at most %d bytes", MaxWordsBytes)
	case p.Words == "" && p.PrunedAt == "":
		return bad("no words: only a pruned record drops them")
	case p.Words != "" && p.PrunedAt != "":
		return bad("a pruned record keeps no words")
	case !ident.ValidDigest(p.TraceHash):
		return bad("trace_hash %q is not a digest", p.TraceHash)
	case ident.CheckID(p.SessionID) != nil:
		return bad("session_id: %v", ident.CheckID(p.SessionID))
	case p.Turn < 0:
		return bad("turn %d is negative", p.Turn)
	case !p.EpistemicStatus.Valid():
		return bad("epistemic_status %q", p.EpistemicStatus)
	}
	return p.checkLineage(bad)
}

// checkLineage: an original is Speculative and stands alone; a decided copy
// names its proposal and carries its decision; only a decided copy is pruned.
func (p Proposal) checkLineage(bad func(string, ...any) error) error {
	if p.Original() {
		if p.EpistemicStatus != epistemic.Speculative {
			return bad("a proposal is recorded Speculative, not %s", p.EpistemicStatus)
		}
		return nil
	}
	if !ident.ValidDigest(p.Proposal) || p.Decision == nil {
		return bad("a derived record names its proposal by digest and carries a decision")
	}
	if err := p.Decision.check(); err != nil {
		return bad("decision: %v", err)
	}
	if p.PrunedAt != "" {
		if _, err := time.Parse(TimeLayout, p.PrunedAt); err != nil {
			return bad("pruned_at %q is not %s", p.PrunedAt, TimeLayout)
		}
	}
	return nil
}

func (p Proposal) checkClaim() error {
	switch p.Kind {
	case Relation, CounterClaim:
		t := p.Triple
		if t == nil || p.Term != "" || p.Definition != "" {
			return fmt.Errorf("a %s has a triple and no term or definition", p.Kind)
		}
		if t.Head == "" || t.Tail == "" || t.Relation == "" || t.Head != text.NormalTerm(t.Head) ||
			t.Tail != text.NormalTerm(t.Tail) || t.Relation != text.Relation(t.Relation) {
			return fmt.Errorf("triple (%q, %q, %q) is not in normal form", t.Head, t.Relation, t.Tail)
		}
	case Definition:
		if p.Triple != nil || p.Term == "" || p.Term != text.NormalTerm(p.Term) || strings.TrimSpace(p.Definition) == "" {
			return fmt.Errorf("a definition has a term in normal form and a definition, and no triple")
		}
		if !utf8.ValidString(p.Definition) || len(p.Definition) > MaxWordsBytes {
			return fmt.Errorf("the definition must be UTF-8 of at most %d bytes", MaxWordsBytes)
		}
	default:
		return fmt.Errorf("kind %q is not relation, definition or counter_claim", p.Kind)
	}
	return nil
}

// Claim says what p proposes, in words.
func (p Proposal) Claim() string {
	switch p.Kind {
	case Definition:
		return p.Term + ": " + p.Definition
	case CounterClaim:
		return "it is not true that " + p.Triple.sentence()
	}
	return p.Triple.sentence()
}

// Sentence is the text a proposal is mined as: one sentence from which the
// smelter extracts exactly the proposed claim ("lens causes refraction.",
// "It is not true that lens causes refraction.", "lens is defined as …").
func (p Proposal) Sentence() string {
	switch p.Kind {
	case Definition:
		return p.Term + " is defined as " + strings.TrimSuffix(p.Definition, ".") + "."
	case CounterClaim:
		return "It is not true that " + p.Triple.sentence() + "."
	}
	return p.Triple.sentence() + "."
}

func (t *Triple) sentence() string { return t.Head + " " + text.Spaced(t.Relation) + " " + t.Tail }

// Standing is where a proposal stands now: its status and, once decided,
// the verdict.
type Standing struct {
	Status  epistemic.Status
	Verdict Verdict // "" until decided
}

// Standing is p's standing.
func (p Proposal) Standing() Standing {
	s := Standing{Status: p.EpistemicStatus}
	if p.Decision != nil {
		s.Verdict = p.Decision.Verdict
	}
	return s
}

// Usable reports whether a conversation may still rest an answer on the
// proposal (as speculative): its status is load-bearing and no curator
// rejected it.
func (s Standing) Usable() bool { return s.Status.LoadBearing() && s.Verdict != Rejected }
