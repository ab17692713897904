package knowledge

import "strings"

// compact moves what the index keeps into a few large blocks: every distinct
// string into one arena, every citation list into one array and every
// term's definitions into another. Values, order and lengths are unchanged;
// only where they live changes.
//
// Why: the index of a large subject is millions of small objects (each
// term, span and digest decoded on its own, each citation list its own
// array), and the run stage keeps it live through every turn of both
// passes. Each GC cycle then visits each of them, and at 250,000 relations
// that tracing, with its cache misses, was a sixth of the run stage's CPU
// and grew faster than the subject. Pointers into a handful of large
// blocks cost the collector little, and the repeated strings (a term is
// the head of one triple and the tail of the next; every citation repeats
// its source's digest) are held once.
//
// It runs before index, so the lookup maps' keys are the arena's strings.
// The lists it hands out are capacity-limited, so an append by a reader
// copies rather than writing into a neighbour's list.
func (k *Knowledge) compact() {
	// The three walks must meet the strings in one order, and a map's
	// order changes from one range to the next.
	defs := make([][]Concept, 0, len(k.definitions))
	for _, d := range k.definitions {
		defs = append(defs, d)
	}
	var a arena
	k.eachString(defs, a.count)
	a.grow()
	k.eachString(defs, a.write)
	a.seal()
	k.eachString(defs, a.move)
	k.packCitations(defs)
	k.packDefinitions()
}

// packLists moves every list of m into one array, for the reason compact
// gives: a list per term is a small object per term for every GC cycle of
// a run to visit. Each list keeps its values and is capacity-limited.
func packLists[K comparable](m map[K][]int) {
	n := 0
	for _, l := range m {
		n += len(l)
	}
	block := make([]int, 0, n)
	for key, l := range m {
		start := len(block)
		block = append(block, l...)
		m[key] = block[start:len(block):len(block)]
	}
}

// Fields eachString names, so that the arena can hold a value that repeats
// in the same field of consecutive records once.
const (
	fieldTerm = iota
	fieldDefinition
	fieldHead
	fieldRelation
	fieldTail
	fieldSourceSHA
	fieldSpan
	fieldAdapter
	fieldRetrievedAt
	fieldTextSHA
	fields
)

// eachString calls f on every string field the index's records hold:
// those of definitions (the definition map's lists, in a fixed order), of
// the triples and of the counter-claims, and of their citations.
func (k *Knowledge) eachString(definitions [][]Concept, f func(field int, s *string)) {
	for _, defs := range definitions {
		for i := range defs {
			f(fieldTerm, &defs[i].Term)
			f(fieldDefinition, &defs[i].Definition)
		}
	}
	for _, ts := range [][]Triple{k.triples, k.counters} {
		for i := range ts {
			f(fieldHead, &ts[i].Head)
			f(fieldRelation, &ts[i].Relation)
			f(fieldTail, &ts[i].Tail)
		}
	}
	k.eachSources(definitions, func(cs *[]Citation) {
		for i := range *cs {
			c := &(*cs)[i]
			f(fieldSourceSHA, &c.SourceSHA)
			f(fieldSpan, &c.Span)
			f(fieldAdapter, &c.Adapter)
			f(fieldRetrievedAt, &c.RetrievedAt)
			f(fieldTextSHA, &c.TextSHA)
		}
	})
}

// eachSources calls f on the citation list of every record: of
// definitions, of the triples and of the counter-claims.
func (k *Knowledge) eachSources(definitions [][]Concept, f func(*[]Citation)) {
	for _, defs := range definitions {
		for i := range defs {
			f(&defs[i].Sources)
		}
	}
	for _, ts := range [][]Triple{k.triples, k.counters} {
		for i := range ts {
			f(&ts[i].Sources)
		}
	}
}

// packCitations moves every citation list into one array.
func (k *Knowledge) packCitations(definitions [][]Concept) {
	n := 0
	k.eachSources(definitions, func(cs *[]Citation) { n += len(*cs) })
	block := make([]Citation, 0, n)
	k.eachSources(definitions, func(cs *[]Citation) {
		if *cs == nil {
			return
		}
		start := len(block)
		block = append(block, *cs...)
		*cs = block[start:len(block):len(block)]
	})
}

// packDefinitions moves every term's definitions into one array and rebuilds
// the definition and term maps over the arena's strings.
func (k *Knowledge) packDefinitions() {
	n := 0
	for _, defs := range k.definitions {
		n += len(defs)
	}
	block := make([]Concept, 0, n)
	packed := make(map[string][]Concept, len(k.definitions))
	terms := make(map[string]struct{}, termsHint(len(k.definitions), len(k.triples), len(k.counters)))
	for _, defs := range k.definitions {
		start := len(block)
		block = append(block, defs...)
		term := defs[0].Term // every definition in the list has the term
		packed[term] = block[start:len(block):len(block)]
		terms[term] = struct{}{}
	}
	k.definitions, k.terms = packed, terms
}

// arena lays the strings it is shown end to end in one block, in three
// walks over the same strings in the same order: count sizes the block,
// write fills it, move points each string at its copy. A value equal to
// the one before it in the same field is held once: a source's digest,
// adapter and retrieval time repeat in every citation of it.
type arena struct {
	last  [fields]string // the field's previous value as it was shown
	moved [fields]string // and its copy
	size  int
	b     strings.Builder
	text  string
	off   int
}

// fresh reports whether s needs a copy of its own, and remembers it.
func (a *arena) fresh(field int, s string) bool {
	if s == "" || s == a.last[field] {
		return false
	}
	a.last[field] = s
	return true
}

func (a *arena) count(field int, s *string) {
	if a.fresh(field, *s) {
		a.size += len(*s)
	}
}

func (a *arena) grow() {
	a.b.Grow(a.size)
	a.last = [fields]string{}
}

func (a *arena) write(field int, s *string) {
	if a.fresh(field, *s) {
		a.b.WriteString(*s)
	}
}

func (a *arena) seal() {
	a.text, a.b = a.b.String(), strings.Builder{}
	a.last = [fields]string{}
}

func (a *arena) move(field int, s *string) {
	switch {
	case *s == "":
	case a.fresh(field, *s):
		a.moved[field] = a.text[a.off : a.off+len(*s)]
		a.off += len(*s)
		*s = a.moved[field]
	default:
		*s = a.moved[field]
	}
}
