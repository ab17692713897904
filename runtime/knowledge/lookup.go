package knowledge

import (
	"sort"

	"formation/runtime/text"
)

// HasTerm reports whether a term (in any spelling that normalises to it) is a
// concept, a head or tail of a triple, or a term of a counter-claim.
func (k *Knowledge) HasTerm(term string) bool {
	_, ok := k.terms[text.Term(term)]
	return ok
}

// HasRelation reports whether a relation name occurs in a triple or counter.
func (k *Knowledge) HasRelation(relation string) bool {
	r := text.Relation(relation)
	i := sort.SearchStrings(k.relations, r)
	return i < len(k.relations) && k.relations[i] == r
}

// Relations lists the relation names of the knowledge, sorted.
func (k *Knowledge) Relations() []string { return append([]string(nil), k.relations...) }

// WithRelations returns the knowledge with relations declared by its
// subjects (beyond the original's 17) added to its vocabulary: the parser
// reads them even where no record uses them yet. The records and k are
// unchanged; the result shares k's read-only index.
func (k *Knowledge) WithRelations(declared ...string) *Knowledge {
	if len(declared) == 0 {
		return k
	}
	set := map[string]struct{}{}
	for _, r := range append(append([]string(nil), k.declared...), declared...) {
		if n := text.Relation(r); n != "" {
			set[n] = struct{}{}
		}
	}
	c := *k
	c.declared = sortedKeys(set)
	return &c
}

// Declared lists the relations the knowledge's subjects declared, sorted
// (nil when none).
func (k *Knowledge) Declared() []string { return append([]string(nil), k.declared...) }

// Vocabulary lists every relation a question may use: those of the records
// and the declared ones, sorted and distinct. Without a declaration it is
// Relations.
func (k *Knowledge) Vocabulary() []string {
	if len(k.declared) == 0 {
		return k.Relations()
	}
	set := map[string]struct{}{}
	for _, r := range append(k.Relations(), k.declared...) {
		set[r] = struct{}{}
	}
	return sortedKeys(set)
}

// MaxTermWords is the number of words in the longest known term.
func (k *Knowledge) MaxTermWords() int { return k.maxWords }

// Definitions returns the definitions of a term, sorted by text (nil if none).
func (k *Knowledge) Definitions(term string) []Concept {
	defs := k.definitions[text.Term(term)]
	out := make([]Concept, len(defs))
	for i, d := range defs {
		out[i] = d
		out[i].Sources = append([]Citation(nil), d.Sources...)
	}
	return out
}

// Triple returns the held triple with key kk (given in normal form).
func (k *Knowledge) Triple(kk Key) (Triple, bool) {
	i, ok := k.tripleAt[kk]
	if !ok {
		return Triple{}, false
	}
	return k.triples[i].WithStatus(k.triples[i].Status), true
}

// Counter returns the counter-claim with key kk (given in normal form).
func (k *Knowledge) Counter(kk Key) (Triple, bool) {
	i, ok := k.counterAt[kk]
	if !ok {
		return Triple{}, false
	}
	return k.counters[i].WithStatus(k.counters[i].Status), true
}

// Out lists the held triples (head, relation, *) sorted by tail; head and
// relation are given in normal form.
func (k *Knowledge) Out(head, relation string) []Triple {
	idx := k.out[headRel{head, relation}]
	out := make([]Triple, len(idx))
	for i, j := range idx {
		out[i] = k.triples[j]
	}
	return out
}

// AppendOut appends Out(head, relation) to dst and returns it: the same
// triples in the same order, in a buffer the caller keeps (a walk expands
// node after node).
func (k *Knowledge) AppendOut(dst []Triple, head, relation string) []Triple {
	for _, j := range k.out[headRel{head, relation}] {
		dst = append(dst, k.triples[j])
	}
	return dst
}

// From lists every held triple whose head is term, in key order.
func (k *Knowledge) From(term string) []Triple {
	idx := k.byHead[text.Term(term)]
	out := make([]Triple, len(idx))
	for i, j := range idx {
		out[i] = k.triples[j]
	}
	return out
}

// Mentions lists the held triples and the counter-claims in which term is the
// head or the tail, each in key order.
func (k *Knowledge) Mentions(term string) (held, counters []Triple) {
	t := text.Term(term)
	for _, j := range k.byTerm[t] {
		held = append(held, k.triples[j])
	}
	for _, j := range k.counterTerm[t] {
		counters = append(counters, k.counters[j])
	}
	return held, counters
}

// Triples lists every held triple in key order.
func (k *Knowledge) Triples() []Triple { return append([]Triple(nil), k.triples...) }

// Counters lists every counter-claim in key order.
func (k *Knowledge) Counters() []Triple { return append([]Triple(nil), k.counters...) }

// SourceSHAs lists the distinct source digests cited anywhere in the
// knowledge, sorted: the sources an answer drawn from it may cite.
func (k *Knowledge) SourceSHAs() []string { return append([]string(nil), k.sources...) }

// Stats counts the index.
func (k *Knowledge) Stats() Stats {
	defs := 0
	for _, d := range k.definitions {
		defs += len(d)
	}
	return Stats{Terms: len(k.terms), Definitions: defs, Triples: len(k.triples),
		Counters: len(k.counters), Relations: len(k.relations), Sources: len(k.sources)}
}
