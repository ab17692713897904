package knowledge

import (
	"slices"
	"sort"

	"formation/ident"
	"formation/runtime/epistemic"
	"formation/runtime/text"
)

// headRel indexes the out-edges of a head under one relation.
type headRel struct{ head, relation string }

// Knowledge is the read-only index. All methods are safe for concurrent use.
// Slices it returns are the caller's; the citation lists inside records from
// Out, From, Triples and Counters are shared with the index and must be
// treated as read-only (Triple, Counter and Definitions hand out deep copies).
type Knowledge struct {
	definitions map[string][]Concept // term → definitions sorted by text
	triples     []Triple             // sorted by key
	tripleAt    map[Key]int
	counters    []Triple // sorted by key
	counterAt   map[Key]int
	out         map[headRel][]int // triple indices, sorted by tail
	byHead      map[string][]int  // triple indices with this head, in key order
	byTerm      map[string][]int  // triple indices with this head or tail, in key order
	counterTerm map[string][]int  // counter indices with this head or tail, in key order
	terms       map[string]struct{}
	relations   []string // sorted, distinct, from triples and counters
	declared    []string // sorted, distinct: relations declared by the subjects, used or not
	sources     []string // sorted distinct source SHAs of every citation
	maxWords    int      // longest term, in words
}

// Stats counts what the index holds.
type Stats struct {
	Terms, Definitions, Triples, Counters, Relations, Sources int
}

// NewKnowledge builds the index from concepts, held triples and (optionally)
// counter-claims. Inputs are normalised and merged as the package comment
// says; the result does not depend on input order. Concepts and triples must
// cite at least one source; counter-claims may cite none. Every citation needs
// a 64-hex lowercase SourceSHA.
func NewKnowledge(concepts []Concept, triples []Triple, counters ...Triple) (*Knowledge, error) {
	return newKnowledge(concepts, triples, counters, true)
}

// newKnowledge is NewKnowledge; compacted false leaves the records where
// the merge put them (for the test that holds compact to changing nothing).
func newKnowledge(concepts []Concept, triples, counters []Triple, compacted bool) (*Knowledge, error) {
	// The maps are made at about their final size: growing them was a
	// fifth of building a 34,000-relation index, a serial stretch before
	// the run stage's first turn.
	k := &Knowledge{
		definitions: make(map[string][]Concept, len(concepts)),
		tripleAt:    make(map[Key]int, len(triples)),
		counterAt:   make(map[Key]int, len(counters)),
		out:         make(map[headRel][]int, len(triples)),
		byHead:      make(map[string][]int, len(triples)),
		byTerm:      make(map[string][]int, len(triples)+1),
		counterTerm: make(map[string][]int, 2*len(counters)),
		terms:       make(map[string]struct{}, termsHint(len(concepts), len(triples), len(counters))),
	}
	if err := k.addConcepts(concepts); err != nil {
		return nil, err
	}
	var err error
	if k.triples, err = mergeTriples(triples, true, "triple"); err != nil {
		return nil, err
	}
	if k.counters, err = mergeTriples(counters, false, "counter"); err != nil {
		return nil, err
	}
	if compacted {
		k.compact()
	}
	k.index()
	return k, nil
}

func (k *Knowledge) addConcepts(concepts []Concept) error {
	type defKey struct{ term, def string }
	merged := make(map[defKey]Concept, len(concepts))
	for i, c := range concepts {
		term := text.Term(c.Term)
		if term == "" {
			return errorf(ReasonEmptyTerm, "concept %d has no term", i)
		}
		what := func() string { return "concept " + term }
		st, err := status(c.Status, what)
		if err != nil {
			return err
		}
		if len(c.Sources) == 0 {
			return errorf(ReasonNoSources, "concept %q cites no source", term)
		}
		if err := checkCitations(c.Sources, what); err != nil {
			return err
		}
		dk := defKey{term, c.Definition}
		prev, seen := merged[dk]
		if seen {
			st = epistemic.MoreDoubtful(prev.Status, st)
		}
		merged[dk] = Concept{Term: term, Definition: c.Definition, Status: st,
			Sources: mergeCitations(prev.Sources, c.Sources)}
	}
	for _, c := range merged {
		k.definitions[c.Term] = append(k.definitions[c.Term], c)
		k.terms[c.Term] = struct{}{}
	}
	for term, defs := range k.definitions {
		sort.Slice(defs, func(a, b int) bool { return defs[a].Definition < defs[b].Definition })
		k.definitions[term] = defs
	}
	return nil
}

