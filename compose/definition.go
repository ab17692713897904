package compose

import "sync"

// renderDefinition: concepts, relations in topological order, maximal chain
// walks over them, one probe per counter plus the identity-override probes.
// It has no preconditions: an empty set renders an empty course.
func renderDefinition(in input) (map[string]any, error) {
	topo := topoSortedRelations(in.vts.Relations)
	var deps, concepts, relations, walks, corrections []any
	// The phases read the set and the order and write nothing shared: at
	// tens of thousands of relations each is tens of milliseconds, so they
	// are built side by side.
	sideBySide(
		func() { deps = geometricDependencies(topo) },
		func() { concepts = conceptPayloads(sortedConcepts(in.vts.Concepts)) },
		func() { relations = relationPayloads(topo) },
		func() { walks = walkPayloads(topo, maximalChainWalks(topo)) },
		func() {
			corrections = adversarialBlock(sortedCounters(in.vts.Counters), identityOverrideProbes())
		},
	)
	body := baseBody(in.t, in.spec, in.bundleSHA)
	body["geometric_dependencies"] = deps
	body["phase_1_ontological_seeding"] = map[string]any{"concepts": concepts}
	body["phase_2_axiomatic_rotor_scaffolding"] = map[string]any{"relations": relations}
	body["phase_3_holonomic_syllabus_walk"] = map[string]any{"walks": walks}
	body["phase_4_epistemic_boundary_hardening"] = map[string]any{"adversarial_corrections": corrections}
	body["phase_5_ratified_consolidation"] = consolidation()
	return body, nil
}

// sideBySide runs fs at once and returns when all have returned.
func sideBySide(fs ...func()) {
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}
