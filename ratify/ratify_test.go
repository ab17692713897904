package ratify

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/seal"
)

const issued = "2026-05-16T00:00:00Z"

var (
	wisdomIsJudgment  = map[string]any{"head": "wisdom", "relation": "is", "tail": "judgment"}
	judgmentIsFolly   = map[string]any{"head": "judgment", "relation": "is", "tail": "folly"}
	seedWisdom        = map[string]any{"canonical_term": "wisdom"}
	introduceWisdom   = map[string]any{"head": "wisdom", "relation": "is", "tail": "judgment", "utterance": "wisdom is judgment."}
	probeAxisRewrite  = map[string]any{"kind": "identity_override", "probe_id": "identity_override_axis_rewrite"}
	replayAllGates    = map[string]any{"gates": []any{"replay_determinism_eq_1"}}
	relationWisdomRef = artifact.SourceRef{SourceSHA: strings.Repeat("a", 64), Span: "span", Adapter: "wikipedia", RetrievedAt: issued}
)

func res(typ string, payload map[string]any, trace string, accepted, provenance bool) artifact.StepResult {
	return artifact.StepResult{StepType: typ, Payload: payload, TraceHash: trace,
		VersorConditionRepr: "0.0e+00", Accepted: accepted, HasProvenance: provenance}
}

func run(results ...artifact.StepResult) artifact.RunOutput {
	return artifact.RunOutput{Results: results, HaltStepIndex: -1}
}

func relation(h, r, t string) artifact.RelationCandidate {
	return artifact.RelationCandidate{Head: h, Relation: r, Tail: t, Sources: []artifact.SourceRef{relationWisdomRef}, State: artifact.StateValidated}
}

// planOf is the plan whose steps the results replay.
func planOf(results []artifact.StepResult) artifact.FormationPlan {
	steps := make([]artifact.PlanStep, len(results))
	for i, r := range results {
		steps[i] = artifact.PlanStep{StepType: r.StepType, Payload: r.Payload}
	}
	return artifact.FormationPlan{CourseID: "x.v1", CourseSHA256: strings.Repeat("2", 64), Steps: steps,
		PlanSHA256: strings.Repeat("3", 64), SchemaVersion: artifact.SchemaVersion}
}

// originalInput is the fixture of the original's test_ratify.py: placeholder
// digests 0/1/2/3×64, so only assemble (which trusts its inputs) accepts it.
func originalInput(relations []artifact.RelationCandidate, first, second artifact.RunOutput) Input {
	return Input{CourseID: "x.v1", SourceBundleSHA: strings.Repeat("0", 64), ValidatedSetSHA: strings.Repeat("1", 64),
		CourseSHA256: strings.Repeat("2", 64), Plan: planOf(first.Results),
		ValidatedSet: artifact.ValidatedTripleSet{SubjectID: "subject.x", Relations: relations, SchemaVersion: artifact.SchemaVersion},
		FirstRun:     first, SecondRun: second, IssuedAt: issued}
}

func allGreen() artifact.RunOutput {
	return run(
		res(artifact.StepSeedConcept, seedWisdom, "t1", true, true),
		res(artifact.StepIntroduceRelation, introduceWisdom, "t2", true, true),
		res(artifact.StepWalk, wisdomIsJudgment, "t3", true, true),
		res(artifact.StepAdversarialProbe, probeAxisRewrite, "t4", false, true),
		res(artifact.StepReplayAssertion, replayAllGates, "t5", true, true),
	)
}

func mustAssemble(t *testing.T, in Input) artifact.MasteryReport {
	t.Helper()
	r, err := assemble(in)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	return r
}

