package compose

import (
	"formation/artifact"
)

// renderFalsification pairs each counter with a coherent alternative: the
// first relation, by (relation, tail), sharing the counter's head. Pair ids
// follow the counter's index among all sorted counters, so they skip the
// unmatched ones, and the false-coherent probe is always the generic
// near_miss claim; both are the original's behaviour, kept byte for byte.
func renderFalsification(in input) (map[string]any, error) {
	if len(in.vts.Counters) == 0 {
		return nil, preconditionf("falsification: at least one counter required")
	}
	topo := topoSortedRelations(in.vts.Relations)
	alternatives := firstByHead(topo)
	var pairs, unmatched, walks, probes []any
	for i, c := range sortedCounters(in.vts.Counters) {
		alt, ok := alternatives[c.Head]
		if !ok {
			unmatched = append(unmatched, relationPayload(c))
			continue
		}
		pairID := numbered("pair", i)
		pairs = append(pairs, map[string]any{
			"pair_id":              pairID,
			"rejected_claim":       relationPayload(c),
			"coherent_alternative": relationPayload(alt),
		})
		walks = append(walks, polarityWalk(len(walks), c, alt))
		probes = append(probes, map[string]any{
			"probe_id":         "false_coherent_" + pairID,
			"head":             c.Head,
			"relation":         "near_miss",
			"tail":             "spurious_alternative",
			"expected_outcome": outcomeRejected,
			"sources":          []any{},
		})
	}
	for _, p := range identityOverrideProbes() {
		probes = append(probes, p.payload())
	}
	body := baseBody(in.t, in.spec, in.bundleSHA)
	body["geometric_dependencies"] = geometricDependencies(topo)
	body["phase_1_ontological_seeding"] = map[string]any{"concepts": conceptPayloads(sortedConcepts(in.vts.Concepts))}
	body["phase_2_falsification_corpus"] = map[string]any{
		"polarity_pairs":       orEmpty(pairs),
		"unmatched_counters":   orEmpty(unmatched),
		"supporting_relations": relationPayloads(topo),
	}
	body["phase_3_polarity_walks"] = map[string]any{"walks": orEmpty(walks)}
	body["phase_4_epistemic_boundary_hardening"] = map[string]any{"adversarial_corrections": probes}
	body["phase_5_ratified_consolidation"] = consolidation("counter_rejection_rate_eq_1", "alternative_acceptance_rate_eq_1")
	return body, nil
}

// firstByHead maps each head to its relation that sorts first by (relation, tail).
func firstByHead(topo []artifact.RelationCandidate) map[string]artifact.RelationCandidate {
	best := make(map[string]artifact.RelationCandidate)
	for _, r := range topo {
		b, ok := best[r.Head]
		if !ok || r.Relation < b.Relation || (r.Relation == b.Relation && r.Tail < b.Tail) {
			best[r.Head] = r
		}
	}
	return best
}

func polarityWalk(i int, rejected, accepted artifact.RelationCandidate) map[string]any {
	reject := tripleStep(rejected)
	reject["polarity"] = "reject"
	accept := tripleStep(accepted)
	accept["polarity"] = "accept"
	return map[string]any{"walk_id": numbered("walk", i), "kind": "polarity_flip", "steps": []any{reject, accept}}
}

func orEmpty(xs []any) []any {
	if xs == nil {
		return []any{}
	}
	return xs
}
