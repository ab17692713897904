package compile

import (
	"strconv"
)

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
		if err == nil && !p.introduces[et] {
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
		list[i] = e.payload()
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

func compileProcedural(body map[string]any, p *plan) error {
	states, err := proceduralSeeds(body, p)
	if err != nil {
		return err
	}
	m, path, err := phase(body, "phase_2_transition_scaffolding", "relations", "transitions")
	if err == nil {
		err = introduceRelations(m, path, "relations", p)
	}
	if err == nil {
		err = transitions(m, path, p)
	}
	if err != nil {
		return err
	}
	if err := linearWalk(body, p); err != nil {
		return err
	}
	if err := checkStates(states, p); err != nil {
		return err
	}
	p.walkTheRest()
	if err := dependencies(body, p); err != nil {
		return err
	}
	if m, path, err = phase(body, "phase_4_epistemic_boundary_hardening", "adversarial_corrections"); err == nil {
		err = corrections(m, path, p)
	}
	if err != nil {
		return err
	}
	return replay(body, p)
}

// proceduralSeeds seeds the concepts and reads the declared states.
func proceduralSeeds(body map[string]any, p *plan) ([]string, error) {
	m, path, err := phase(body, "phase_1_state_seeding", "concepts", "states")
	if err == nil {
		err = seedConcepts(m, path, p)
	}
	var states []string
	if err == nil {
		err = entries(m, path, "states", func(v any, path string) error {
			s, err := object(v, path, "state_id", "name")
			if err != nil {
				return err
			}
			if _, err := text(s, path, "state_id"); err != nil {
				return err
			}
			name, err := text(s, path, "name")
			states = append(states, name)
			return err
		})
	}
	return states, err
}

// transitions must restate the relations, in order, as state changes.
func transitions(m map[string]any, path string, p *plan) error {
	n := 0
	err := entries(m, path, "transitions", func(v any, path string) error {
		tr, err := object(v, path, "transition_id", "action", "precondition_state", "postcondition_state", "sources")
		if err != nil {
			return err
		}
		if _, err := text(tr, path, "transition_id"); err != nil {
			return err
		}
		var t triple
		if t.head, err = text(tr, path, "precondition_state"); err != nil {
			return err
		}
		if t.relation, err = text(tr, path, "action"); err != nil {
			return err
		}
		if t.tail, err = text(tr, path, "postcondition_state"); err != nil {
			return err
		}
		if n >= len(p.relations) || p.relations[n] != t {
			return errorf(KindInconsistent, path, "transition %q is not relation %d of the course", t.String(), n)
		}
		n++
		return sources(tr, path)
	})
	if err == nil && n != len(p.relations) {
		err = errorf(KindInconsistent, child(path, "transitions"), "%d transitions for %d relations", n, len(p.relations))
	}
	return err
}

// linearWalk: one walk of kind linear_total that takes every transition
// once, in order, each step numbered by its position.
func linearWalk(body map[string]any, p *plan) error {
	m, path, err := phase(body, "phase_3_linear_procedural_walk", "walks")
	if err != nil {
		return err
	}
	walks, err := readWalks(m, path, walkShape{kind: "linear_total", extra: "step_index"})
	if err != nil {
		return err
	}
	if len(walks) != 1 || len(walks[0].steps) != len(p.relations) {
		return errorf(KindInconsistent, child(path, "walks"), "want one walk taking each of the %d transitions once", len(p.relations))
	}
	for i, s := range walks[0].steps {
		if s.t != p.relations[i] || s.extra != strconv.Itoa(i) {
			return errorf(KindInconsistent, s.path, "step %d is not transition %d", i, i)
		}
		if err := p.walk(s.t, s.path, map[string]any{"step_index": s.extra}); err != nil {
			return err
		}
	}
	return nil
}

// checkStates: the declared states are the chain's nodes in visit order.
func checkStates(states []string, p *plan) error {
	want := make([]string, 0, len(p.relations)+1)
	for i, t := range p.relations {
		if i == 0 {
			want = append(want, t.head)
		}
		want = append(want, t.tail)
	}
	if len(states) != len(want) {
		return errorf(KindInconsistent, "$.phase_1_state_seeding.states", "%d states for a chain of %d", len(states), len(want))
	}
	for i := range want {
		if states[i] != want[i] {
			return errorf(KindInconsistent, index("$.phase_1_state_seeding.states", i), "state %q, the chain has %q", states[i], want[i])
		}
	}
	return nil
}
