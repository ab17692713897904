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
	extractor string // the smelter's id, stamped on every citation
	concepts  map[pair]*cites
	relations map[artifact.Triple]*cites
	counters  map[artifact.Triple]*cites
	hints     map[pair]*cites
}

func newAccumulator(extractor string) *accumulator {
	return &accumulator{
		extractor: extractor,
		concepts:  map[pair]*cites{},
		relations: map[artifact.Triple]*cites{},
		counters:  map[artifact.Triple]*cites{},
		hints:     map[pair]*cites{},
	}
}

// add records the hits of a text for one entry (o) that carries it.
func (acc *accumulator) add(o *origin, hits []hit) {
	for _, h := range hits {
		c := cite{o: o, start: h.start, end: h.end}
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

// origin is an ore entry as its citations carry it: the source, the text
// (by digest and content) and the entry's adapter and date. pair numbers
// the distinct (source, text) pairs of the bundle.
type origin struct {
	sourceSHA, textSHA   string
	adapter, retrievedAt string
	text                 string
	pair                 int
}

// cite is one citation of a candidate: the sentence at [start, end) of an
// origin's text.
type cite struct {
	o          *origin
	start, end int
}

// compareCite orders citations: by source, then text, then position, then
// the entry metadata. This is also the order of every sources list.
func compareCite(a, b cite) int {
	return cmp.Or(
		strings.Compare(a.o.sourceSHA, b.o.sourceSHA),
		strings.Compare(a.o.textSHA, b.o.textSHA),
		cmp.Compare(a.start, b.start),
		cmp.Compare(a.end, b.end),
		strings.Compare(a.o.adapter, b.o.adapter),
		strings.Compare(a.o.retrievedAt, b.o.retrievedAt),
	)
}

// cites holds one citation per (source, text) pair: the earliest sentence
// of that text that yields the candidate (the original kept the first
// sentence per source), chosen on content so that entry order cannot
// change it.
type cites []cite

func (cs *cites) add(c cite) {
	for i := range *cs {
		old := &(*cs)[i]
		if old.o.pair != c.o.pair {
			continue
		}
		// Hits of one text arrive in text order: a later sentence of the
		// same entry never wins.
		if old.o != c.o && compareCite(c, *old) < 0 {
			*old = c
		}
		return
	}
	*cs = append(*cs, c)
}

// refs sorts the citations and returns them as SourceRefs stamped with the
// smelter's id.
func (cs cites) refs(extractor string) []artifact.SourceRef {
	slices.SortFunc(cs, compareCite)
	out := make([]artifact.SourceRef, len(cs))
	offsets := make([]int64, 2*len(cs)) // one allocation for every Start and End
	for i, c := range cs {
		start, end := &offsets[2*i], &offsets[2*i+1]
		*start, *end = int64(c.start), int64(c.end)
		out[i] = artifact.SourceRef{
			SourceSHA: c.o.sourceSHA, Span: c.o.text[c.start:c.end], Adapter: c.o.adapter, RetrievedAt: c.o.retrievedAt,
			TextSHA: c.o.textSHA, Start: start, End: end, Extractor: extractor,
		}
	}
	return out
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
		Relations:     triples(acc.relations, acc.extractor),
		Counters:      triples(acc.counters, acc.extractor),
		OrderingHints: make([]artifact.OrderingHint, 0, len(acc.hints)),
	}
	for _, k := range sortedKeys(acc.concepts, comparePair) {
		out.Concepts = append(out.Concepts, artifact.ConceptCandidate{CanonicalTerm: k.a, Definition: k.b,
			Sources: acc.concepts[k].refs(acc.extractor), State: artifact.StateProposed})
	}
	for _, k := range sortedKeys(acc.hints, comparePair) {
		out.OrderingHints = append(out.OrderingHints, artifact.OrderingHint{Before: k.a, After: k.b, Sources: acc.hints[k].refs(acc.extractor)})
	}
	return out
}

// triples emits relation or counter candidates sorted by their triple.
func triples(m map[artifact.Triple]*cites, extractor string) []artifact.RelationCandidate {
	out := make([]artifact.RelationCandidate, 0, len(m))
	for _, k := range sortedKeys(m, compareTriple) {
		out = append(out, artifact.RelationCandidate{Head: k.Head, Relation: k.Relation, Tail: k.Tail,
			Sources: m[k].refs(extractor), State: artifact.StateProposed})
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
