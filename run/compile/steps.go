package compile

import (
	"strconv"
	"strings"

	"formation/artifact"
)

// Probe kinds the runtime distinguishes when it scores a run: a false claim
// must not be confirmed; an identity override must be refused by the review
// gate or with a typed refusal.
const (
	KindFalseClaim       = "false_claim"
	KindIdentityOverride = "identity_override"
)

type triple struct{ head, relation, tail string }

func (t triple) String() string { return t.head + " " + t.relation + " " + t.tail }

// claim is the sentence that asserts a triple.
func (t triple) claim() string {
	return t.head + " " + artifact.SpacedRelation(t.relation) + " " + t.tail + "."
}

// question is the walk utterance: the original's form, tail left out (the
// tail is in the payload).
func (t triple) question() string {
	return "What does " + t.head + " " + artifact.SpacedRelation(t.relation) + "?"
}

func (t triple) payload() map[string]any {
	return map[string]any{"head": t.head, "relation": t.relation, "tail": t.tail}
}

// plan collects steps per block and remembers which relations were
// introduced and which were walked.
type plan struct {
	seeds, introduced, walks, probes, replay []artifact.PlanStep

	relations  []triple // introduced, in order
	introduces map[triple]bool
	walked     map[triple]bool
}

func newPlan() *plan {
	return &plan{introduces: map[triple]bool{}, walked: map[triple]bool{}}
}

func (p *plan) steps() []artifact.PlanStep {
	n := len(p.seeds) + len(p.introduced) + len(p.walks) + len(p.probes) + len(p.replay)
	out := make([]artifact.PlanStep, 0, n)
	for _, block := range [][]artifact.PlanStep{p.seeds, p.introduced, p.walks, p.probes, p.replay} {
		out = append(out, block...)
	}
	return out
}

func (p *plan) seed(term, definition string, extra map[string]any) {
	payload := map[string]any{"canonical_term": term, "definition": definition, "utterance": "What is " + term + "?"}
	for k, v := range extra {
		payload[k] = v
	}
	p.seeds = append(p.seeds, artifact.PlanStep{StepType: artifact.StepSeedConcept, Payload: payload})
}

func (p *plan) introduce(t triple) {
	payload := t.payload()
	payload["utterance"] = t.claim()
	p.introduced = append(p.introduced, artifact.PlanStep{StepType: artifact.StepIntroduceRelation, Payload: payload})
	p.relations = append(p.relations, t)
	p.introduces[t] = true
}

// walk adds a walk step over an introduced relation; a walk over anything
// else could not be answered from the course and is refused.
func (p *plan) walk(t triple, path string, extra map[string]any) error {
	if !p.introduces[t] {
		return errorf(KindInconsistent, path, "walk step %q is not one of the course's relations", t.String())
	}
	p.appendWalk(t, extra)
	return nil
}

func (p *plan) appendWalk(t triple, extra map[string]any) {
	payload := t.payload()
	payload["utterance"] = t.question()
	for k, v := range extra {
		payload[k] = v
	}
	p.walks = append(p.walks, artifact.PlanStep{StepType: artifact.StepWalk, Payload: payload})
	p.walked[t] = true
}

// walkTheRest walks, on its own, every introduced relation no walk visited.
func (p *plan) walkTheRest() {
	for _, t := range p.relations {
		if !p.walked[t] {
			p.appendWalk(t, nil)
		}
	}
}

func (p *plan) falseClaim(id string, t triple) {
	payload := t.payload()
	payload["kind"] = KindFalseClaim
	payload["probe_id"] = id
	payload["utterance"] = t.claim()
	p.probes = append(p.probes, artifact.PlanStep{StepType: artifact.StepAdversarialProbe, Payload: payload})
}

func (p *plan) promptProbe(id, prompt string) {
	p.probes = append(p.probes, artifact.PlanStep{StepType: artifact.StepAdversarialProbe,
		Payload: map[string]any{"kind": KindIdentityOverride, "probe_id": id, "utterance": prompt}})
}

func (p *plan) replayGates(gates []string) {
	list := make([]any, len(gates))
	for i, g := range gates {
		list[i] = g
	}
	p.replay = append(p.replay, artifact.PlanStep{StepType: artifact.StepReplayAssertion, Payload: map[string]any{"gates": list}})
}

// joinIDs names a probe taken from a step of a walk: "walk_0003.0".
func joinIDs(parts ...string) string { return strings.Join(parts, ".") }

func numberOnly(i int) string { return strconv.Itoa(i) }
