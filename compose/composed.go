package compose

import (
	"formation/artifact"
)

// renderComposedRelation: the definition phases, but walks keep only chains
// of two or more edges, each chain also stated as one composed relation, and
// each chain gets a chain-break probe.
//
// Fixed defect: the original counted "at least two relations" before
// removing duplicate triples, so two copies of one triple rendered a course
// with no chain at all. The minimum now counts distinct triples.
func renderComposedRelation(in input) (map[string]any, error) {
	topo := topoSortedRelations(in.vts.Relations)
	if len(topo) < 2 {
		return nil, preconditionf("composed_relation: at least two relations required to form a chain")
	}
	var chains [][]int
	for _, c := range maximalChainWalks(topo) {
		if len(c) >= 2 {
			chains = append(chains, c)
		}
	}
	counters := sortedCounters(in.vts.Counters)
	body := baseBody(in.t, in.spec, in.bundleSHA)
	body["geometric_dependencies"] = geometricDependencies(topo)
	body["phase_1_ontological_seeding"] = map[string]any{"concepts": conceptPayloads(sortedConcepts(in.vts.Concepts))}
	body["phase_2_axiomatic_rotor_scaffolding"] = map[string]any{"relations": relationPayloads(topo)}
	body["phase_3_holonomic_syllabus_walk"] = map[string]any{
		"walks":              walkPayloads(topo, chains),
		"composed_relations": composedRelations(topo, chains),
	}
	body["phase_4_epistemic_boundary_hardening"] = map[string]any{
		"adversarial_corrections": adversarialBlock(counters, identityOverrideProbes()),
		"chain_break_probes":      chainBreakProbes(topo, chains, counters),
	}
	body["phase_5_ratified_consolidation"] = consolidation("every_composed_relation_replayed")
	return body, nil
}

// composedRelations states each chain as head → tail: "transitive" with the
// shared predicate when every edge has the same one, "lifting" otherwise.
// Chain ids repeat when two chains share their ends (kept: the bytes of the
// original depend on them).
func composedRelations(topo []artifact.RelationCandidate, chains [][]int) []any {
	out := make([]any, len(chains))
	for i, chain := range chains {
		first, last := topo[chain[0]], topo[chain[len(chain)-1]]
		kind, inferred := "transitive", first.Relation
		edges := make([]any, len(chain))
		for j, k := range chain {
			edges[j] = tripleStep(topo[k])
			if topo[k].Relation != first.Relation {
				kind, inferred = "lifting", "composes_to"
			}
		}
		out[i] = map[string]any{
			"chain_id":          "chain_" + first.Head + "_to_" + last.Tail,
			"head":              first.Head,
			"tail":              last.Tail,
			"inferred_relation": inferred,
			"composition_kind":  kind,
			"verified":          "by_walk_only",
			"constituent_edges": edges,
		}
	}
	return out
}

// chainBreakProbes claims each chain's ends are joined by a counter's
// relation (the first sorted counter with those ends) or, without one, by a
// spurious inference.
func chainBreakProbes(topo []artifact.RelationCandidate, chains [][]int, counters []artifact.CounterCandidate) []any {
	byEnds := make(map[[2]string]artifact.CounterCandidate, len(counters))
	for _, c := range counters {
		k := [2]string{c.Head, c.Tail}
		if _, ok := byEnds[k]; !ok {
			byEnds[k] = c
		}
	}
	out := make([]any, len(chains))
	for i, chain := range chains {
		head, tail := topo[chain[0]].Head, topo[chain[len(chain)-1]].Tail
		p := map[string]any{
			"probe_id":         numbered("chain_break", i),
			"head":             head,
			"tail":             tail,
			"counter_relation": "spurious_inference",
			"expected_outcome": outcomeRejected,
			"sources":          []any{},
		}
		if c, ok := byEnds[[2]string{head, tail}]; ok {
			p["counter_relation"] = c.Relation
			p["sources"] = sourcePayloads(c.Sources)
		}
		out[i] = p
	}
	return out
}
