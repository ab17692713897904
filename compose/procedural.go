package compose

import (
	"strconv"

	"formation/artifact"
)

// renderProcedural: the relations must form one linear chain of state
// transitions; ordering hints between chain states must agree with it.
// Its canned probes are the three procedural ones (the original gives this
// template no identity-override probes; kept for byte compatibility).
func renderProcedural(in input) (map[string]any, error) {
	if len(in.vts.Relations) == 0 {
		return nil, preconditionf("procedural: at least one transition relation required")
	}
	chain, err := strictLinearTopo(in.vts.Relations)
	if err != nil {
		return nil, err
	}
	states := chainStates(chain)
	if err := checkHints(in.vts.OrderingHints, states); err != nil {
		return nil, err
	}
	body := baseBody(in.t, in.spec, in.bundleSHA)
	body["geometric_dependencies"] = geometricDependencies(chain)
	body["phase_1_state_seeding"] = map[string]any{
		"states":   statePayloads(states),
		"concepts": conceptPayloads(sortedConcepts(in.vts.Concepts)),
	}
	body["phase_2_transition_scaffolding"] = map[string]any{
		"transitions": transitionPayloads(chain),
		"relations":   relationPayloads(chain),
	}
	steps := make([]any, len(chain))
	for i, r := range chain {
		s := tripleStep(r)
		s["step_index"] = strconv.Itoa(i)
		steps[i] = s
	}
	body["phase_3_linear_procedural_walk"] = map[string]any{
		"walks": []any{map[string]any{"walk_id": numbered("walk", 0), "kind": "linear_total", "steps": steps}},
	}
	body["phase_4_epistemic_boundary_hardening"] = map[string]any{
		"adversarial_corrections": adversarialBlock(sortedCounters(in.vts.Counters), proceduralProbes()),
	}
	body["phase_5_ratified_consolidation"] = consolidation("linear_order_strict", "every_transition_walked_exactly_once")
	return body, nil
}

// chainStates lists the chain's nodes in visit order: the root, then each tail.
func chainStates(chain []artifact.RelationCandidate) []string {
	states := []string{chain[0].Head}
	for _, r := range chain {
		states = append(states, r.Tail)
	}
	return states
}

// checkHints refuses a hint whose "before" state comes later in the chain
// than its "after" state; hints naming states off the chain are ignored.
func checkHints(hints []artifact.OrderingHint, states []string) error {
	pos := make(map[string]int, len(states))
	for i, s := range states {
		pos[s] = i
	}
	for _, h := range sortedHints(hints) {
		b, okB := pos[h.Before]
		a, okA := pos[h.After]
		if okB && okA && b > a {
			return preconditionf("procedural: ordering_hint %q -> %q contradicts the linear chain order", h.Before, h.After)
		}
	}
	return nil
}

func statePayloads(states []string) []any {
	out := make([]any, len(states))
	for i, s := range states {
		out[i] = map[string]any{"state_id": numbered("state", i), "name": s}
	}
	return out
}

func transitionPayloads(chain []artifact.RelationCandidate) []any {
	out := make([]any, len(chain))
	for i, r := range chain {
		out[i] = map[string]any{
			"transition_id":       numbered("transition", i),
			"action":              r.Relation,
			"precondition_state":  r.Head,
			"postcondition_state": r.Tail,
			"sources":             sourcePayloads(r.Sources),
		}
	}
	return out
}
