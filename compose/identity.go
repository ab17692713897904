package compose

import (
	"slices"
	"strconv"
	"strings"

	"formation/artifact"
)

// renderIdentityAnchor: concepts are identity axes, ranked by the ordering
// hints between them; each counter is an override attempt, walked as a
// refusal and probed.
func renderIdentityAnchor(in input) (map[string]any, error) {
	if len(in.vts.Concepts) == 0 {
		return nil, preconditionf("identity_anchor: at least one axis (concept) required")
	}
	if len(in.vts.Counters) == 0 {
		return nil, preconditionf("identity_anchor: at least one override-attempt counter required")
	}
	axes := rankedAxes(mergeConcepts(in.vts.Concepts), in.vts.OrderingHints)
	counters := sortedCounters(in.vts.Counters)
	walks := make([]any, len(counters))
	probes := make([]any, 0, len(counters)+3)
	for i, c := range counters {
		step := tripleStep(c)
		step["expected_terminal_state"] = outcomeRejected
		walks[i] = map[string]any{"walk_id": numbered("walk", i), "kind": "refusal", "steps": []any{step}}
		probes = append(probes, counterProbe(numbered("override", i), c))
	}
	for _, p := range identityOverrideProbes() {
		probes = append(probes, p.payload())
	}
	body := baseBody(in.t, in.spec, in.bundleSHA)
	body["phase_1_axis_declaration"] = map[string]any{"axes": axes}
	body["phase_2_immutability_relations"] = map[string]any{"relations": relationPayloads(topoSortedRelations(in.vts.Relations))}
	body["phase_3_refusal_walks"] = map[string]any{"walks": walks}
	body["phase_4_epistemic_boundary_hardening"] = map[string]any{"adversarial_corrections": probes}
	body["phase_5_ratified_consolidation"] = consolidation("every_axis_seeded_at_least_once", "every_override_rejected")
	return body, nil
}

// mergeConcepts returns one concept per term. Fixed defect: the original
// kept whichever duplicate came last in the input. Duplicates now merge:
// their sources are unioned (exact copies once, ordered by all four fields)
// and the definition is the first in sorted order. A term given once keeps
// its concept untouched, so courses without duplicates keep their bytes.
func mergeConcepts(cs []artifact.ConceptCandidate) map[string]artifact.ConceptCandidate {
	merged := make(map[string]artifact.ConceptCandidate, len(cs))
	dup := make(map[string]bool)
	for _, c := range cs {
		m, ok := merged[c.CanonicalTerm]
		if !ok {
			merged[c.CanonicalTerm] = c
			continue
		}
		dup[c.CanonicalTerm] = true
		m.Definition = min(m.Definition, c.Definition)
		m.Sources = append(append([]artifact.SourceRef(nil), m.Sources...), c.Sources...)
		merged[c.CanonicalTerm] = m
	}
	for term := range dup {
		m := merged[term]
		m.Sources = sortedSourcesFull(m.Sources)
		merged[term] = m
	}
	return merged
}

// rankedAxes orders the axes by Kahn's algorithm over the hints that join
// two axes (smallest name first when free; cyclic leftovers by name).
func rankedAxes(concepts map[string]artifact.ConceptCandidate, hints []artifact.OrderingHint) []any {
	names := make([]string, 0, len(concepts))
	for n := range concepts {
		names = append(names, n)
	}
	out := make(map[string][]string)
	for _, h := range sortedHints(hints) {
		_, okB := concepts[h.Before]
		_, okA := concepts[h.After]
		if okB && okA {
			out[h.Before] = append(out[h.Before], h.After)
		}
	}
	rank := kahnRank(names, out)
	axes := make([]any, len(names))
	for name, r := range rank {
		c := concepts[name]
		axes[r] = map[string]any{
			"axis_id":        numbered("axis", r),
			"priority":       strconv.Itoa(r),
			"canonical_term": c.CanonicalTerm,
			"commitment":     c.Definition,
			"sources":        sourcePayloads(c.Sources),
		}
	}
	return axes
}

// sortedSourcesFull orders sources by all four original fields, so that a
// merge of several concepts' sources does not depend on input order.
func sortedSourcesFull(refs []artifact.SourceRef) []artifact.SourceRef {
	out := slices.Clone(refs)
	slices.SortFunc(out, func(a, b artifact.SourceRef) int {
		for _, c := range [4]int{
			strings.Compare(a.SourceSHA, b.SourceSHA), strings.Compare(a.Adapter, b.Adapter),
			strings.Compare(a.RetrievedAt, b.RetrievedAt), strings.Compare(a.Span, b.Span),
		} {
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return slices.CompactFunc(out, func(a, b artifact.SourceRef) bool {
		return a.SourceSHA == b.SourceSHA && a.Adapter == b.Adapter && a.RetrievedAt == b.RetrievedAt && a.Span == b.Span
	})
}
