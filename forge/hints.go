package forge

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"formation/artifact"
)

// knownTerms are the terms an ordering hint may name: validated concept
// terms, heads and tails of validated relations, and heads and tails of the
// triples already known.
func knownTerms(vts artifact.ValidatedTripleSet, existing []artifact.Triple) map[string]bool {
	known := make(map[string]bool, len(vts.Concepts)+2*len(vts.Relations)+2*len(existing))
	for _, c := range vts.Concepts {
		known[c.CanonicalTerm] = true
	}
	for _, r := range vts.Relations {
		known[r.Head], known[r.Tail] = true, true
	}
	for _, t := range existing {
		t = normalTriple(t)
		known[t.Head], known[t.Tail] = true, true
	}
	return known
}

type hintGroup struct {
	before, after string
	wellFormed    bool
	why           string
	members       []artifact.OrderingHint
}

func compareHint(a, b artifact.OrderingHint) int {
	return cmp.Or(strings.Compare(a.Before, b.Before), strings.Compare(a.After, b.After),
		slices.CompareFunc(a.Sources, b.Sources, compareSource))
}

func wellFormedHint(h artifact.OrderingHint) (string, string, string) {
	before, okB := normalTerm(h.Before)
	after, okA := normalTerm(h.After)
	if !okB || !okA {
		return h.Before, h.After, fmt.Sprintf("%q and %q must both be well-formed terms", h.Before, h.After)
	}
	return before, after, ""
}

func groupHints(hs []artifact.OrderingHint) []*hintGroup {
	type gk struct {
		before, after string
		ok            bool
	}
	index := make(map[gk]*hintGroup, len(hs))
	groups := make([]*hintGroup, 0, len(hs))
	for _, h := range hs {
		before, after, why := wellFormedHint(h)
		k := gk{before, after, why == ""}
		g := index[k]
		if g == nil {
			g = &hintGroup{before: before, after: after, wellFormed: why == "", why: why}
			index[k] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, h)
	}
	for _, g := range groups {
		slices.SortFunc(g.members, compareHint)
	}
	slices.SortFunc(groups, func(a, b *hintGroup) int {
		return cmp.Or(strings.Compare(a.before, b.before), strings.Compare(a.after, b.after), compareBool(a.wellFormed, b.wellFormed))
	})
	return groups
}

// hints validates ordering hints: both terms well formed, distinct, not
// identity terms, and known; any citation a hint gives passes R3 and the
// span check (a hint needs none: it is teaching advice, not a claim, so R5
// does not apply). Then the hints that lie on a cycle are dropped: every
// hint whose two terms fall in one strongly connected component.
func (v *validation) hints(hs []artifact.OrderingHint, known map[string]bool) ([]artifact.OrderingHint, error) {
	var kept []artifact.OrderingHint
	var keptRes []sourceResult
	for _, g := range groupHints(hs) {
		v.advance(len(g.members))
		key := func() string { return keyJSON(g.before, g.after) }
		refs := v.mergeCopies(KindOrderingHint, key, len(g.members),
			func(i int) []artifact.SourceRef { return g.members[i].Sources },
			func(i int) string { return fmt.Sprintf("(%q, %q)", g.members[i].Before, g.members[i].After) })
		h := artifact.OrderingHint{Before: g.before, After: g.after, Sources: refs}
		refs, fail := v.exclude(KindOrderingHint, key, refs)
		var res sourceResult
		var err error
		if fail == nil {
			h.Sources = refs
			fail, res, err = v.judgeHint(g, refs, known)
		}
		if err != nil {
			return nil, err
		}
		if fail != nil {
			v.note(KindOrderingHint, key(), fail, res.allChecked)
			continue
		}
		kept = append(kept, h)
		keptRes = append(keptRes, res)
	}
	cyclic := onCycle(kept)
	out := make([]artifact.OrderingHint, 0, len(kept))
	for i, h := range kept {
		key := func() string { return keyJSON(h.Before, h.After) }
		if cyclic[i] {
			v.note(KindOrderingHint, key(), &rejection{code: ReasonOrderingCycle, detail: "the hint lies on a cycle of ordering hints; every hint of the cycle is dropped"}, keptRes[i].allChecked)
			continue
		}
		out = append(out, h)
		v.noteUnchecked(KindOrderingHint, key, keptRes[i])
	}
	return out, nil
}

func (v *validation) judgeHint(g *hintGroup, refs []artifact.SourceRef, known map[string]bool) (*rejection, sourceResult, error) {
	var none sourceResult
	switch {
	case !g.wellFormed:
		return &rejection{code: ReasonMalformed, detail: "hint: " + g.why}, none, nil
	case g.before == g.after:
		return &rejection{code: ReasonOrderingCycle, detail: "a term cannot come before itself"}, none, nil
	}
	if term, hit := v.screen.match(g.before, g.after); hit {
		return &rejection{code: ReasonIdentityCollision, detail: fmt.Sprintf("R2: the hint names the identity term %q", term)}, none, nil
	}
	res, err := v.sources.check(refs, false)
	if err != nil || res.fail != nil {
		return res.fail, res, err
	}
	var unknown []string
	for _, t := range []string{g.before, g.after} {
		if !known[t] {
			unknown = append(unknown, fmt.Sprintf("%q", t))
		}
	}
	if len(unknown) > 0 {
		return &rejection{code: ReasonOrderingUnknown, detail: "not a validated or known term: " + strings.Join(unknown, ", ")}, res, nil
	}
	return nil, res, nil
}

// onCycle marks the hints whose terms lie in one strongly connected
// component of the hint graph (gonum's topological sort reports those
// components when it fails). Membership, not iteration order, decides, so
// the result is deterministic.
func onCycle(hs []artifact.OrderingHint) []bool {
	ids := map[string]int64{}
	id := func(t string) int64 {
		n, ok := ids[t]
		if !ok {
			n = int64(len(ids))
			ids[t] = n
		}
		return n
	}
	g := simple.NewDirectedGraph()
	for _, h := range hs {
		b, a := id(h.Before), id(h.After)
		for _, n := range []int64{b, a} {
			if g.Node(n) == nil {
				g.AddNode(simple.Node(n))
			}
		}
		g.SetEdge(g.NewEdge(simple.Node(b), simple.Node(a)))
	}
	marks := make([]bool, len(hs))
	_, err := topo.Sort(g)
	var uo topo.Unorderable
	if !errors.As(err, &uo) {
		return marks
	}
	component := map[int64]int{}
	for c, nodes := range uo {
		for _, n := range nodes {
			component[n.ID()] = c + 1
		}
	}
	for i, h := range hs {
		cb, ca := component[ids[h.Before]], component[ids[h.After]]
		marks[i] = cb != 0 && cb == ca
	}
	return marks
}
