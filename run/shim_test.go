package run_test

import (
	"context"
	"errors"
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
	passes, err := run.DrivePlan(context.Background(), plan, vts, shippedPacks(t), run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range passes {
		if p.Output.Halted || len(p.Output.Results) != len(plan.Steps) || len(p.Events) != len(plan.Steps) {
			t.Fatalf("pass %d: halted=%v, %d results and %d events for %d steps", i+1, p.Output.Halted, len(p.Output.Results), len(p.Events), len(plan.Steps))
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
