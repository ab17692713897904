package compile

import (
	"slices"
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

// payload is a step's payload for the triple and its utterance.
func (t triple) payload(utterance string) map[string]any {
	return map[string]any{"head": t.head, "relation": t.relation, "tail": t.tail, "utterance": utterance}
}

// The blocks of a plan, in the order its steps run.
const (
	seedsBlock = iota
	introducedBlock
	walksBlock
	probesBlock
	replayBlock
	blockCount
)

// plan collects steps per block and remembers which relations were
// introduced and which were walked.
type plan struct {
	blocks [blockCount][]artifact.PlanStep
	// encoded, for a plan compiled for the run stage (newEncodingPlan),
	// holds each block's steps with their payloads as canonical bytes, in
	// place of blocks; encodeErr is the first payload canon refused.
	encoded   *[blockCount]artifact.PlanPayloads
	encodeErr error

	relations []triple       // introduced, in order
	first     map[triple]int // each introduced relation's first position in relations
	walked    []bool         // by position in relations; a repeated relation counts as walked
}

func newPlan() *plan {
	return &plan{first: map[triple]int{}}
}

// newEncodingPlan is a plan that keeps its payloads as canonical bytes only.
func newEncodingPlan() *plan {
	p := newPlan()
	p.encoded = new([blockCount]artifact.PlanPayloads)
	return p
}

// add appends a step to block b.
func (p *plan) add(b int, stepType string, payload map[string]any) {
	switch {
	case p.encoded == nil:
		p.blocks[b] = append(p.blocks[b], artifact.PlanStep{StepType: stepType, Payload: payload})
	case p.encodeErr == nil:
		p.encodeErr = p.encoded[b].AppendStep(stepType, payload)
	}
}

// addTriple appends a step to block b whose payload is t's payload with
// the utterance (triple.payload): an encoding plan writes its bytes without
// building the map, which was a third of compiling a large course.
func (p *plan) addTriple(b int, stepType string, t triple, utterance string) {
	switch {
	case p.encoded == nil:
		p.add(b, stepType, t.payload(utterance))
	case p.encodeErr == nil:
		p.encodeErr = p.encoded[b].AppendStringStep(stepType, "head", t.head, "relation", t.relation, "tail", t.tail, "utterance", utterance)
	}
}

// reserve makes room for n more introduced relations, so a large course
// does not grow the index and the blocks step by step.
func (p *plan) reserve(n int) {
	if len(p.first) == 0 {
		p.first = make(map[triple]int, n)
	}
	p.relations = slices.Grow(p.relations, n)
	p.walked = slices.Grow(p.walked, n)
	if p.encoded == nil {
		p.blocks[introducedBlock] = slices.Grow(p.blocks[introducedBlock], n)
		p.blocks[walksBlock] = slices.Grow(p.blocks[walksBlock], n)
	}
}

// has reports whether t was introduced.
func (p *plan) has(t triple) bool {
	_, ok := p.first[t]
	return ok
}

// steps are the plan's steps, block after block; payloads holds them with
// their payloads' bytes when the plan encodes.
func (p *plan) steps() (steps []artifact.PlanStep, payloads artifact.PlanPayloads) {
	if p.encoded != nil {
		payloads = artifact.JoinPayloads(p.encoded[:]...)
		return payloads.Steps(), payloads
	}
	return slices.Concat(p.blocks[:]...), payloads
}

func (p *plan) seed(term, definition string, extra map[string]any) {
	payload := map[string]any{"canonical_term": term, "definition": definition, "utterance": "What is " + term + "?"}
	for k, v := range extra {
		payload[k] = v
	}
	p.add(seedsBlock, artifact.StepSeedConcept, payload)
}

func (p *plan) introduce(t triple) {
	p.addTriple(introducedBlock, artifact.StepIntroduceRelation, t, t.claim())
	_, repeated := p.first[t]
	if !repeated {
		p.first[t] = len(p.relations)
	}
	// A repeated relation is walked through its first introduction only.
	p.walked = append(p.walked, repeated)
	p.relations = append(p.relations, t)
}

// walk adds a walk step over an introduced relation; a walk over anything
// else could not be answered from the course and is refused.
func (p *plan) walk(t triple, path string, extra map[string]any) error {
	i, ok := p.first[t]
	if !ok {
		return errorf(KindInconsistent, path, "walk step %q is not one of the course's relations", t.String())
	}
	p.appendWalk(t, extra)
	p.walked[i] = true
	return nil
}

// appendWalk adds a walk step over t, introduced or not (a composed
// relation is walked without being introduced).
func (p *plan) appendWalk(t triple, extra map[string]any) {
	if len(extra) == 0 {
		p.addTriple(walksBlock, artifact.StepWalk, t, t.question())
		return
	}
	payload := t.payload(t.question())
	for k, v := range extra {
		payload[k] = v
	}
	p.add(walksBlock, artifact.StepWalk, payload)
}

// walkTheRest walks, on its own, every introduced relation no walk visited.
func (p *plan) walkTheRest() {
	for i, t := range p.relations {
		if !p.walked[i] {
			p.appendWalk(t, nil)
			p.walked[i] = true
		}
	}
}

func (p *plan) falseClaim(id string, t triple) {
	payload := map[string]any{"head": t.head, "relation": t.relation, "tail": t.tail,
		"kind": KindFalseClaim, "probe_id": id, "utterance": t.claim()}
	p.add(probesBlock, artifact.StepAdversarialProbe, payload)
}

func (p *plan) promptProbe(id, prompt string) {
	p.add(probesBlock, artifact.StepAdversarialProbe, map[string]any{"kind": KindIdentityOverride, "probe_id": id, "utterance": prompt})
}

func (p *plan) replayGates(gates []string) {
	list := make([]any, len(gates))
	for i, g := range gates {
		list[i] = g
	}
	p.add(replayBlock, artifact.StepReplayAssertion, map[string]any{"gates": list})
}

// joinIDs names a probe taken from a step of a walk: "walk_0003.0".
func joinIDs(parts ...string) string { return strings.Join(parts, ".") }

func numberOnly(i int) string { return strconv.Itoa(i) }
