package ratify

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"formation/artifact"
	"formation/runtime/algebra"
)

// Failure reason codes (the part of a failure reason before the first "; ").
// Codes with a suffix carry it after a colon, e.g. replay_trace_mismatch:2.
const (
	CodeEmptyPlan           = "empty_plan"
	CodeRunHalted           = "run_halted"
	CodeReplayLength        = "replay_length_mismatch"
	CodeRunIncomplete       = "run_incomplete"
	CodeRunPlanMismatch     = "run_plan_mismatch"
	CodeClosureViolated     = "versor_closure_violated"
	CodeReplayTrace         = "replay_trace_mismatch"
	CodeAdversarialAccepted = "adversarial_probe_accepted"
	CodeNoAdversarialSteps  = "no_adversarial_steps"
	CodeLegitimateRejected  = "legitimate_step_rejected"
	CodeNoLegitimateSteps   = "no_legitimate_steps"
	CodeProvenanceMissing   = "provenance_missing"
	CodeNoStepsMeasured     = "no_steps_measured"
	CodeUnwalkedRelations   = "unwalked_relations"
	CodeWalkOutsideSet      = "walk_outside_validated_set"
	CodePriorRegressed      = "prior_course_regressed"
)

// What a passing gate with nothing to measure names as absent from the
// validated set: its measurement is "n/a:" and this.
const (
	AbsentConceptsAndRelations = "no_concepts_or_relations"
	AbsentRelations            = "no_relations"
)

// runNames name the two runs in measurements and reasons.
var runNames = [2]string{"first", "second"}

// verdict is one gate's outcome before it becomes a GateMeasurement.
type verdict struct {
	name        string
	passed      bool
	measurement string
	code        string // failure code; empty when passed
}

func pass(name, measurement string) verdict {
	return verdict{name: name, passed: true, measurement: measurement}
}

func fail(name, measurement, code string) verdict {
	return verdict{name: name, measurement: measurement, code: code}
}

// reason is the failure_reasons entry of a failed gate: its code, then the
// gate, its measurement and its threshold.
func (v verdict) reason() string {
	return fmt.Sprintf("%s; gate=%s; measurement=%s; threshold=%s", v.code, v.name, v.measurement, Threshold)
}

// measure computes the gates in report order (G1, G3, G4, G5, G6, G2) and the
// failure reasons in the same order.
func (g *Gauge) measure() ([]artifact.GateMeasurement, []string, error) {
	g1, err := g.replayGate()
	if err != nil {
		return nil, nil, err
	}
	p := &g.passes
	verdicts := []verdict{
		g1,
		adversarialGate([2]tally{p[0].adversarial, p[1].adversarial}),
		legitimateGate(g.in.ValidatedSet, [2]tally{p[0].legitimate, p[1].legitimate}),
		provenanceGate([2]tally{p[0].provenance, p[1].provenance}),
		g.coverageGate(),
		priorGate(g.in.PriorCourses),
	}
	gates := make([]artifact.GateMeasurement, len(verdicts))
	reasons := []string{}
	for i, v := range verdicts {
		gates[i] = artifact.GateMeasurement{Name: v.name, Passed: v.passed, Measurement: v.measurement, Threshold: Threshold}
		if !v.passed {
			reasons = append(reasons, v.reason())
		}
	}
	return gates, reasons, nil
}

// ratio renders num/den as the original does: n/a, 1.0, 0.0 or the
// unreduced fraction.
func ratio(num, den int) string {
	switch {
	case den == 0:
		return "n/a"
	case num == den:
		return "1.0"
	case num == 0:
		return "0.0"
	}
	return fmt.Sprintf("%d/%d", num, den)
}

// replayGate (G1): both runs complete, closed, step-for-step replays of the
// plan with identical trace hashes.
func (g *Gauge) replayGate() (verdict, error) {
	p := &g.passes
	if g.plan.Len() == 0 {
		return fail(GateReplay, "n/a", CodeEmptyPlan), nil
	}
	if v, halted := g.haltVerdict(); halted {
		return v, nil
	}
	n1, n2 := p[0].steps, p[1].steps
	if n1 != n2 {
		return fail(GateReplay, fmt.Sprintf("length_mismatch:%d!=%d", n1, n2), CodeReplayLength), nil
	}
	if n1 != g.plan.Len() {
		at := fmt.Sprintf("%d!=%d", n1, g.plan.Len())
		return fail(GateReplay, "incomplete:"+at, CodeRunIncomplete+":"+at), nil
	}
	if v, bad, err := g.planVerdict(); err != nil || bad {
		return v, err
	}
	if v, bad := g.closureVerdict(); bad {
		return v, nil
	}
	if m := g.mismatches; m > 0 {
		return fail(GateReplay, ratio(n1-m, n1), fmt.Sprintf("%s:%d", CodeReplayTrace, m)), nil
	}
	return pass(GateReplay, ratio(n1, n1)), nil
}

