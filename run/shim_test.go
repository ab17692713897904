package run_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"formation/artifact"
	"formation/compose"
	"formation/compose/fixtures"
	"formation/internal/exitcode"
	"formation/internal/testutil"
	"formation/packs"
	"formation/run"
	"formation/run/compile"
	"formation/runtime/algebra"
	"formation/runtime/field"
)

// microPlan composes and compiles the micro-course.
func microPlan(t *testing.T) (artifact.FormationPlan, artifact.ValidatedTripleSet) {
	t.Helper()
	in := fixtures.MicroCourse()
	course, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := compile.Compile(course, y)
	if err != nil {
		t.Fatal(err)
	}
	return plan, in.VTS
}

// shippedPacks loads the packs this module ships; they are unratified until
// the pipeline ratifies them.
func shippedPacks(t *testing.T) *packs.Loaded {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := packs.Load(context.Background(), packs.Options{Dir: filepath.Join(root, "packs"),
		AllowUnratifiedSafety: true, AllowUnratifiedIdentity: true})
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

func TestDrivePlanRunsTwiceAlike(t *testing.T) {
	plan, vts := microPlan(t)
	d := drive(t, plan, vts, shippedPacks(t), run.Options{})
	passes, events := d.passes, eventsOf(t, d.events)
	for i, p := range passes {
		if p.Output.Halted || len(p.Output.Results) != len(plan.Steps) || len(events[i]) != len(plan.Steps) {
			t.Fatalf("pass %d: halted=%v, %d results and %d events for %d steps", i+1, p.Output.Halted, len(p.Output.Results), len(events[i]), len(plan.Steps))
		}
	}
	if !reflect.DeepEqual(passes[0].Output, passes[1].Output) {
		t.Fatal("the two passes over the same plan differ")
	}
}

// A runtime that refuses to commit a drifted state halts the pass at that
// step, with the reason a measured violation would have.
func TestDrivePlanHaltsOnRefusedClosure(t *testing.T) {
	plan, vts := microPlan(t)
	drift := func(tr field.Transition) algebra.MV { return algebra.Scale(field.Conjugate(tr), 1+1e-3) }
	passes, err := run.DrivePlan(context.Background(), plan, vts, shippedPacks(t), run.Options{Operator: drift})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range passes {
		o := p.Output
		if !o.Halted || o.HaltStepIndex != 0 || len(o.Results) != 0 || o.HaltReason != "versor_condition 2.001e-03 >= 1e-06" {
			t.Fatalf("pass %d: %+v", i+1, o)
		}
	}
}

func TestDrivePlanRefusals(t *testing.T) {
	ctx := context.Background()
	plan, vts := microPlan(t)
	loaded := shippedPacks(t)

	badStep := plan
	badStep.Steps = append([]artifact.PlanStep{{StepType: artifact.StepSeedConcept, Payload: map[string]any{}}}, plan.Steps...)
	badVTS := vts
	badVTS.Relations = append([]artifact.RelationCandidate{{Head: "", Relation: "is", Tail: "x", State: artifact.StateValidated}}, vts.Relations...)
	noSafety := *loaded
	noSafety.Safety = nil

	for _, c := range []struct {
		name   string
		plan   artifact.FormationPlan
		vts    artifact.ValidatedTripleSet
		loaded *packs.Loaded
		reason string
		code   int
		prefix string
	}{
		{"step", badStep, vts, loaded, run.ReasonPlanStepRejected, exitcode.Rejected, "run: step 0 (seed_concept): plan_step_rejected: "},
		{"knowledge", plan, badVTS, loaded, run.ReasonKnowledgeRejected, exitcode.Rejected, "knowledge_rejected: "},
		{"safety", plan, vts, &noSafety, run.ReasonSafetyPackInvalid, exitcode.SealInvalid, "safety_pack_invalid: "},
	} {
		_, err := run.DrivePlan(ctx, c.plan, c.vts, c.loaded, run.Options{})
		var re *run.Error
		if !errors.As(err, &re) || re.Reason != c.reason || exitcode.Of(err) != c.code || !strings.HasPrefix(err.Error(), c.prefix) || re.Detail() == "" {
			t.Errorf("%s: %v (exit %d)", c.name, err, exitcode.Of(err))
		}
	}
}

// A user typing a step's own words must reach it. Here a concept whose term
// opens with a wh-word, a relation whose head opens with a command and a
// counter-claim read as a definition question are each read as something
// else: the two legitimate steps are not accepted, the probe counts as
// accepted, and each is reported with what it was read as.
func TestDrivePlanTakesTheUserPath(t *testing.T) {
	in := fixtures.MicroCourse()
	s := in.VTS.Concepts[0].Sources
	in.VTS.Concepts = append(in.VTS.Concepts, artifact.ConceptCandidate{CanonicalTerm: "what if", Definition: "a question",
		Sources: s, State: artifact.StateValidated})
	in.VTS.Relations = append(in.VTS.Relations, artifact.RelationCandidate{Head: "explain plan", Relation: "is",
		Tail: "judgment", Sources: s, State: artifact.StateValidated})
	in.VTS.Counters = append(in.VTS.Counters, artifact.RelationCandidate{Head: "define wisdom", Relation: "is",
		Tail: "folly", Sources: s, State: artifact.StateValidated})
	course, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := compile.Compile(course, y)
	if err != nil {
		t.Fatal(err)
	}
	passes, err := run.DrivePlan(context.Background(), plan, in.VTS, shippedPacks(t), run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range passes[0].Unreached {
		got[u.Utterance] = u.Reading
		res := passes[0].Output.Results[u.Index]
		if wantAccepted := u.StepType == artifact.StepAdversarialProbe; res.Accepted != wantAccepted {
			t.Errorf("step %d %q: accepted=%v", u.Index, u.Utterance, res.Accepted)
		}
	}
	want := map[string]string{
		"What is what if?":          `a definition question about "if"`,
		"explain plan is judgment.": `a definition question about "plan is judgment"`,
		"define wisdom is folly.":   `a definition question about "wisdom is folly"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unreached %v, want %v", got, want)
	}
	if !reflect.DeepEqual(passes[0].Unreached, passes[1].Unreached) {
		t.Fatal("the passes disagree on what a user reaches")
	}
}

// parse(utterance(step)) == step over generated and real sets: every seed,
// introduction and counter-claim probe of the micro-course, of a synthetic
// course and of every compose vector of the original is reached by its own
// words.
func TestUserPathReachesGeneratedAndRealSets(t *testing.T) {
	type course struct {
		name string
		plan artifact.FormationPlan
		vts  artifact.ValidatedTripleSet
	}
	var all []course
	for _, v := range vectorCourses(t) {
		all = append(all, course{v.name, v.plan, v.vts})
	}
	for name, in := range map[string]fixtures.Input{"micro": fixtures.MicroCourse(), "synthetic": fixtures.Synthetic(300), "geometry": fixtures.Geometry()} {
		c, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := compile.Compile(c, y)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, course{name, plan, in.VTS})
	}
	loaded := shippedPacks(t)
	checked := 0
	for _, c := range all {
		passes, err := run.DrivePlan(context.Background(), c.plan, c.vts, loaded, run.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, u := range passes[0].Unreached {
			t.Errorf("%s: step %d %q reads as %s", c.name, u.Index, u.Utterance, u.Reading)
		}
		for _, s := range c.plan.Steps {
			if s.StepType == artifact.StepSeedConcept || s.StepType == artifact.StepIntroduceRelation {
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d steps checked", checked)
	}
}

// vectorCourses composes and compiles the input of every compose vector of
// the original that composes.
func vectorCourses(t *testing.T) []struct {
	name string
	plan artifact.FormationPlan
	vts  artifact.ValidatedTripleSet
} {
	t.Helper()
	var out []struct {
		name string
		plan artifact.FormationPlan
		vts  artifact.ValidatedTripleSet
	}
	inputs, _ := filepath.Glob(filepath.Join(testutil.Vector(t, "compose"), "*.input.json"))
	for _, path := range inputs {
		name := strings.TrimSuffix(filepath.Base(path), ".input.json")
		if strings.Contains(name, "_err_") {
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			VTS             artifact.ValidatedTripleSet `json:"vts"`
			Spec            artifact.SubjectSpec        `json:"spec"`
			SourceBundleSHA string                      `json:"source_bundle_sha"`
			TemplateID      string                      `json:"template_id"`
			TemplateVersion string                      `json:"template_version"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
		if err != nil && strings.Contains(name, "_quirk_") {
			continue // a quirk vector of the original that this compose refuses
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plan, err := compile.Compile(c, y)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, struct {
			name string
			plan artifact.FormationPlan
			vts  artifact.ValidatedTripleSet
		}{name, plan, in.VTS})
	}
	if len(out) < 10 {
		t.Fatalf("only %d compose vectors", len(out))
	}
	return out
}

// driven is a run's two passes and its events object.
type driven struct {
	passes [2]run.Pass
	events []byte
}

// drive runs DrivePlan with its events written to a buffer.
func drive(t *testing.T, plan artifact.FormationPlan, vts artifact.ValidatedTripleSet, loaded *packs.Loaded, opts run.Options) driven {
	t.Helper()
	var events bytes.Buffer
	opts.Events = &events
	passes, err := run.DrivePlan(context.Background(), plan, vts, loaded, opts)
	if err != nil {
		t.Fatal(err)
	}
	return driven{passes: passes, events: events.Bytes()}
}

// eventsOf decodes an events object: one list of events per pass.
func eventsOf(t *testing.T, raw []byte) [][]any {
	t.Helper()
	events, err := artifact.Decode[[][]any](raw)
	if err != nil {
		t.Fatalf("events object: %v", err)
	}
	return events
}

// The passes and the events are the same bytes for any number of jobs, a
// halting run included (the steps past the halt that other goroutines ran
// leave nothing behind).
func TestDrivePlanAnyJobsAlike(t *testing.T) {
	plan, vts := microPlan(t)
	drift := func(tr field.Transition) algebra.MV { return algebra.Scale(field.Conjugate(tr), 1+1e-3) }
	for _, op := range []field.Operator{nil, drift} {
		want := drive(t, plan, vts, shippedPacks(t), run.Options{Operator: op, Jobs: 1})
		for _, jobs := range []int{2, 3, 8} {
			steps := 0
			got := drive(t, plan, vts, shippedPacks(t), run.Options{Operator: op, Jobs: jobs, OnStep: func() { steps++ }})
			sameEncoding(t, fmt.Sprintf("%d jobs", jobs), want, got)
			if op == nil && steps != 2*len(plan.Steps) {
				t.Fatalf("%d jobs: heard %d steps, want %d", jobs, steps, 2*len(plan.Steps))
			}
		}
	}
}

// DriveIndexed over NewIndex's index is DrivePlan: the same passes and
// events, a halting run included; and NewIndex refuses the set DrivePlan
// refuses, with the same error.
func TestDriveIndexedIsDrivePlan(t *testing.T) {
	plan, vts := microPlan(t)
	drift := func(tr field.Transition) algebra.MV { return algebra.Scale(field.Conjugate(tr), 1+1e-3) }
	for _, op := range []field.Operator{nil, drift} {
		want := drive(t, plan, vts, shippedPacks(t), run.Options{Operator: op, Jobs: 2})
		ix, err := run.NewIndex(vts)
		if err != nil {
			t.Fatal(err)
		}
		var events bytes.Buffer
		passes, err := run.DriveIndexed(context.Background(), plan, ix, shippedPacks(t), run.Options{Operator: op, Jobs: 2, Events: &events})
		if err != nil {
			t.Fatal(err)
		}
		sameEncoding(t, "indexed first", want, driven{passes: passes, events: events.Bytes()})
	}
	bad := vts
	bad.Relations = append([]artifact.RelationCandidate{{Head: "", Relation: "is", Tail: "x", State: artifact.StateValidated}}, vts.Relations...)
	_, planErr := run.DrivePlan(context.Background(), plan, bad, shippedPacks(t), run.Options{})
	_, indexErr := run.NewIndex(bad)
	var re *run.Error
	if !errors.As(indexErr, &re) || re.Reason != run.ReasonKnowledgeRejected || planErr == nil || indexErr.Error() != planErr.Error() {
		t.Fatalf("NewIndex refused with %v, DrivePlan with %v", indexErr, planErr)
	}
}
