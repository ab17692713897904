package ratify

import (
	"bytes"
	"fmt"

	"formation/artifact"
	"formation/canon"
)

// Gauge measures the gates over two passes fed to it one step at a time, so
// that a run record never has to be held whole: per step it keeps only what a
// gate needs afterwards (the first pass's trace hashes, which G1 compares and
// the report lists, and which relations were walked). Ratify feeds whole
// passes through the same Gauge, so each gate has one implementation.
//
// Feed the first pass (Result for each step, then EndPass), then the second,
// then call Report. A Gauge from Measure needs the inputs checked (Check)
// before it reports; the passes do not depend on them, so they may be fed
// while the inputs are still being read.
type Gauge struct {
	in      Input // Plan, FirstRun and SecondRun unused
	checked bool  // in is set and was checked (or is trusted: assemble)
	plan    Plan
	passes  [2]passGauge
	// traces are the first pass's trace hashes; mismatches counts the
	// second pass's steps whose hash differs from the first's at that index.
	traces     []string
	mismatches int
}

// passGauge is what the gates need of one pass.
type passGauge struct {
	steps int
	ended bool

	halted        bool
	haltStepIndex int
	haltReason    string

	// plan is the first step (in step order) that is not the plan's, or
	// whose payload cannot be hashed; plan.at < 0 when there is none.
	plan planEvent
	// closureAt is the first step whose versor condition is outside
	// closure (-1: none), closureRepr what it recorded.
	closureAt   int
	closureRepr string

	adversarial, legitimate, provenance tally

	// walked holds the triples this pass walked, once each; G6 compares
	// them with the validated set's relations when it is measured.
	walked map[artifact.Triple]struct{}
}

// planEvent is where a pass first departs from the plan: a step whose type
// or payload differs (err nil) or a payload that cannot be hashed (err set;
// ofPlan when it is the plan step's own payload).
type planEvent struct {
	at     int
	err    *Error
	ofPlan bool
}

// Start checks the inputs and returns a Gauge to feed both passes to; plan
// stands for the plan (read with ReadPlan, or PlanOf in.Plan), and in.Plan,
// in.FirstRun and in.SecondRun are not read. Its errors are Ratify's.
func Start(in Input, plan Plan) (*Gauge, error) {
	g := Measure(plan)
	if err := g.Check(in); err != nil {
		return nil, err
	}
	return g, nil
}

// Measure returns a Gauge to feed both passes of a run of plan to before
// its inputs are known; Check must accept them before it reports.
func Measure(plan Plan) *Gauge {
	g := &Gauge{plan: plan, traces: make([]string, 0, plan.Len())}
	for i := range g.passes {
		g.passes[i] = passGauge{plan: planEvent{at: -1}, closureAt: -1}
	}
	return g
}

// Check checks the inputs as Start does, against the Gauge's plan (in.Plan,
// in.FirstRun and in.SecondRun are not read), and keeps them for the
// report. Its errors are Ratify's.
func (g *Gauge) Check(in Input) error {
	return g.CheckProjected(in, "")
}

// CheckProjected is Check for a caller that has hashed the validated set
// itself: projected is artifact.ValidatedSetSHA of in.ValidatedSet, and the
// set is not hashed again (the ratify stage checks the set against its
// course as it loads it; hashing it twice cost a hundredth of a second at
// 10,000 relations, with the other CPU idle). Empty, the set is hashed.
func (g *Gauge) CheckProjected(in Input, projected string) error {
	if err := check(in, &g.plan, projected); err != nil {
		return err
	}
	g.bind(in)
	return nil
}

// newGauge trusts its inputs; assemble uses it directly.
func newGauge(in Input, plan Plan) *Gauge {
	g := Measure(plan)
	g.bind(in)
	return g
}

func (g *Gauge) bind(in Input) {
	in.Plan, in.FirstRun, in.SecondRun = artifact.FormationPlan{}, artifact.RunOutput{}, artifact.RunOutput{}
	g.in, g.checked = in, true
}

// Result feeds the next step of a pass (0 or 1). The first pass must be
// ended before the second begins.
func (g *Gauge) Result(pass int, res artifact.StepResult) error {
	return g.result(pass, res, false)
}

// PlannedPayload is the canonical payload of plan step i, or nil when the
// plan has no such step or cannot hash it.
func (g *Gauge) PlannedPayload(i int) []byte {
	if i >= g.plan.Len() {
		return nil
	}
	_, payload, err := g.plan.step(i)
	if err != nil {
		return nil
	}
	return payload
}

// Expected are strings a result of step i of pass likely holds: the plan
// step's type and, in the second pass, the first pass's trace hash ("" when
// there is none). A reader gives a result that holds them these strings
// rather than copies: half the strings the passes would otherwise copy.
func (g *Gauge) Expected(pass, i int) (typ, trace string) {
	if i < g.plan.Len() {
		typ = g.plan.types[i]
	}
	if pass == 1 && i < len(g.traces) {
		trace = g.traces[i]
	}
	return typ, trace
}

// PayloadNesting is the deepest nesting of any PlannedPayload, its own
// object counted as 1.
func (g *Gauge) PayloadNesting() int { return g.plan.nesting }

// ResultAsPlanned is Result for a step whose payload its reader found to be,
// byte for byte, PlannedPayload of that step: res.Payload is not read (nil),
// the payload is the plan's, and G6 reads the walk from the plan. A run
// record's results carry their plan step's payload, so the reader need not
// decode and re-encode it to find that out.
func (g *Gauge) ResultAsPlanned(pass int, res artifact.StepResult) error {
	return g.result(pass, res, true)
}

