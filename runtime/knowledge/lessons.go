package knowledge

import (
	"sort"

	"formation/runtime/epistemic"
	"formation/runtime/text"
)

// lessons are what a teaching session learned from its own proposals: claims
// (relations and counter-claims) and definitions, each citing the proposal
// it came from. They live in the overlay only and die with the session; the
// shared index never sees them.
type lessons struct {
	claims map[Claim]Citation
	defs   map[string][]Concept // term → definitions in the order taught
	terms  map[string]struct{}
}

func (l *lessons) init() {
	if l.claims == nil {
		l.claims, l.defs, l.terms = map[Claim]Citation{}, map[string][]Concept{}, map[string]struct{}{}
	}
}

// Learn keeps a claim the session proposed, citing the proposal (cite's
// SourceSHA is the proposal's id). The claim is asserted in the session if
// it was not already; its session status stays what the session made it.
func (o *Overlay) Learn(c Claim, turn int, cite Citation) {
	c.Key = Key{Head: text.Term(c.Key.Head), Relation: text.Relation(c.Key.Relation), Tail: text.Term(c.Key.Tail)}
	o.lessons.init()
	if _, asserted := o.byClaim[c]; !asserted {
		o.record(c, turn, epistemic.Speculative)
	}
	o.lessons.claims[c] = cite
	o.lessons.terms[c.Key.Head] = struct{}{}
	o.lessons.terms[c.Key.Tail] = struct{}{}
}

// LearnDefinition keeps a definition the session proposed, citing the
// proposal, with its status in the session (Contested when the knowledge
// defines the term otherwise).
func (o *Overlay) LearnDefinition(term, definition string, status epistemic.Status, cite Citation) {
	term = text.Term(term)
	o.lessons.init()
	o.lessons.defs[term] = append(o.lessons.defs[term], Concept{Term: term, Definition: definition,
		Sources: []Citation{cite}, Status: status})
	o.lessons.terms[term] = struct{}{}
}

// HasTerm reports whether a term is known to the session: a term of the
// knowledge, or of something the session learned.
func (o *Overlay) HasTerm(term string) bool {
	if o.base.HasTerm(term) {
		return true
	}
	_, ok := o.lessons.terms[text.Term(term)]
	return ok
}

// Lesson returns the learned claim c as a record citing its proposal, with
// the claim's session status.
func (o *Overlay) Lesson(c Claim) (Triple, bool) {
	c.Key = Key{Head: text.Term(c.Key.Head), Relation: text.Relation(c.Key.Relation), Tail: text.Term(c.Key.Tail)}
	cite, ok := o.lessons.claims[c]
	if !ok {
		return Triple{}, false
	}
	return o.lessonRecord(c, cite), true
}

// LessonsFrom lists the learned relations (head, relation, *), sorted by
// tail; head and relation are given in normal form.
func (o *Overlay) LessonsFrom(head, relation string) []Triple {
	return o.lessonsWhere(func(k Key) bool { return k.Head == head && k.Relation == relation })
}

// LessonMentions lists the learned relations in which term is the head or
// the tail, in key order.
func (o *Overlay) LessonMentions(term string) []Triple {
	t := text.Term(term)
	return o.lessonsWhere(func(k Key) bool { return k.Head == t || k.Tail == t })
}

// LessonDefinitions lists the learned definitions of a term, in the order
// learned.
func (o *Overlay) LessonDefinitions(term string) []Concept {
	defs := o.lessons.defs[text.Term(term)]
	out := make([]Concept, len(defs))
	for i, d := range defs {
		out[i] = d
		out[i].Sources = append([]Citation(nil), d.Sources...)
	}
	return out
}

func (o *Overlay) lessonsWhere(keep func(Key) bool) []Triple {
	var out []Triple
	for c, cite := range o.lessons.claims {
		if !c.Negated && keep(c.Key) {
			out = append(out, o.lessonRecord(c, cite))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key().less(out[j].Key()) })
	return out
}

func (o *Overlay) lessonRecord(c Claim, cite Citation) Triple {
	st := epistemic.Speculative
	if i, ok := o.byClaim[c]; ok {
		st = o.assertions[i].Status
	}
	return Triple{Head: c.Key.Head, Relation: c.Key.Relation, Tail: c.Key.Tail, Sources: []Citation{cite}, Status: st}
}