// haltVerdict fails G1 for every run that halted (or names a halt reason).
func (g *Gauge) haltVerdict() (verdict, bool) {
	var at, why []string
	for r, run := range g.passes {
		if run.halted || run.haltReason != "" {
			where := fmt.Sprintf("%s@%d", runNames[r], run.haltStepIndex)
			at = append(at, where)
			why = append(why, where+":"+run.haltReason)
		}
	}
	if len(at) == 0 {
		return verdict{}, false
	}
	return fail(GateReplay, "halted:"+strings.Join(at, ","), CodeRunHalted+":"+strings.Join(why, ",")), true
}

// planVerdict fails G1 at the first result whose step type or payload is not
// the plan's step at that position: such a record is not a run of this plan.
// Steps are judged in step order, the first run before the second at the
// same step, whichever order the runs were fed in.
func (g *Gauge) planVerdict() (verdict, bool, error) {
	r := 0
	if e0, e1 := g.passes[0].plan, g.passes[1].plan; e0.at < 0 || (e1.at >= 0 && e1.at < e0.at) {
		r = 1
	}
	e := g.passes[r].plan
	switch {
	case e.at < 0:
		return verdict{}, false, nil
	case e.err != nil:
		return verdict{}, false, e.err
	}
	at := fmt.Sprintf("%s@%d", runNames[r], e.at)
	return fail(GateReplay, "plan_mismatch:"+at, CodeRunPlanMismatch+":"+at), true, nil
}

// closureVerdict fails G1 for a step whose recorded versor condition is not
// a number in [0, algebra.ClosureBound): such a run should have halted.
func (g *Gauge) closureVerdict() (verdict, bool) {
	for r, run := range g.passes {
		if run.closureAt >= 0 {
			at := fmt.Sprintf("%s@%d", runNames[r], run.closureAt)
			return fail(GateReplay, "closure:"+at, fmt.Sprintf("%s:%s:%q", CodeClosureViolated, at, run.closureRepr)), true
		}
	}
	return verdict{}, false
}

func closed(repr string) bool {
	v, err := strconv.ParseFloat(repr, 64)
	return err == nil && !math.IsNaN(v) && v >= 0 && v < algebra.ClosureBound
}

// tally counts the steps a gate measures (den) and those that pass (num).
type tally struct{ num, den int }

// add counts one step: measured says whether the gate measures it, ok
// whether it passes.
func (t *tally) add(measured, ok bool) {
	if measured {
		t.den++
		if ok {
			t.num++
		}
	}
}

// rateGate judges one rate over both runs; the worse run decides. A gate
// with nothing to measure is never a plain n/a pass. When the validated set
// holds nothing of the kind the gate measures, absent names what is missing
// and the gate passes saying so ("n/a:" + absent); otherwise (absent empty)
// it fails with emptyCode, which says what the runs lacked.
func rateGate(name string, t [2]tally, failCode, emptyCode, absent string) verdict {
	if t[0].den == 0 && t[1].den == 0 && absent != "" {
		return pass(name, naBecause(absent))
	}
	if t[0].den == 0 || t[1].den == 0 {
		return fail(name, ratio(0, 0), emptyCode)
	}
	worse := t[0]
	if t[1].num*t[0].den < t[0].num*t[1].den {
		worse = t[1]
	}
	if worse.num < worse.den {
		return fail(name, ratio(worse.num, worse.den), failCode)
	}
	return pass(name, ratio(t[0].num, t[0].den))
}

// naBecause is the measurement of a gate the validated set gives nothing to
// measure: n/a, and why.
func naBecause(absent string) string { return "n/a:" + absent }

// adversarialGate (G3): every adversarial probe rejected in both runs. Every
// course is probed (its identity probes at least), so no probe run fails.
func adversarialGate(t [2]tally) verdict {
	return rateGate(GateAdversarial, t, CodeAdversarialAccepted, CodeNoAdversarialSteps, "")
}

// legitimateGate (G4): every seed, introduction and walk accepted in both
// runs. A set of counter-claims alone has nothing for it to measure.
func legitimateGate(vts artifact.ValidatedTripleSet, t [2]tally) verdict {
	absent := ""
	if len(vts.Concepts) == 0 && len(vts.Relations) == 0 {
		absent = AbsentConceptsAndRelations
	}
	return rateGate(GateLegitimate, t, CodeLegitimateRejected, CodeNoLegitimateSteps, absent)
}

// provenanceGate (G5): every step of both runs has provenance.
func provenanceGate(t [2]tally) verdict {
	return rateGate(GateProvenance, t, CodeProvenanceMissing, CodeNoStepsMeasured, "")
}
