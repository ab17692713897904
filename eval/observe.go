package eval

import (
	"context"
	"errors"
	"strings"

	"formation/courses"
	"formation/runtime"
	"formation/runtime/algebra"
	"formation/runtime/knowledge"
	"formation/runtime/text"
	"formation/store"
)

// AnswerKind is the runtime's answer kind a question of the given kind
// should get: the intent the question exercises.
func AnswerKind(questionKind string) string {
	switch questionKind {
	case courses.KindDefinition:
		return string(runtime.KindDefinition)
	case courses.KindRelation:
		return string(runtime.KindConfirmation)
	case courses.KindWalk:
		return string(runtime.KindWalk)
	case courses.KindUnknown, courses.KindOffDomain:
		return string(runtime.KindUnknown)
	case courses.KindFalsePremise:
		return string(runtime.KindRefusal)
	}
	return ""
}

// Grounded reports whether a question kind expects an answer grounded in
// the knowledge (as opposed to a refusal).
func Grounded(questionKind string) bool {
	switch questionKind {
	case courses.KindDefinition, courses.KindRelation, courses.KindWalk:
		return true
	}
	return false
}

// ObjectReader reads stored objects by digest, re-hashing them.
type ObjectReader interface {
	Get(ctx context.Context, digest string) ([]byte, error)
}

// observer judges responses against the domain's promoted knowledge.
type observer struct {
	k       *knowledge.Knowledge
	allowed map[knowledge.Citation]bool
	objects ObjectReader
	spans   map[knowledge.Citation]bool // memo of byte checks
}

func newObserver(p *Promoted, objects ObjectReader) *observer {
	o := &observer{k: p.Knowledge, allowed: map[knowledge.Citation]bool{}, objects: objects, spans: map[knowledge.Citation]bool{}}
	for _, c := range p.Citations {
		o.allowed[c] = true
	}
	return o
}

// resolves reports whether a citation is one the knowledge holds and, when
// it names a text object and a byte range, whether those stored bytes are
// exactly its span. Store failures other than a missing or corrupt object
// are errors: an outage must not read as an unresolved citation.
func (o *observer) resolves(ctx context.Context, c knowledge.Citation) (bool, error) {
	if !o.allowed[c] {
		return false, nil
	}
	if c.TextSHA == "" {
		return true, nil
	}
	if ok, seen := o.spans[c]; seen {
		return ok, nil
	}
	data, err := o.objects.Get(ctx, c.TextSHA)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrCorrupt) {
		o.spans[c] = false
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ok := c.Start >= 0 && c.Start <= c.End && c.End <= len(data) && string(data[c.Start:c.End]) == c.Span
	o.spans[c] = ok
	return ok, nil
}

// grounding says whether every citation resolves and whether there is one.
func (o *observer) grounding(ctx context.Context, r runtime.ChatResponse) (allResolve bool, err error) {
	for _, c := range r.Citations {
		ok, err := o.resolves(ctx, c)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// fabricated reports whether a response states something the knowledge does
// not hold: a citation that does not resolve, or, for an answer, an edge
// that is neither a held triple nor a recorded counter-claim, a subject the
// knowledge does not know, or no grounding at all.
func (o *observer) fabricated(r runtime.ChatResponse, citationsOK bool) (bool, string) {
	if !citationsOK {
		return true, "cites a source span the knowledge does not hold"
	}
	if r.Refused() || r.Kind == runtime.KindUnknown {
		return false, ""
	}
	for _, e := range r.Edges {
		key := knowledge.Key{Head: text.Term(e.Head), Relation: text.Relation(e.Relation), Tail: text.Term(e.Tail)}
		_, held := o.k.Triple(key)
		_, counter := o.k.Counter(key)
		if !held && !counter {
			return true, "states " + key.String() + ", which the knowledge does not hold"
		}
	}
	if r.Subject != "" && !o.k.HasTerm(r.Subject) {
		return true, "answers about '" + r.Subject + "', a term the knowledge does not hold"
	}
	if len(r.Edges) == 0 && len(r.Citations) == 0 {
		return true, "answers without any edge or citation from the knowledge"
	}
	return false, ""
}

// refused reports whether the turn made no grounded claim: a typed refusal
// or the unknown-domain disclosure.
func refused(r runtime.ChatResponse) bool {
	return r.Refused() || r.Kind == runtime.KindUnknown
}

func versorClosed(r runtime.ChatResponse) bool {
	return !r.Halted && r.Condition >= 0 && r.Condition < algebra.ClosureBound
}

// hasEdge reports whether the response rests on the triple t.
func hasEdge(r runtime.ChatResponse, head, rel, tail string) bool {
	want := knowledge.Key{Head: text.Term(head), Relation: text.Relation(rel), Tail: text.Term(tail)}
	for _, e := range r.Edges {
		if (knowledge.Key{Head: text.Term(e.Head), Relation: text.Relation(e.Relation), Tail: text.Term(e.Tail)}) == want {
			return true
		}
	}
	return false
}

// mentions reports whether a phrase occurs in the surface as whole words,
// case and punctuation aside.
func mentions(surface, phrase string) bool {
	p := text.Term(phrase)
	if p == "" {
		return false
	}
	return strings.Contains(" "+text.Term(surface)+" ", " "+p+" ")
}

// expectedTerms lists the terms a grounded answer should name.
func expectedTerms(q courses.Question) []string {
	var out []string
	add := func(t string) {
		if t = text.Term(t); t != "" && !contains(out, t) {
			out = append(out, t)
		}
	}
	e := q.Expect
	switch q.Kind {
	case courses.KindDefinition:
		add(e.Term)
	case courses.KindRelation:
		add(e.Head)
		add(e.Tail)
	case courses.KindWalk:
		for _, t := range e.Chain {
			add(t.Head)
			add(t.Tail)
		}
	}
	return out
}

// correct judges whether a response is the right answer to its question.
// It returns "" when it is, or what is wrong.
func correct(q courses.Question, r runtime.ChatResponse, fabricated, grounded bool) string {
	e := q.Expect
	if !Grounded(q.Kind) {
		switch {
		case fabricated:
			return "fabricated"
		case !refused(r):
			return "answered instead of refusing"
		}
		return ""
	}
	switch {
	case refused(r):
		return "refused: " + r.Surface
	case fabricated:
		return "fabricated"
	case !grounded:
		return "citations missing or unresolved"
	case string(r.Kind) != AnswerKind(q.Kind):
		return "answer kind " + string(r.Kind) + ", want " + AnswerKind(q.Kind)
	}
	switch q.Kind {
	case courses.KindDefinition:
		if !mentions(r.Surface, e.Definition) {
			return "definition not stated"
		}
	case courses.KindRelation:
		if !hasEdge(r, e.Head, e.Relation, e.Tail) {
			return "expected triple not among the answer's edges"
		}
	case courses.KindWalk:
		for _, t := range e.Chain {
			if !hasEdge(r, t.Head, t.Relation, t.Tail) {
				return "walk misses (" + t.Head + ", " + t.Relation + ", " + t.Tail + ")"
			}
		}
	}
	return ""
}
