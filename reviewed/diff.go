package reviewed

import (
	"cmp"
	"slices"
	"strings"
)

// Fact kinds.
const (
	FactConcept = "concept" // a (term, definition) pair
	FactTriple  = "triple"  // a held (head, relation, tail)
	FactCounter = "counter" // a counter-claim (recorded as false)
)

// Fact is one piece of reviewed knowledge, whoever contributed it.
type Fact struct {
	Kind       string `json:"kind"`
	Term       string `json:"term,omitempty"`
	Definition string `json:"definition,omitempty"`
	Head       string `json:"head,omitempty"`
	Relation   string `json:"relation,omitempty"`
	Tail       string `json:"tail,omitempty"`
}

func (f Fact) String() string {
	if f.Kind == FactConcept {
		return "concept " + f.Term + ": " + f.Definition
	}
	return f.Kind + " (" + f.Head + ", " + f.Relation + ", " + f.Tail + ")"
}

func compareFacts(a, b Fact) int {
	return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Term, b.Term), strings.Compare(a.Definition, b.Definition),
		strings.Compare(a.Head, b.Head), strings.Compare(a.Relation, b.Relation), strings.Compare(a.Tail, b.Tail))
}

// Diff is what a change did to the facts: those present only after it and
// those present only before it, each sorted.
type Diff struct {
	Added   []Fact `json:"added"`
	Removed []Fact `json:"removed"`
}

// Facts lists every fact of the knowledge, sorted.
func (k Knowledge) Facts() []Fact {
	out := make([]Fact, 0, len(k.Concepts)+len(k.Triples)+len(k.Counters))
	for _, c := range k.Concepts {
		out = append(out, Fact{Kind: FactConcept, Term: c.Term, Definition: c.Definition})
	}
	for _, t := range k.Triples {
		out = append(out, Fact{Kind: FactTriple, Head: t.Head, Relation: t.Relation, Tail: t.Tail})
	}
	for _, t := range k.Counters {
		out = append(out, Fact{Kind: FactCounter, Head: t.Head, Relation: t.Relation, Tail: t.Tail})
	}
	slices.SortFunc(out, compareFacts)
	return slices.CompactFunc(out, func(a, b Fact) bool { return a == b })
}

// DiffFacts compares the facts of two knowledge objects.
func DiffFacts(before, after Knowledge) Diff {
	b, a := before.Facts(), after.Facts()
	d := Diff{Added: []Fact{}, Removed: []Fact{}}
	i, j := 0, 0
	for i < len(b) || j < len(a) {
		switch {
		case j == len(a) || i < len(b) && compareFacts(b[i], a[j]) < 0:
			d.Removed = append(d.Removed, b[i])
			i++
		case i == len(b) || compareFacts(b[i], a[j]) > 0:
			d.Added = append(d.Added, a[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return d
}

// TriplesHeldBy lists the triples (not counter-claims) that at least one
// course accepted by keep contributed, in knowledge order.
func (k Knowledge) TriplesHeldBy(keep func(CourseRecord) bool) []TripleRecord {
	courses := map[string]bool{}
	for _, c := range k.Courses {
		if keep(c) {
			courses[c.CourseID] = true
		}
	}
	var out []TripleRecord
	for _, t := range k.Triples {
		if slices.ContainsFunc(t.Contributions, func(c Contribution) bool { return courses[c.CourseID] }) {
			out = append(out, t)
		}
	}
	return out
}

// Restrict keeps the courses accepted by keep, with their records and
// contributions only.
func (k Knowledge) Restrict(keep func(CourseRecord) bool) Knowledge {
	courses := map[string]bool{}
	out := EmptyKnowledge()
	out.SchemaVersion = k.SchemaVersion
	for _, c := range k.Courses {
		if keep(c) {
			courses[c.CourseID] = true
			out.Courses = append(out.Courses, c)
		}
	}
	only := func(cs []Contribution) []Contribution {
		return slices.DeleteFunc(slices.Clone(cs), func(c Contribution) bool { return !courses[c.CourseID] })
	}
	for _, c := range k.Concepts {
		if c.Contributions = only(c.Contributions); len(c.Contributions) > 0 {
			out.Concepts = append(out.Concepts, c)
		}
	}
	triples := func(rs []TripleRecord) []TripleRecord {
		kept := []TripleRecord{}
		for _, t := range rs {
			if t.Contributions = only(t.Contributions); len(t.Contributions) > 0 {
				kept = append(kept, t)
			}
		}
		return kept
	}
	out.Triples, out.Counters = triples(k.Triples), triples(k.Counters)
	return out
}