// mergeTriples normalises, validates and merges records of the same key, and
// returns them sorted by key.
//
// Records that arrive in strictly increasing key order, as a validated
// set's relations do, are taken as they come: no two share a key and they
// are sorted already. Only from the first record out of order are the
// records merged through a map and sorted at the end. At 506,734 relations
// the map of every record and the sort were most of building the runtime's
// knowledge, a serial second and a half before the run stage's first turn.
func mergeTriples(in []Triple, needSources bool, what string) ([]Triple, error) {
	out := make([]Triple, 0, len(in))
	var at map[Key]int // each key's record in out, once a record came out of order
	for i, t := range in {
		n := Triple{Head: text.Term(t.Head), Relation: text.Relation(t.Relation), Tail: text.Term(t.Tail)}
		if n.Head == "" || n.Tail == "" {
			return nil, errorf(ReasonEmptyTerm, "%s %d %s has an empty head or tail", what, i, n.Key())
		}
		if n.Relation == "" {
			return nil, errorf(ReasonEmptyRelation, "%s %d %s has no relation", what, i, n.Key())
		}
		describe := func() string { return what + " " + n.Key().String() }
		st, err := status(t.Status, describe)
		if err != nil {
			return nil, err
		}
		if needSources && len(t.Sources) == 0 {
			return nil, errorf(ReasonNoSources, "%s cites no source", describe())
		}
		if err := checkCitations(t.Sources, describe); err != nil {
			return nil, err
		}
		if at == nil && (len(out) == 0 || out[len(out)-1].Key().less(n.Key())) {
			n.Sources, n.Status = mergeCitations(nil, t.Sources), st
			out = append(out, n)
			continue
		}
		if at == nil {
			at = make(map[Key]int, len(in))
			for j := range out {
				at[out[j].Key()] = j
			}
		}
		if j, seen := at[n.Key()]; seen {
			prev := &out[j]
			prev.Status, prev.Sources = epistemic.MoreDoubtful(prev.Status, st), mergeCitations(prev.Sources, t.Sources)
			continue
		}
		n.Sources, n.Status = mergeCitations(nil, t.Sources), st
		at[n.Key()] = len(out)
		out = append(out, n)
	}
	if at != nil {
		slices.SortFunc(out, func(a, b Triple) int { return a.Key().compare(b.Key()) })
	}
	return out, nil
}

// index builds the lookup maps and marks triples that are also counter-claims
// Contested on both sides.
func (k *Knowledge) index() {
	rels := map[string]struct{}{}
	srcs := map[string]struct{}{}
	for i, c := range k.counters {
		k.counterAt[c.Key()] = i
		k.counterTerm[c.Head] = append(k.counterTerm[c.Head], i)
		if c.Tail != c.Head {
			k.counterTerm[c.Tail] = append(k.counterTerm[c.Tail], i)
		}
		k.addTerm(c.Head, c.Tail, rels, c.Relation)
		addSources(srcs, c.Sources)
	}
	for i, t := range k.triples {
		if ci, bad := k.counterAt[t.Key()]; bad {
			k.triples[i].Status = epistemic.MoreDoubtful(t.Status, epistemic.Contested)
			k.counters[ci].Status = epistemic.MoreDoubtful(k.counters[ci].Status, epistemic.Contested)
		}
		k.tripleAt[t.Key()] = i
		hr := headRel{t.Head, t.Relation}
		k.out[hr] = append(k.out[hr], i) // key order sorts tails within (head, relation)
		k.byHead[t.Head] = append(k.byHead[t.Head], i)
		k.byTerm[t.Head] = append(k.byTerm[t.Head], i)
		if t.Tail != t.Head {
			k.byTerm[t.Tail] = append(k.byTerm[t.Tail], i)
		}
		k.addTerm(t.Head, t.Tail, rels, t.Relation)
		addSources(srcs, t.Sources)
	}
	for _, defs := range k.definitions {
		for _, d := range defs {
			addSources(srcs, d.Sources)
		}
	}
	for term := range k.terms {
		if n := len(text.Tokenize(term)); n > k.maxWords {
			k.maxWords = n
		}
	}
	k.relations = sortedKeys(rels)
	k.sources = sortedKeys(srcs)
	packLists(k.out)
	packLists(k.byHead)
	packLists(k.byTerm)
	packLists(k.counterTerm)
}

// termsHint sizes the term set: a chain of n triples names n+1 terms, and
// concepts and counter-claims mostly name terms the triples do.
func termsHint(concepts, triples, counters int) int { return concepts + triples + counters/2 + 1 }

func (k *Knowledge) addTerm(head, tail string, rels map[string]struct{}, rel string) {
	k.terms[head] = struct{}{}
	k.terms[tail] = struct{}{}
	rels[rel] = struct{}{}
}

func addSources(set map[string]struct{}, cs []Citation) {
	for _, c := range cs {
		set[c.SourceSHA] = struct{}{}
	}
}

func sortedKeys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// status parses a record's status; what names the record in an error (it is
// only built when there is one).
func status(s epistemic.Status, what func() string) (epistemic.Status, error) {
	st, err := epistemic.Parse(string(s))
	if err != nil {
		return "", errorf(ReasonInvalidStatus, "%s: %v", what(), err)
	}
	return st, nil
}

func checkCitations(cs []Citation, what func() string) error {
	for _, c := range cs {
		if !ident.ValidDigest(c.SourceSHA) {
			return errorf(ReasonInvalidSource, "%s cites source_sha %q, not 64 lowercase hex", what(), c.SourceSHA)
		}
		if c.Start < 0 || c.End < c.Start {
			return errorf(ReasonInvalidSource, "%s cites the byte range [%d, %d)", what(), c.Start, c.End)
		}
	}
	return nil
}

// mergeCitations unites two citation lists, sorted and without duplicates.
func mergeCitations(a, b []Citation) []Citation {
	all := make([]Citation, 0, len(a)+len(b))
	all = append(append(all, a...), b...)
	if len(all) < 2 {
		return all // one citation, the most a record usually has, is sorted and unique
	}
	sort.Slice(all, func(i, j int) bool { return all[i].less(all[j]) })
	out := all[:0]
	for i, c := range all {
		if i == 0 || c != out[len(out)-1] {
			out = append(out, c)
		}
	}
	return out
}
