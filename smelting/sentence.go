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

// extractText appends the hits of every sentence of text, in text order,
// to hits (a buffer Smelt reuses from one text to the next).
func extractText(text string, hits []hit) []hit {
	forEachSentence(text, func(start, end int, spaced bool) {
		flat := text[start:end]
		if spaced {
			flat = relparse.CollapseSpace(flat)
		}
		hits = extractSentence(flat, start, end, hits)
	})
	return hits
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
	s := cleanSentence(flat)
	if s == "" {
		return hits
	}
	emit := func(k kind, a, b, c string) { hits = append(hits, hit{k, a, b, c, start, end}) }
	if n := counterMarkerLen(s); n > 0 {
		if t, ok := parseClaim(lower(relparse.TrimSpace(s[n:]))); ok {
			emit(kindCounter, t.Head, t.Relation, t.Tail)
		}
		return hits
	}
	low := lower(s)
	words := readWords(low)
	if words.neg.count > 0 {
		if t, ok := deniedClaim(low, words); ok {
			emit(kindCounter, t.Head, t.Relation, t.Tail)
		}
		return hits
	}
	ends := findTermEnds(s, 0)
	matchDefinition(s, &ends, func(rawTerm, rawDef string) bool {
		term, ok := normalTerm(rawTerm)
		def := lowerTrim(rawDef)
		if ok && def != "" {
			emit(kindConcept, term, def, "")
		}
		return ok && def != ""
	})
	if after, before, ok := matchOrdering(s, &ends); ok {
		a, okA := normalTerm(after)
		b, okB := normalTerm(before)
		if okA && okB && a != b {
			emit(kindHint, b, a, "")
		}
	}
	if t, ok := parseWords(words); ok {
		emit(kindRelation, t.Head, t.Relation, t.Tail)
	}
	return hits
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
