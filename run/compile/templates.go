package compile

// template is the compiler of one course template.
type template struct {
	id, version, paradigm string
	phases                []string // top-level keys besides the common ones
	compile               func(body map[string]any, p *plan) error
}

// commonKeys are written by every template.
func commonKeys() []string {
	return []string{"course_id", "paradigm", "template_id", "template_version", "source_bundle_sha",
		"subject", "substrate_invariants", "phase_5_ratified_consolidation"}
}

func (t template) keys() []string { return append(commonKeys(), t.phases...) }

func lookup(id string) (template, bool) {
	switch id {
	case "definition":
		return template{id, "1.0.0", "five_phase_versor_formation", []string{"geometric_dependencies",
			"phase_1_ontological_seeding", "phase_2_axiomatic_rotor_scaffolding",
			"phase_3_holonomic_syllabus_walk", "phase_4_epistemic_boundary_hardening"}, compileDefinition}, true
	case "composed_relation":
		return template{id, "1.0.0", "chained_relation_composition", []string{"geometric_dependencies",
			"phase_1_ontological_seeding", "phase_2_axiomatic_rotor_scaffolding",
			"phase_3_holonomic_syllabus_walk", "phase_4_epistemic_boundary_hardening"}, compileComposedRelation}, true
	case "procedural":
		return template{id, "1.0.0", "ordered_state_transitions", []string{"geometric_dependencies",
			"phase_1_state_seeding", "phase_2_transition_scaffolding",
			"phase_3_linear_procedural_walk", "phase_4_epistemic_boundary_hardening"}, compileProcedural}, true
	case "falsification":
		return template{id, "1.0.0", "counter_example_polarity", []string{"geometric_dependencies",
			"phase_1_ontological_seeding", "phase_2_falsification_corpus",
			"phase_3_polarity_walks", "phase_4_epistemic_boundary_hardening"}, compileFalsification}, true
	case "identity_anchor":
		return template{id, "1.0.0", "identity_axis_seeding", []string{
			"phase_1_axis_declaration", "phase_2_immutability_relations",
			"phase_3_refusal_walks", "phase_4_epistemic_boundary_hardening"}, compileIdentityAnchor}, true
	}
	return template{}, false
}

// definitionFront compiles the phases the definition family shares:
// concepts, relations and the plain walks.
func definitionFront(body map[string]any, p *plan, walkKeys ...string) (map[string]any, string, error) {
	m, path, err := phase(body, "phase_1_ontological_seeding", "concepts")
	if err == nil {
		err = seedConcepts(m, path, p)
	}
	if err != nil {
		return nil, "", err
	}
	if m, path, err = phase(body, "phase_2_axiomatic_rotor_scaffolding", "relations"); err == nil {
		err = introduceRelations(m, path, "relations", p)
	}
	if err != nil {
		return nil, "", err
	}
	m, path, err = phase(body, "phase_3_holonomic_syllabus_walk", walkKeys...)
	if err != nil {
		return nil, "", err
	}
	walks, err := readWalks(m, path, walkShape{})
	if err != nil {
		return nil, "", err
	}
	for _, w := range walks {
		for _, s := range w.steps {
			if err := p.walk(s.t, s.path, nil); err != nil {
				return nil, "", err
			}
		}
	}
	return m, path, nil
}

// compileDefinition: concepts seed, relations introduce, walks walk, counter
// probes claim, prompt probes override, gates replay (the original mapping,
// plus the counter probes it dropped).
func compileDefinition(body map[string]any, p *plan) error {
	if _, _, err := definitionFront(body, p, "walks"); err != nil {
		return err
	}
	p.walkTheRest()
	if err := dependencies(body, p); err != nil {
		return err
	}
	m, path, err := phase(body, "phase_4_epistemic_boundary_hardening", "adversarial_corrections")
	if err == nil {
		err = corrections(m, path, p)
	}
	if err != nil {
		return err
	}
	return replay(body, p)
}
