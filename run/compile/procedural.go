package compile

import (
	"strconv"
)

// compileProcedural: concepts seed, relations introduce, the linear walk
// walks them in order; transitions and states restate the chain and are
// checked against it.
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