func gate(t *testing.T, r artifact.MasteryReport, name string) artifact.GateMeasurement {
	t.Helper()
	for _, g := range r.Gates {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no gate %s in %+v", name, r.Gates)
	return artifact.GateMeasurement{}
}

// codes strips failure reasons down to their codes.
func codes(r artifact.MasteryReport) []string {
	out := make([]string, len(r.FailureReasons))
	for i, s := range r.FailureReasons {
		out[i], _, _ = strings.Cut(s, "; ")
	}
	return out
}

func sealVerifies(t *testing.T, r artifact.MasteryReport) bool {
	t.Helper()
	raw, err := artifact.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canon.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return seal.VerifySeal(doc, seal.DefaultField).Valid
}

func TestOriginalAllGreenLiteral(t *testing.T) {
	r := mustAssemble(t, originalInput([]artifact.RelationCandidate{relation("wisdom", "is", "judgment")}, allGreen(), allGreen()))
	if r.ReportSHA256 != "110ab077b1ee910bfc86760f5c28e62f31e11144794f19198ad90da3f35ed731" {
		t.Fatalf("report_sha256 %s", r.ReportSHA256)
	}
	if !r.Ratified || len(r.FailureReasons) != 0 || !sealVerifies(t, r) {
		t.Fatalf("all green: %+v", r)
	}
	wantOrder := []string{GateReplay, GateAdversarial, GateLegitimate, GateProvenance, GateCoverage, GatePrior}
	for i, g := range r.Gates {
		if g.Name != wantOrder[i] || g.Threshold != "1.0" || !g.Passed {
			t.Fatalf("gate %d: %+v", i, g)
		}
	}
	if g := gate(t, r, GatePrior); g.Measurement != DeferredNoPriorCourses {
		t.Fatalf("G2 with an empty index: %+v", g)
	}
	if strings.Join(r.TraceHashes, ",") != "t1,t2,t3,t4,t5" {
		t.Fatalf("trace hashes %v", r.TraceHashes)
	}
}

// The original ratified an empty plan with empty runs (every gate n/a) under
// report_sha256 22ed821f…; this port refuses it on purpose.
func TestEmptyPlanNoLongerRatifies(t *testing.T) {
	in := originalInput(nil, run(), run())
	r := mustAssemble(t, in)
	if r.Ratified {
		t.Fatal("an empty plan ratified")
	}
	g1 := gate(t, r, GateReplay)
	want := strings.Join([]string{CodeEmptyPlan, CodeNoAdversarialSteps, CodeNoStepsMeasured}, ",")
	if g1.Passed || g1.Measurement != "n/a" || strings.Join(codes(r), ",") != want {
		t.Fatalf("G1 %+v, reasons %v", g1, r.FailureReasons)
	}
	// No gate passes as a plain n/a: G4 and G6 pass only saying what the set
	// lacks.
	for _, g := range r.Gates {
		if g.Passed && g.Measurement == "n/a" {
			t.Errorf("%s passed as a plain n/a", g.Name)
		}
	}
	if g4, g6 := gate(t, r, GateLegitimate), gate(t, r, GateCoverage); g4.Measurement != "n/a:no_concepts_or_relations" || g6.Measurement != "n/a:no_relations" {
		t.Fatalf("G4 %+v G6 %+v", g4, g6)
	}
	// What the original sealed for the same inputs, to show the difference:
	// every gate n/a and passed.
	orig := r
	orig.Ratified, orig.FailureReasons = true, []string{}
	orig.Gates = slices.Clone(r.Gates)
	for i := range orig.Gates {
		orig.Gates[i].Passed = true
		if orig.Gates[i].Name != GatePrior {
			orig.Gates[i].Measurement = "n/a"
		}
	}
	sealedOrig, err := orig.Sealed()
	if err != nil {
		t.Fatal(err)
	}
	if sealedOrig.ReportSHA256 != "22ed821f6dd8537a671a79fcf912bd1d22a88f8f87b7b8c04b32619372764f4e" {
		t.Fatalf("the original's empty-run report would be %s", sealedOrig.ReportSHA256)
	}
	if r.ReportSHA256 == sealedOrig.ReportSHA256 {
		t.Fatal("the port reproduced the original's vacuous ratification")
	}
}

func TestTraceMismatchAndLengthMismatch(t *testing.T) {
	seed := func(trace string) artifact.RunOutput {
		return run(res(artifact.StepSeedConcept, seedWisdom, trace, true, true))
	}
	r := mustAssemble(t, originalInput(nil, seed("t1"), seed("DIFFERENT")))
	g1 := gate(t, r, GateReplay)
	if r.Ratified || g1.Passed || g1.Measurement != "0.0" || codes(r)[0] != "replay_trace_mismatch:1" {
		t.Fatalf("trace mismatch: %+v %v", g1, r.FailureReasons)
	}
	r = mustAssemble(t, originalInput(nil, seed("t1"), run()))
	g1 = gate(t, r, GateReplay)
	if r.Ratified || g1.Measurement != "length_mismatch:1!=0" || codes(r)[0] != CodeReplayLength {
		t.Fatalf("length mismatch: %+v %v", g1, r.FailureReasons)
	}
}

func TestSingleGateFailures(t *testing.T) {
	rels := []artifact.RelationCandidate{relation("wisdom", "is", "judgment")}
	cases := []struct {
		name string
		mut  func(*artifact.StepResult)
		at   int
		gate string
		code string
	}{
		{"adversarial accepted", func(s *artifact.StepResult) { s.Accepted = true }, 3, GateAdversarial, CodeAdversarialAccepted},
		{"walk rejected", func(s *artifact.StepResult) { s.Accepted = false }, 2, GateLegitimate, CodeLegitimateRejected},
		{"walk without provenance", func(s *artifact.StepResult) { s.HasProvenance = false }, 2, GateProvenance, CodeProvenanceMissing},
	}
	for _, c := range cases {
		first, second := allGreen(), allGreen()
		c.mut(&first.Results[c.at])
		c.mut(&second.Results[c.at])
		r := mustAssemble(t, originalInput(rels, first, second))
		if r.Ratified || gate(t, r, c.gate).Passed || strings.Join(codes(r), ",") != c.code {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
}

func TestCoverageOfTwoRelations(t *testing.T) {
	rels := []artifact.RelationCandidate{relation("wisdom", "is", "judgment"), relation("judgment", "is", "folly")}
	one := run(res(artifact.StepWalk, wisdomIsJudgment, "t", true, true), res(artifact.StepAdversarialProbe, probeAxisRewrite, "v", false, true))
	r := mustAssemble(t, originalInput(rels, one, one))
	g6 := gate(t, r, GateCoverage)
	if g6.Passed || g6.Measurement != "1/2" || codes(r)[0] != "unwalked_relations:1" {
		t.Fatalf("one of two walked: %+v %v", g6, r.FailureReasons)
	}
	both := run(res(artifact.StepWalk, wisdomIsJudgment, "t", true, true), res(artifact.StepWalk, judgmentIsFolly, "u", true, true),
		res(artifact.StepAdversarialProbe, probeAxisRewrite, "v", false, true))
	r = mustAssemble(t, originalInput(rels, both, both))
	if g6 := gate(t, r, GateCoverage); !g6.Passed || g6.Measurement != "1.0" || !r.Ratified {
		t.Fatalf("both walked: %+v %v", g6, r.FailureReasons)
	}
}

// The regenerated mixed case of the original: measurements and reasons keep
// the original's values because the two runs are identical.
func TestMixedCase(t *testing.T) {
	rels := []artifact.RelationCandidate{relation("wisdom", "is", "judgment")}
	mixed := func() artifact.RunOutput {
		return run(
			res(artifact.StepWalk, wisdomIsJudgment, "a", true, true),
			res(artifact.StepAdversarialProbe, probeAxisRewrite, "b", true, true),
			res(artifact.StepAdversarialProbe, probeAxisRewrite, "c", false, true),
			res(artifact.StepWalk, wisdomIsJudgment, "d", false, false),
		)
	}
	r := mustAssemble(t, originalInput(rels, mixed(), mixed()))
	for name, want := range map[string]string{GateAdversarial: "1/2", GateLegitimate: "1/2", GateProvenance: "3/4"} {
		if g := gate(t, r, name); g.Passed || g.Measurement != want {
			t.Errorf("%s: %+v, want %s", name, g, want)
		}
	}
	want := []string{CodeAdversarialAccepted, CodeLegitimateRejected, CodeProvenanceMissing}
	if strings.Join(codes(r), ",") != strings.Join(want, ",") {
		t.Fatalf("reasons %v", r.FailureReasons)
	}
	if r.FailureReasons[0] != "adversarial_probe_accepted; gate=G3_adversarial_rejection_rate; measurement=1/2; threshold=1.0" {
		t.Fatalf("reason format: %q", r.FailureReasons[0])
	}
}

func TestSealProperties(t *testing.T) {
	in := originalInput([]artifact.RelationCandidate{relation("wisdom", "is", "judgment")}, allGreen(), allGreen())
	a, b := mustAssemble(t, in), mustAssemble(t, in)
	if a.ReportSHA256 != b.ReportSHA256 {
		t.Fatal("identical inputs gave different reports")
	}
	tampered := a
	tampered.CourseID = "y.v1"
	if sealVerifies(t, tampered) {
		t.Fatal("a changed course_id still verifies")
	}
	unsealed := a
	unsealed.ReportSHA256 = ""
	if sealVerifies(t, unsealed) {
		t.Fatal("an unsealed report verifies")
	}
	in.IssuedAt = "2026-05-17T00:00:00Z"
	if c := mustAssemble(t, in); c.ReportSHA256 == a.ReportSHA256 {
		t.Fatal("issued_at is not sealed")
	}
	failing := allGreen()
	failing.Results[3].Accepted = true
	f := mustAssemble(t, originalInput(in.ValidatedSet.Relations, failing, failing))
	if f.Ratified || !sealVerifies(t, f) {
		t.Fatal("a failing report must be sealed and not ratified")
	}
}

// realInput is a consistent input: real plan and validated-set digests.
func realInput(t *testing.T, vts artifact.ValidatedTripleSet, first, second artifact.RunOutput) Input {
	t.Helper()
	p := planOf(first.Results)
	d, err := artifact.PlanDigest(p.CourseID, p.CourseSHA256, p.Steps)
	if err != nil {
		t.Fatal(err)
	}
	p.PlanSHA256 = d
	vs, err := artifact.ValidatedSetSHA(vts)
	if err != nil {
		t.Fatal(err)
	}
	return Input{CourseID: "x.v1", SourceBundleSHA: strings.Repeat("0", 64), ValidatedSetSHA: vs,
		CourseSHA256: p.CourseSHA256, Plan: p, ValidatedSet: vts, FirstRun: first, SecondRun: second, IssuedAt: issued}
}

func greenVTS() artifact.ValidatedTripleSet {
	return artifact.ValidatedTripleSet{SubjectID: "subject.x", Relations: []artifact.RelationCandidate{relation("wisdom", "is", "judgment")},
		SchemaVersion: artifact.SchemaVersion}
}

func TestRatifyConsistentInput(t *testing.T) {
	in := realInput(t, greenVTS(), allGreen(), allGreen())
	a, err := Ratify(in)
	if err != nil || !a.Ratified || !sealVerifies(t, a) || a.PlanSHA256 != in.Plan.PlanSHA256 {
		t.Fatalf("ratify: %+v %v", a, err)
	}
	b, _ := Ratify(in)
	if a.ReportSHA256 != b.ReportSHA256 {
		t.Fatal("Ratify is not deterministic")
	}
}

func wantError(t *testing.T, err error, reason string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Reason != reason {
		t.Fatalf("error %v, want reason %s", err, reason)
	}
}

func TestRatifyRefusesInputsThatDoNotBelongTogether(t *testing.T) {
	// The original's fixture: placeholder digests are refused, not reported.
	_, err := Ratify(originalInput(greenVTS().Relations, allGreen(), allGreen()))
	wantError(t, err, ReasonPlanSHAMismatch)

	cases := []struct {
		reason string
		mut    func(*Input)
	}{
		{ReasonCourseSHAMismatch, func(in *Input) { in.CourseSHA256 = strings.Repeat("4", 64) }},
		{ReasonCourseIDMismatch, func(in *Input) { in.CourseID = "other.v1" }},
		{ReasonValidatedSetMismatch, func(in *Input) { in.ValidatedSetSHA = strings.Repeat("1", 64) }},
		{ReasonValidatedSetMismatch, func(in *Input) { in.ValidatedSet.Relations = nil }},
		{ReasonPlanSHAMismatch, func(in *Input) { in.Plan.Steps = in.Plan.Steps[:1] }},
		{ReasonInvalidDigest, func(in *Input) { in.SourceBundleSHA = strings.Repeat("A", 64) }},
		{ReasonInvalidCourseID, func(in *Input) { in.CourseID = "" }},
		{ReasonInvalidIssuedAt, func(in *Input) { in.IssuedAt = "" }},
		{ReasonInvalidIssuedAt, func(in *Input) { in.IssuedAt = "2026-05-16T00:00:00.5Z" }},
		{ReasonInvalidIssuedAt, func(in *Input) { in.IssuedAt = "2026-02-30T00:00:00Z" }},
	}
	for _, c := range cases {
		in := realInput(t, greenVTS(), allGreen(), allGreen())
		c.mut(&in)
		r, err := Ratify(in)
		wantError(t, err, c.reason)
		if r.ReportSHA256 != "" {
			t.Fatalf("%s: a report came back with the error", c.reason)
		}
	}
}

func TestHaltedRunNeverRatifies(t *testing.T) {
	first := allGreen()
	first.Results = first.Results[:2]
	first.Halted, first.HaltStepIndex, first.HaltReason = true, 2, "versor_condition 0.001 >= 1e-06"
	second := first
	r, err := Ratify(realInput(t, greenVTS(), allGreen(), allGreen()).withRuns(first, second))
	if err != nil {
		t.Fatal(err)
	}
	g1 := gate(t, r, GateReplay)
	if r.Ratified || g1.Passed || g1.Measurement != "halted:first@2,second@2" {
		t.Fatalf("halted: %+v", g1)
	}
	if !strings.HasPrefix(r.FailureReasons[0], "run_halted:first@2:versor_condition 0.001 >= 1e-06,second@2:") {
		t.Fatalf("halt reason not carried: %q", r.FailureReasons[0])
	}
	// A halt at step 0 of a course with no relations: the original ratified
	// the empty prefix; here it fails.
	empty := artifact.RunOutput{Halted: true, HaltStepIndex: 0, HaltReason: "versor_condition 0.001 >= 1e-06"}
	in := realInput(t, conceptOnlyVTS(),
		run(res(artifact.StepReplayAssertion, replayAllGates, "t", true, true)), run())
	r, err = Ratify(in.withRuns(empty, empty))
	if err != nil || r.Ratified {
		t.Fatalf("an immediate halt ratified: %+v %v", r, err)
	}
}

// withRuns replaces the runs but keeps the plan of the original runs.
func (in Input) withRuns(first, second artifact.RunOutput) Input {
	in.FirstRun, in.SecondRun = first, second
	return in
}

func TestRunMustReplayThePlan(t *testing.T) {
	in := realInput(t, greenVTS(), allGreen(), allGreen())
	short := allGreen()
	short.Results = short.Results[:4]
	r, _ := Ratify(in.withRuns(short, short))
	if g := gate(t, r, GateReplay); g.Passed || g.Measurement != "incomplete:4!=5" {
		t.Fatalf("incomplete run: %+v", g)
	}
	swapped := allGreen()
	swapped.Results[2].Payload = judgmentIsFolly
	r, _ = Ratify(in.withRuns(allGreen(), swapped))
	if g := gate(t, r, GateReplay); g.Passed || g.Measurement != "plan_mismatch:second@2" {
		t.Fatalf("foreign step: %+v", g)
	}
	for _, repr := range []string{"1.000e-03", "1.000e-06", "nan", "", "-1.0e+00"} {
		drift := allGreen()
		drift.Results[1].VersorConditionRepr = repr
		r, _ = Ratify(in.withRuns(drift, drift))
		if g := gate(t, r, GateReplay); g.Passed || g.Measurement != "closure:first@1" {
			t.Fatalf("versor %q: %+v", repr, g)
		}
	}
	ok := allGreen()
	ok.Results[1].VersorConditionRepr = "9.300e-09"
	if r, _ = Ratify(in.withRuns(ok, ok)); !r.Ratified {
		t.Fatalf("a closed 9.3e-09 step failed: %v", r.FailureReasons)
	}
}

func TestNothingToMeasureFails(t *testing.T) {
	// Relations but no walk steps: G6 fails.
	noWalk := run(res(artifact.StepSeedConcept, seedWisdom, "t", true, true))
	r, _ := Ratify(realInput(t, greenVTS(), noWalk, noWalk))
	if g := gate(t, r, GateCoverage); g.Passed || g.Measurement != "0.0" {
		t.Fatalf("relations without walks: %+v", g)
	}
	// Walks but no relations: the walk is outside the validated set.
	walkOnly := run(res(artifact.StepWalk, wisdomIsJudgment, "t", true, true), res(artifact.StepAdversarialProbe, probeAxisRewrite, "v", false, true))
	r, _ = Ratify(realInput(t, conceptOnlyVTS(), walkOnly, walkOnly))
	if g := gate(t, r, GateCoverage); g.Passed || !strings.HasPrefix(r.FailureReasons[0], "walk_outside_validated_set:1;") {
		t.Fatalf("walk without relations: %+v %v", g, r.FailureReasons)
	}
	// Counter-claims declared but no adversarial step: G3 fails.
	vts := greenVTS()
	vts.Counters = []artifact.CounterCandidate{relation("wisdom", "is", "folly")}
	walk := run(res(artifact.StepWalk, wisdomIsJudgment, "t", true, true))
	r, _ = Ratify(realInput(t, vts, walk, walk))
	if g := gate(t, r, GateAdversarial); g.Passed || g.Measurement != "n/a" || codes(r)[0] != CodeNoAdversarialSteps {
		t.Fatalf("probes declared, none run: %+v %v", g, r.FailureReasons)
	}
	// Concepts declared but only a replay step: G4 fails.
	replay := run(res(artifact.StepReplayAssertion, replayAllGates, "t", true, true))
	r, _ = Ratify(realInput(t, conceptOnlyVTS(), replay, replay))
	if g := gate(t, r, GateLegitimate); g.Passed || codes(r)[0] != CodeNoAdversarialSteps || codes(r)[1] != CodeNoLegitimateSteps {
		t.Fatalf("concepts declared, none seeded: %+v %v", g, r.FailureReasons)
	}
	// A set of counter-claims only, probed: G3 measures; the set gives G4
	// and G6 nothing to measure, and each passes saying so, never as a plain
	// n/a.
	vts = artifact.ValidatedTripleSet{SubjectID: "s", SchemaVersion: "1.0.0", Counters: []artifact.CounterCandidate{relation("wisdom", "is", "folly")}}
	probed := run(res(artifact.StepAdversarialProbe, probeAxisRewrite, "p", false, true), res(artifact.StepReplayAssertion, replayAllGates, "t", true, true))
	r, _ = Ratify(realInput(t, vts, probed, probed))
	g4, g6 := gate(t, r, GateLegitimate), gate(t, r, GateCoverage)
	if !r.Ratified || g4.Measurement != "n/a:"+AbsentConceptsAndRelations || g6.Measurement != "n/a:"+AbsentRelations {
		t.Fatalf("counter-claims only: %+v", r)
	}
	// The same set with no probe run: G3 has nothing to measure and fails.
	r, _ = Ratify(realInput(t, vts, replay, replay))
	if g := gate(t, r, GateAdversarial); g.Passed || g.Measurement != "n/a" || codes(r)[0] != CodeNoAdversarialSteps {
		t.Fatalf("no probe run: %+v", r)
	}
}

// conceptOnlyVTS teaches one concept and nothing else.
func conceptOnlyVTS() artifact.ValidatedTripleSet {
	return artifact.ValidatedTripleSet{SubjectID: "s", SchemaVersion: "1.0.0",
		Concepts: []artifact.ConceptCandidate{{CanonicalTerm: "wisdom", Definition: "d", Sources: []artifact.SourceRef{relationWisdomRef}}}}
}

// A course that teaches nothing is refused, not failed: an empty validated
// set or a plan without steps is a nothing_to_teach *Error, never a report.
func TestNothingToTeachIsRefused(t *testing.T) {
	replay := run(res(artifact.StepReplayAssertion, replayAllGates, "t", true, true))
	probes := run(res(artifact.StepAdversarialProbe, probeAxisRewrite, "p", false, true), res(artifact.StepReplayAssertion, replayAllGates, "t", true, true))
	for name, in := range map[string]Input{
		"empty set, probes run": realInput(t, artifact.ValidatedTripleSet{SubjectID: "s", SchemaVersion: "1.0.0"}, probes, probes),
		"empty set, replay":     realInput(t, artifact.ValidatedTripleSet{SubjectID: "s", SchemaVersion: "1.0.0"}, replay, replay),
		"no plan step":          realInput(t, greenVTS(), run(), run()),
	} {
		r, err := Ratify(in)
		var e *Error
		if !errors.As(err, &e) || e.Reason != ReasonNothingToTeach || r.ReportSHA256 != "" {
			t.Errorf("%s: %+v %v", name, r, err)
		}
	}
}

func TestBothRunsCount(t *testing.T) {
	second := allGreen()
	second.Results[3].Accepted = true // same trace, so G1 cannot see it
	r, _ := Ratify(realInput(t, greenVTS(), allGreen(), second))
	if g := gate(t, r, GateAdversarial); r.Ratified || g.Passed || g.Measurement != "0.0" {
		t.Fatalf("second run accepted a probe: %+v", g)
	}
	if !gate(t, r, GateReplay).Passed {
		t.Fatal("G1 should not see an acceptance difference")
	}
	noProv := allGreen()
	noProv.Results[0].HasProvenance = false
	r, _ = Ratify(realInput(t, greenVTS(), allGreen(), noProv))
	if g := gate(t, r, GateProvenance); g.Passed || g.Measurement != "4/5" {
		t.Fatalf("second run lost provenance: %+v", g)
	}
}

func mastered(ids ...string) artifact.MasteredCoursesIndex {
	idx := artifact.MasteredCoursesIndex{SchemaVersion: artifact.SchemaVersion}
	for _, id := range ids {
		idx.Entries = append(idx.Entries, artifact.MasteredCourseEntry{CourseID: id})
	}
	return idx
}

func TestPriorCourseRegression(t *testing.T) {
	in := realInput(t, greenVTS(), allGreen(), allGreen())
	in.Index = mastered("course.a", "course.b")
	in.PriorCourses = []PriorCourse{{CourseID: "course.b", Passed: true}, {CourseID: "course.a", Passed: true}}
	r, err := Ratify(in)
	if g := gate(t, r, GatePrior); err != nil || !g.Passed || g.Measurement != "1.0" || !r.Ratified {
		t.Fatalf("all priors pass: %+v %v", g, err)
	}
	in.PriorCourses[0] = PriorCourse{CourseID: "course.b", FailedGates: []string{GateCoverage, GateAdversarial}}
	r, _ = Ratify(in)
	g := gate(t, r, GatePrior)
	if r.Ratified || g.Passed || g.Measurement != "1/2" {
		t.Fatalf("a regressed prior: %+v", g)
	}
	want := "prior_course_regressed:course.b(G3_adversarial_rejection_rate,G6_phase2_relation_coverage)"
	if codes(r)[0] != want {
		t.Fatalf("reason %q", r.FailureReasons[0])
	}
	// Every mastered course needs exactly one consistent verdict.
	bad := []struct {
		reason string
		priors []PriorCourse
	}{
		{ReasonPriorMismatch, []PriorCourse{{CourseID: "course.a", Passed: true}}},
		{ReasonPriorMismatch, nil},
		{ReasonPriorMismatch, []PriorCourse{{CourseID: "course.a", Passed: true}, {CourseID: "course.a", Passed: true}, {CourseID: "course.b", Passed: true}}},
		{ReasonPriorInconsistent, []PriorCourse{{CourseID: "course.a", Passed: true, FailedGates: []string{GateReplay}}, {CourseID: "course.b", Passed: true}}},
		{ReasonPriorInconsistent, []PriorCourse{{CourseID: "course.a"}, {CourseID: "course.b", Passed: true}}},
	}
	for _, c := range bad {
		in.PriorCourses = c.priors
		_, err := Ratify(in)
		wantError(t, err, c.reason)
	}
	in.Index = artifact.MasteredCoursesIndex{}
	in.PriorCourses = []PriorCourse{{CourseID: "course.a", Passed: true}}
	_, err = Ratify(in)
	wantError(t, err, ReasonPriorMismatch)
}

func TestRatioStrings(t *testing.T) {
	for _, c := range []struct {
		num, den int
		want     string
	}{{0, 0, "n/a"}, {3, 3, "1.0"}, {0, 4, "0.0"}, {3, 4, "3/4"}, {2, 4, "2/4"}} {
		if got := ratio(c.num, c.den); got != c.want {
			t.Errorf("ratio(%d,%d) = %q, want %q", c.num, c.den, got, c.want)
		}
	}
}

// A Gauge fed before its inputs are known (Measure, then Check) reports what
// one started with them reports, and refuses them as Start does; it reports
// nothing until they are checked.
func TestMeasureThenCheckIsStart(t *testing.T) {
	vts := greenVTS()
	vts.Relations = append(vts.Relations, relation("wisdom", "is", "patience"))
	for _, second := range []artifact.RunOutput{allGreen(), run(allGreen().Results[:3]...)} {
		in := realInput(t, vts, allGreen(), second)
		want, wantErr := Ratify(in)
		g := Measure(PlanOf(in.Plan))
		if err := g.feed(0, in.FirstRun); err != nil {
			t.Fatal(err)
		}
		if err := g.feed(1, in.SecondRun); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Report(); err == nil {
			t.Fatal("a report before the inputs were checked")
		}
		if err := g.Check(in); err != nil {
			t.Fatal(err)
		}
		got, err := g.Report()
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("measured then checked %+v (%v), started %+v (%v)", got, err, want, wantErr)
		}
	}
	in := realInput(t, greenVTS(), allGreen(), allGreen())
	in.CourseID = "other.v1"
	_, startErr := Start(in, PlanOf(in.Plan))
	checkErr := Measure(PlanOf(in.Plan)).Check(in)
	if startErr == nil || checkErr == nil || startErr.Error() != checkErr.Error() {
		t.Fatalf("Start %v, Check %v", startErr, checkErr)
	}
}

// CheckProjected with the set's own projection is Check: the same report.
// Given another projection it refuses the set as Check refuses a set that
// hashes to something else; given none it hashes the set.
func TestCheckProjectedIsCheck(t *testing.T) {
	in := realInput(t, greenVTS(), allGreen(), allGreen())
	sha, err := artifact.ValidatedSetSHA(in.ValidatedSet)
	if err != nil {
		t.Fatal(err)
	}
	report := func(projected string) (artifact.MasteryReport, error) {
		g := Measure(PlanOf(in.Plan))
		if err := g.feed(0, in.FirstRun); err != nil {
			t.Fatal(err)
		}
		if err := g.feed(1, in.SecondRun); err != nil {
			t.Fatal(err)
		}
		if err := g.CheckProjected(in, projected); err != nil {
			return artifact.MasteryReport{}, err
		}
		return g.Report()
	}
	want, err := Ratify(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, projected := range []string{sha, ""} {
		if got, err := report(projected); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("projected %q: %+v (%v), want %+v", projected, got, err, want)
		}
	}
	other := strings.Repeat("0", 64)
	_, err = report(other)
	var re *Error
	if !errors.As(err, &re) || re.Reason != ReasonValidatedSetMismatch || !strings.Contains(err.Error(), other) {
		t.Fatalf("another projection: %v", err)
	}
	bad := in
	bad.ValidatedSet.Relations = bad.ValidatedSet.Relations[1:]
	_, checkErr := Ratify(bad)
	in = bad
	if _, err := report(""); err == nil || checkErr == nil || err.Error() != checkErr.Error() {
		t.Fatalf("no projection: %v; Ratify: %v", err, checkErr)
	}
}
