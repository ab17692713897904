package forge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/relparse"
)

// conceptGroup is every copy of one (term, definition) in the batch.
type conceptGroup struct {
	term, definition string
	wellFormed       bool
	why              string
	members          []artifact.ConceptCandidate
}

// wellFormedConcept is R1 for concepts: the term, lower-cased, is a
// well-formed term (normalTerm), the definition is not blank, and a user
// asking "What is <term>?" asks about this term (termReads).
func (ty *typing) wellFormedConcept(c artifact.ConceptCandidate) (string, string) {
	term, ok := normalTermKeyed(c.CanonicalTerm, ty.hasKey)
	switch {
	case !ok:
		return c.CanonicalTerm, fmt.Sprintf("term %q is not a well-formed term", c.CanonicalTerm)
	case relparse.TrimSpace(c.Definition) == "":
		return c.CanonicalTerm, "the definition is empty"
	}
	if why := ty.termReads(term); why != "" {
		return c.CanonicalTerm, why
	}
	return term, ""
}

func compareConcept(a, b artifact.ConceptCandidate) int {
	return cmp.Or(
		strings.Compare(a.CanonicalTerm, b.CanonicalTerm),
		strings.Compare(a.Definition, b.Definition),
		slices.CompareFunc(a.Sources, b.Sources, compareSource),
		strings.Compare(string(a.State), string(b.State)),
		strings.Compare(a.RejectionReason, b.RejectionReason),
	)
}

func groupConcepts(cs []artifact.ConceptCandidate, ty *typing) []*conceptGroup {
	type gk struct {
		term, def string
		ok        bool
	}
	typed := typeAll(ty, cs, (*typing).wellFormedConcept)
	index := make(map[gk]*conceptGroup, len(cs))
	groups := make([]*conceptGroup, 0, len(cs))
	for i, c := range cs {
		term, why := typed[i].norm, typed[i].why
		k := gk{term, c.Definition, why == ""}
		g := index[k]
		if g == nil {
			g = &conceptGroup{term: term, definition: c.Definition, wellFormed: why == "", why: why}
			index[k] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, c)
	}
	for _, g := range groups {
		slices.SortFunc(g.members, compareConcept)
	}
	slices.SortFunc(groups, func(a, b *conceptGroup) int {
		return cmp.Or(strings.Compare(a.term, b.term), strings.Compare(a.definition, b.definition), compareBool(a.wellFormed, b.wellFormed))
	})
	return groups
}

// concepts validates concepts with the relation rules that apply to a term:
// R1 (well-formed term, non-empty definition), R2, R3 with the span check,
// and R5. Copies with the same term and definition are merged. When several
// definitions of one term validate, the first in code-point order is kept
// and each other one is dropped as duplicate_term, so the set holds one
// definition per term and never credits a definition with another's
// citations.
func (v *validation) concepts(cs []artifact.ConceptCandidate) ([]artifact.ConceptCandidate, error) {
	out := []artifact.ConceptCandidate{}
	for _, g := range groupConcepts(cs, v.typing) {
		v.advance(len(g.members))
		key := func() string { return keyJSON(g.term, g.definition) }
		refs := v.mergeCopies(KindConcept, key, len(g.members),
			func(i int) []artifact.SourceRef { return g.members[i].Sources },
			func(i int) string { return fmt.Sprintf("%q", g.members[i].CanonicalTerm) })
		cand := artifact.ConceptCandidate{CanonicalTerm: g.term, Definition: g.definition, Sources: refs}
		refs, fail := v.exclude(KindConcept, key, refs)
		var res sourceResult
		var err error
		if fail == nil {
			cand.Sources = refs
			fail, res, err = v.judgeConcept(g, refs)
		}
		if err != nil {
			return nil, err
		}
		if fail == nil && len(out) > 0 && out[len(out)-1].CanonicalTerm == g.term {
			kept := out[len(out)-1].Definition
			fail = &rejection{code: ReasonDuplicateTerm, detail: fmt.Sprintf("the term already has the definition %q (first in code-point order); dropped", kept)}
		}
		if fail != nil {
			v.note(KindConcept, key(), fail, res.allChecked)
			continue
		}
		cand.State = artifact.StateValidated
		out = append(out, cand)
		v.noteUnchecked(KindConcept, key, res)
	}
	return out, nil
}

func (v *validation) judgeConcept(g *conceptGroup, refs []artifact.SourceRef) (*rejection, sourceResult, error) {
	var none sourceResult
	if !g.wellFormed {
		return &rejection{code: ReasonMalformed, detail: "R1: " + g.why}, none, nil
	}
	if term, hit := v.screen.match(g.term); hit {
		return &rejection{code: ReasonIdentityCollision, detail: fmt.Sprintf("R2: the term is the identity term %q", term)}, none, nil
	}
	res, err := v.sources.check(refs, true)
	if err != nil || res.fail != nil {
		return res.fail, res, err
	}
	if !corroborated(refs, v.allow) {
		return &rejection{code: ReasonInsufficient, detail: insufficientDetail(refs, v.allow)}, res, nil
	}
	return nil, res, nil
}
