package compose

// renderDefinition: concepts, relations in topological order, maximal chain
// walks over them, one probe per counter plus the identity-override probes.
// It has no preconditions: an empty set renders an empty course.
func renderDefinition(in input) (map[string]any, error) {
	topo := topoSortedRelations(in.vts.Relations)
	body := baseBody(in.t, in.spec, in.bundleSHA)
	body["geometric_dependencies"] = geometricDependencies(topo)
	body["phase_1_ontological_seeding"] = map[string]any{"concepts": conceptPayloads(sortedConcepts(in.vts.Concepts))}
	body["phase_2_axiomatic_rotor_scaffolding"] = map[string]any{"relations": relationPayloads(topo)}
	body["phase_3_holonomic_syllabus_walk"] = map[string]any{"walks": walkPayloads(topo, maximalChainWalks(topo))}
	body["phase_4_epistemic_boundary_hardening"] = map[string]any{
		"adversarial_corrections": adversarialBlock(sortedCounters(in.vts.Counters), identityOverrideProbes()),
	}
	body["phase_5_ratified_consolidation"] = consolidation()
	return body, nil
}