func (g *Gauge) result(pass int, res artifact.StepResult, asPlanned bool) error {
	p, err := g.open(pass)
	if err != nil {
		return err
	}
	i := p.steps
	p.steps++
	if pass == 0 {
		g.traces = append(g.traces, res.TraceHash)
	} else if i < len(g.traces) && g.traces[i] != res.TraceHash {
		g.mismatches++
	}
	if p.plan.at < 0 && i < g.plan.Len() {
		p.plan = g.planCheck(pass, i, res, asPlanned)
	}
	if p.closureAt < 0 && !closed(res.VersorConditionRepr) {
		p.closureAt, p.closureRepr = i, res.VersorConditionRepr
	}
	p.adversarial.add(res.StepType == artifact.StepAdversarialProbe, !res.Accepted)
	p.legitimate.add(legitimateStep(res.StepType), res.Accepted)
	p.provenance.add(true, res.HasProvenance)
	if res.StepType == artifact.StepWalk {
		tr, ok := walkTriple(res.StepType, res.Payload)
		if asPlanned {
			tr, ok = g.plan.walk(i)
		}
		if ok {
			g.walk(p, tr)
		}
	}
	return nil
}

// EndPass records how a pass ended, after its last step.
func (g *Gauge) EndPass(pass int, halted bool, haltStepIndex int, haltReason string) error {
	p, err := g.open(pass)
	if err != nil {
		return err
	}
	p.ended, p.halted, p.haltStepIndex, p.haltReason = true, halted, haltStepIndex, haltReason
	return nil
}

func (g *Gauge) open(pass int) (*passGauge, error) {
	switch {
	case pass != 0 && pass != 1:
		return nil, fmt.Errorf("ratify: pass %d: a course is run twice", pass)
	case g.passes[pass].ended:
		return nil, fmt.Errorf("ratify: pass %d fed after its end", pass)
	case pass == 1 && !g.passes[0].ended:
		return nil, fmt.Errorf("ratify: the second pass fed before the first ended")
	}
	return &g.passes[pass], nil
}

// feed gives a whole pass to the gauge.
func (g *Gauge) feed(pass int, run artifact.RunOutput) error {
	for _, res := range run.Results {
		if err := g.Result(pass, res); err != nil {
			return err
		}
	}
	return g.EndPass(pass, run.Halted, run.HaltStepIndex, run.HaltReason)
}

// planCheck compares step i of a pass with the plan's step i: same type, and
// payloads equal in canonical form.
func (g *Gauge) planCheck(pass, i int, res artifact.StepResult, asPlanned bool) planEvent {
	typ, want, err := g.plan.step(i)
	if err != nil {
		return planEvent{at: i, ofPlan: true, err: errorf(ReasonUnhashable, "plan step %d payload: %v", i, err)}
	}
	got := want
	if !asPlanned {
		if got, err = canon.Marshal(res.Payload); err != nil {
			return planEvent{at: i, err: errorf(ReasonUnhashable, "%s run step %d payload: %v", runNames[pass], i, err)}
		}
	}
	if res.StepType != typ || !bytes.Equal(got, want) {
		return planEvent{at: i}
	}
	return planEvent{at: -1}
}

// walkTriple is the (head, relation, tail) of a walk step whose three
// payload fields are strings.
func walkTriple(typ string, payload map[string]any) (artifact.Triple, bool) {
	if typ != artifact.StepWalk {
		return artifact.Triple{}, false
	}
	h, okH := payload["head"].(string)
	r, okR := payload["relation"].(string)
	t, okT := payload["tail"].(string)
	return artifact.Triple{Head: h, Relation: r, Tail: t}, okH && okR && okT
}

// walk marks a walked (head, relation, tail).
func (g *Gauge) walk(p *passGauge, tr artifact.Triple) {
	if p.walked == nil {
		p.walked = map[artifact.Triple]struct{}{}
	}
	p.walked[tr] = struct{}{}
}

func legitimateStep(typ string) bool {
	switch typ {
	case artifact.StepSeedConcept, artifact.StepIntroduceRelation, artifact.StepWalk:
		return true
	}
	return false
}

// Report measures the gates on both passes and seals the report.
func (g *Gauge) Report() (artifact.MasteryReport, error) {
	if !g.passes[0].ended || !g.passes[1].ended {
		return artifact.MasteryReport{}, fmt.Errorf("ratify: report asked before both passes ended")
	}
	if !g.checked {
		return artifact.MasteryReport{}, fmt.Errorf("ratify: report asked before the inputs were checked")
	}
	gates, reasons, err := g.measure()
	if err != nil {
		return artifact.MasteryReport{}, err
	}
	ratified := len(reasons) == 0
	for _, m := range gates {
		ratified = ratified && m.Passed
	}
	in := g.in
	r := artifact.MasteryReport{
		SchemaVersion:   artifact.SchemaVersion,
		CourseID:        in.CourseID,
		SourceBundleSHA: in.SourceBundleSHA,
		ValidatedSetSHA: in.ValidatedSetSHA,
		CourseSHA256:    in.CourseSHA256,
		PlanSHA256:      g.plan.PlanSHA256,
		Gates:           gates,
		TraceHashes:     g.traces,
		Ratified:        ratified,
		IssuedAt:        in.IssuedAt,
		FailureReasons:  reasons,
	}
	sealed, err := r.Sealed()
	if err != nil {
		return artifact.MasteryReport{}, errorf(ReasonUnhashable, "seal the report: %v", err)
	}
	return sealed, nil
}
