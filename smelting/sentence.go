package smelting

import (
	"formation/artifact"
	"formation/relparse"
)

// kind is the kind of candidate a hit proposes.
type kind uint8

const (
	kindConcept kind = iota
	kindRelation
	kindCounter
	kindHint
)

// hit is one candidate found in one sentence of one text: its key and the
// sentence's byte range. The key is (term, definition) for a concept,
// (head, relation, tail) for a relation or counter-claim, and (before,
// after) for an ordering hint.
type hit struct {
	kind       kind
	a, b, c    string
	start, end int
}

// extractSentence appends the hits of one sentence, flat (its bytes at
// [start, end) of the text with every whitespace run collapsed to one
// space). Every pattern reads the sentence as the original did: flat, with
// its terminators removed.
//
// A sentence is exactly one of three things. A counter-claim ("It is a
// misconception that …", "Not …") yields only its counter-claim. A negated
// sentence yields only the claim it denies, as a counter-claim, when that
// claim is unambiguous. Any other sentence yields a concept, an ordering
// hint and a relation, each when its pattern matches.
func extractSentence(flat string, start, end int, hits []hit) []hit {
	out := sentenceHits{hits: hits, start: start, end: end}
	s := cleanSentence(flat)
	switch n := counterMarkerLen(s); {
	case s == "":
	case n > 0:
		t, ok := parseClaim(lower(relparse.TrimSpace(s[n:])))
		out.triple(kindCounter, t, ok)
	default:
		out.statement(s)
	}
	return out.hits
}

// sentenceHits collects the hits of one sentence.
type sentenceHits struct {
	hits       []hit
	start, end int
}

func (o *sentenceHits) emit(k kind, a, b, c string) {
	o.hits = append(o.hits, hit{k, a, b, c, o.start, o.end})
}

// triple records a parsed triple as k when the parse succeeded (ok).
func (o *sentenceHits) triple(k kind, t artifact.Triple, ok bool) {
	if ok {
		o.emit(k, t.Head, t.Relation, t.Tail)
	}
}

// statement handles a sentence that is not a counter-claim: a negated one
// yields at most the claim it denies; a plain one runs the three
// extractors.
func (o *sentenceHits) statement(s string) {
	low := lower(s)
	words := readWords(low)
	if words.neg.count > 0 {
		t, ok := deniedClaim(low, words)
		o.triple(kindCounter, t, ok)
		return
	}
	ends := findTermEnds(s, 0)
	o.concept(s, &ends)
	o.hint(s, &ends)
	t, ok := parseWords(words)
	o.triple(kindRelation, t, ok)
}

// concept records the first definition pattern whose term is valid.
func (o *sentenceHits) concept(s string, ends *termEnds) {
	matchDefinition(s, ends, func(rawTerm, rawDef string) bool {
		term, ok := normalTerm(rawTerm)
		def := lowerTrim(rawDef)
		if ok = ok && def != ""; ok {
			o.emit(kindConcept, term, def, "")
		}
		return ok
	})
}

// hint records an ordering hint whose two terms are valid and differ.
func (o *sentenceHits) hint(s string, ends *termEnds) {
	after, before, ok := matchOrdering(s, ends)
	if !ok {
		return
	}
	a, okA := normalTerm(after)
	b, okB := normalTerm(before)
	if okA && okB && a != b {
		o.emit(kindHint, b, a, "")
	}
}

// cleanSentence trims a single-spaced sentence and removes its terminators:
// repeatedly a final '.', '?' or '!' and the space before it.
func cleanSentence(s string) string {
	s = relparse.TrimSpace(s)
	for len(s) > 0 && isTerminator(s[len(s)-1]) {
		s = relparse.TrimSpace(s[:len(s)-1])
	}
	return s
}

// tripleOf returns a relation or counter hit's triple.
func (h hit) tripleOf() artifact.Triple { return artifact.Triple{Head: h.a, Relation: h.b, Tail: h.c} }
