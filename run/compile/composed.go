package compile

// compileComposedRelation: the definition mapping, plus one walk step per
// composed relation (after the chain walks and any unchained relation) and a
// false_claim probe per chain-break probe.
func compileComposedRelation(body map[string]any, p *plan) error {
	walkPhase, walkPath, err := definitionFront(body, p, "walks", "composed_relations")
	if err != nil {
		return err
	}
	p.walkTheRest()
	if err := entries(walkPhase, walkPath, "composed_relations", func(v any, path string) error {
		return composedRelation(v, path, p)
	}); err != nil {
		return err
	}
	if err := dependencies(body, p); err != nil {
		return err
	}
	m, path, err := phase(body, "phase_4_epistemic_boundary_hardening", "adversarial_corrections", "chain_break_probes")
	if err == nil {
		err = corrections(m, path, p)
	}
	if err == nil {
		err = entries(m, path, "chain_break_probes", func(v any, path string) error {
			c, err := object(v, path, "probe_id", "head", "tail", "counter_relation", "expected_outcome", "sources")
			if err != nil {
				return err
			}
			return counterProbe(c, path, "counter_relation", p)
		})
	}
	if err != nil {
		return err
	}
	return replay(body, p)
}

// composedRelation walks a chain's composition: from its head by the
// inferred relation to its tail, with the edges that justify it. The edges
// must join up, start at the head, end at the tail, be relations of the
// course, and agree with the composition kind.
func composedRelation(v any, path string, p *plan) error {
	c, err := object(v, path, "chain_id", "head", "tail", "inferred_relation", "composition_kind", "verified", "constituent_edges")
	if err != nil {
		return err
	}
	id, err := text(c, path, "chain_id")
	if err != nil {
		return err
	}
	t, err := tripleOf(c, path, "inferred_relation")
	if err != nil {
		return err
	}
	kind, err := str(c, path, "composition_kind")
	if err != nil {
		return err
	}
	if err := exact(c, path, "verified", "by_walk_only"); err != nil {
		return err
	}
	var edges []triple
	if err := entries(c, path, "constituent_edges", func(v any, path string) error {
		e, err := object(v, path, "head", "relation", "tail")
		if err != nil {
			return err
		}
		et, err := tripleOf(e, path, "relation")
		if err == nil && !p.has(et) {
			err = errorf(KindInconsistent, path, "edge %q is not one of the course's relations", et.String())
		}
		edges = append(edges, et)
		return err
	}); err != nil {
		return err
	}
	if err := checkChain(t, kind, edges, path); err != nil {
		return err
	}
	list := make([]any, len(edges))
	for i, e := range edges {
		list[i] = map[string]any{"head": e.head, "relation": e.relation, "tail": e.tail}
	}
	p.appendWalk(t, map[string]any{"chain_id": id, "composition_kind": kind, "edges": list})
	return nil
}

func checkChain(t triple, kind string, edges []triple, path string) error {
	if len(edges) < 2 {
		return errorf(KindUnusable, child(path, "constituent_edges"), "a composition needs at least two edges")
	}
	if edges[0].head != t.head || edges[len(edges)-1].tail != t.tail {
		return errorf(KindInconsistent, path, "edges run from %q to %q, not from %q to %q",
			edges[0].head, edges[len(edges)-1].tail, t.head, t.tail)
	}
	same := true
	for i, e := range edges {
		if i > 0 && edges[i-1].tail != e.head {
			return errorf(KindInconsistent, index(child(path, "constituent_edges"), i), "edge does not start where the previous one ends")
		}
		same = same && e.relation == edges[0].relation
	}
	switch {
	case kind == "transitive" && same && t.relation == edges[0].relation:
	case kind == "lifting" && !same && t.relation == "composes_to":
	default:
		return errorf(KindInconsistent, path, "composition_kind %q with inferred relation %q does not fit the edges", kind, t.relation)
	}
	return nil
}
