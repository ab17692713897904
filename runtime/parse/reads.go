package parse

import (
	"fmt"

	"formation/runtime/text"
)

// Reading a step back: whether a sentence, typed by a user, reaches a given
// record. The run stage asks it of every step it drives, and the forge of
// every claim it validates, so that both mean the same thing by it.

// ReadsStatement reports whether input, read as a user's sentence, is the
// positive statement (head, relation, tail): the same relation, not negated,
// and a subject and an object that the knowledge files under the same keys
// as head and tail (text.Term). It also returns the reading, without the
// tokens (a check needs no embedding).
func (g *Grammar) ReadsStatement(input, head, relation, tail string) (Utterance, bool) {
	u := g.read(input)
	return u, IsStatement(u, head, relation, tail)
}

// IsStatement is ReadsStatement's test of a reading u.
func IsStatement(u Utterance, head, relation, tail string) bool {
	return u.Intent == Statement && !u.Negated && u.Relation == text.Relation(relation) &&
		sameKey(u.Subject, head) && sameKey(u.Object, tail)
}

// Reading is what ReadsStatement and ReadsDefinition read input as, taken
// from p, input's Parse, when Parse read it (it found tokens): Parse is
// that reading with the tokens. ok is false when Parse did not read it.
func Reading(p Utterance) (u Utterance, ok bool) {
	if len(p.Tokens) == 0 {
		return Utterance{}, false
	}
	p.Tokens = nil
	return p, true
}

// ReadsDefinition reports whether input, read as a user's sentence, asks for
// the definition of term (the same knowledge key). It also returns the
// reading.
func (g *Grammar) ReadsDefinition(input, term string) (Utterance, bool) {
	u := g.read(input)
	return u, IsDefinition(u, term)
}

// IsDefinition is ReadsDefinition's test of a reading u.
func IsDefinition(u Utterance, term string) bool {
	return u.Intent == Definition && sameKey(u.Subject, term)
}

// sameKey reports whether two terms are filed under one knowledge key.
func sameKey(a, b string) bool { return a == b || text.Term(a) == text.Term(b) }

// Describe says what the utterance was read as, for reports: `a definition
// question about "lens"`, `the statement ("lens", "has", "focal point")`.
func (u Utterance) Describe() string {
	switch u.Intent {
	case Definition:
		return fmt.Sprintf("a definition question about %q", u.Subject)
	case Walk:
		return fmt.Sprintf("a walk question from %q along %q", u.Subject, u.Relation)
	case Statement:
		what := "the statement"
		if u.Negated {
			what = "the denial"
		}
		return fmt.Sprintf("%s (%q, %q, %q)", what, u.Subject, u.Relation, u.Object)
	}
	return fmt.Sprintf("nothing it can answer (%s)", u.Intent)
}
