package smelting

import (
	"cmp"
	"slices"
	"strings"

	"formation/artifact"
)

// pair is the key of a concept (term, definition) or an ordering hint
// (before, after).
type pair struct{ a, b string }

func comparePair(x, y pair) int { return cmp.Or(strings.Compare(x.a, y.a), strings.Compare(x.b, y.b)) }

// accumulator gathers the citations of every candidate by its key. The
// maps are only looked up; bundle sorts their keys before emitting.
type accumulator struct {
	concepts  map[pair]*cites
	relations map[artifact.Triple]*cites
	counters  map[artifact.Triple]*cites
	hints     map[pair]*cites
}

func newAccumulator() *accumulator {
	return &accumulator{
		concepts:  map[pair]*cites{},
		relations: map[artifact.Triple]*cites{},
		counters:  map[artifact.Triple]*cites{},
		hints:     map[pair]*cites{},
	}
}

// add records the hits of a text for one entry that carries that text.
func (acc *accumulator) add(e artifact.OreEntry, textSHA, text string, hits []hit) {
	for _, h := range hits {
		c := cite{sourceSHA: e.SourceSHA, textSHA: textSHA, adapter: e.Adapter, retrievedAt: e.RetrievedAt,
			span: text[h.start:h.end], start: h.start, end: h.end}
		switch h.kind {
		case kindConcept:
			citesFor(acc.concepts, pair{h.a, h.b}).add(c)
		case kindHint:
			citesFor(acc.hints, pair{h.a, h.b}).add(c)
		case kindRelation:
			citesFor(acc.relations, h.tripleOf()).add(c)
		case kindCounter:
			citesFor(acc.counters, h.tripleOf()).add(c)
		}
	}
}

// citesFor returns the citations of key, creating them when new.
func citesFor[K comparable](m map[K]*cites, key K) *cites {
	cs := m[key]
	if cs == nil {
		cs = &cites{}
		m[key] = cs
	}
	return cs
}

// bundle emits every candidate, sorted: concepts by (term, definition),
// relations and counter-claims by (head, relation, tail), hints by
// (before, after). Keys are unique, so the order is total.
func (acc *accumulator) bundle() artifact.SmeltedBundle {
	out := artifact.SmeltedBundle{
		Concepts:      make([]artifact.ConceptCandidate, 0, len(acc.concepts)),
		Relations:     triples(acc.relations),
		Counters:      triples(acc.counters),
		OrderingHints: make([]artifact.OrderingHint, 0, len(acc.hints)),
	}
	for _, k := range sortedKeys(acc.concepts, comparePair) {
		out.Concepts = append(out.Concepts, artifact.ConceptCandidate{CanonicalTerm: k.a, Definition: k.b,
			Sources: acc.concepts[k].refs(), State: artifact.StateProposed})
	}
	for _, k := range sortedKeys(acc.hints, comparePair) {
		out.OrderingHints = append(out.OrderingHints, artifact.OrderingHint{Before: k.a, After: k.b, Sources: acc.hints[k].refs()})
	}
	return out
}

// triples emits relation or counter candidates sorted by their triple.
func triples(m map[artifact.Triple]*cites) []artifact.RelationCandidate {
	out := make([]artifact.RelationCandidate, 0, len(m))
	for _, k := range sortedKeys(m, compareTriple) {
		out = append(out, artifact.RelationCandidate{Head: k.Head, Relation: k.Relation, Tail: k.Tail,
			Sources: m[k].refs(), State: artifact.StateProposed})
	}
	return out
}

func compareTriple(x, y artifact.Triple) int {
	return cmp.Or(strings.Compare(x.Head, y.Head), strings.Compare(x.Relation, y.Relation), strings.Compare(x.Tail, y.Tail))
}

// sortedKeys returns the keys of m in the order cmp defines, never in map
// order.
func sortedKeys[K comparable, V any](m map[K]V, cmp func(K, K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp)
	return keys
}
