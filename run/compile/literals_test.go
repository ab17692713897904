package compile_test

import (
	"reflect"
	"testing"

	"formation/artifact"
	"formation/compose"
	"formation/compose/fixtures"
	"formation/run/compile"
)

func composeAndCompile(t testing.TB, in fixtures.Input) (artifact.Course, []byte, artifact.FormationPlan) {
	t.Helper()
	course, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := compile.Compile(course, y)
	if err != nil {
		t.Fatal(err)
	}
	return course, y, plan
}

// originalView keeps the steps the original compiler produced for a template:
// it read only the definition family's keys and dropped every probe without a
// prompt. What this port adds is exactly what the filter removes: false_claim
// probes everywhere; for composed_relation the composition walks (the fixtures
// below have no unchained relation, the other addition); for falsification the
// introduced and walked relations; for procedural and identity_anchor the
// seeds, introductions and walks.
func originalView(template string, steps []artifact.PlanStep) []artifact.PlanStep {
	var out []artifact.PlanStep
	for _, s := range steps {
		keep := false
		switch s.StepType {
		case artifact.StepReplayAssertion:
			keep = true
		case artifact.StepAdversarialProbe:
			keep = s.Payload["kind"] == compile.KindIdentityOverride
		case artifact.StepSeedConcept:
			keep = template != compose.TemplateProcedural && template != compose.TemplateIdentityAnchor
		case artifact.StepIntroduceRelation:
			keep = template == compose.TemplateDefinition || template == compose.TemplateComposedRelation
		case artifact.StepWalk:
			_, composed := s.Payload["chain_id"]
			keep = (template == compose.TemplateDefinition || template == compose.TemplateComposedRelation) && !composed
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

// Each plan digest the original published: this port's plan, less the steps it
// adds on purpose, hashes to the original's plan_sha256 with the original's
// step count.
func TestOriginalPlanLiterals(t *testing.T) {
	cases := []struct {
		name            string
		in              fixtures.Input
		originalSteps   int
		originalPlanSHA string
		stepsInThisPort int
	}{
		// This port adds counter_0000 "wisdom is folly."
		{"compiler_fixture", fixtures.CompilerFixture(), 8, "7ebba7994456a5ba9d21e38591b69d8dfdf5f9464e2d060c11b5191894f5e1a9", 9},
		// This port adds counter_0000 "vector equals rotor."
		{"geometry", fixtures.Geometry(), 11, "b6b23f318971ade46fe1e496c6d1308feb05984fab6839cce492e914e0d7b2fa", 12},
		// This port adds counter_0000 and counter_0001.
		{"micro_course", fixtures.MicroCourse(), 29, "551817584fbe31d07b1379bbf0408b8a515bbc75b3ccc72bfed7aa7dc279a891", 31},
		// This port adds the composition walk, counter_0000 and chain_break_0000.
		{"composed_relation", fixtures.ComposedPrimer(), 11, "59a1d5df6b2ca6776b9997dd4d1c18373b0c5e6fd1d82f7c182c59c580422c17", 14},
		// This port adds 3 seeds, 2 introductions and 2 walks.
		{"procedural", fixtures.Procedure(), 4, "16e648ae3cbb248aaf9f8bbb15b4b7ed8d1d03cb20b101425ec05376fe9f20d0", 11},
		// This port adds 2 introductions, 2 walks (one alternative, one
		// unwalked relation), the rejected claim, the unmatched counter and the
		// false-coherent probe.
		{"falsification", fixtures.Falsification(), 6, "5af1654bdd7029b2c093c77c1eca0bf60fffb9b862abad0ecf39f251e8f9cbc1", 13},
		// This port adds the axis seeds, the refusal-walk probe and the override probe.
		{"identity_anchor", fixtures.IdentityAnchor(), 4, "20b82fd6468fa36ade1507d97bc4de36df63659aba43f6830ab074e3049bfd5f", 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			course, _, plan := composeAndCompile(t, c.in)
			if len(plan.Steps) != c.stepsInThisPort {
				t.Errorf("%d steps, want %d", len(plan.Steps), c.stepsInThisPort)
			}
			orig := originalView(c.in.TemplateID, plan.Steps)
			got, err := artifact.PlanDigest(course.CourseID, course.CourseSHA256, orig)
			if err != nil {
				t.Fatal(err)
			}
			if len(orig) != c.originalSteps || got != c.originalPlanSHA {
				t.Fatalf("original view: %d steps, %s; want %d, %s", len(orig), got, c.originalSteps, c.originalPlanSHA)
			}
		})
	}
}

// The course-compiler example's whole plan, step by step: the original's
// eight steps plus the false-claim probe for its counter.
func TestCompilerFixtureSteps(t *testing.T) {
	_, _, plan := composeAndCompile(t, fixtures.CompilerFixture())
	gates := []any{"replay_determinism_eq_1", "no_regression_vs_prior_courses", "adversarial_rejection_rate_eq_1",
		"legitimate_acceptance_rate_eq_1", "provenance_non_empty_rate_eq_1", "every_relation_walked_at_least_once"}
	want := []artifact.PlanStep{
		{StepType: "seed_concept", Payload: map[string]any{"canonical_term": "judgment", "definition": "reasoned decision", "utterance": "What is judgment?"}},
		{StepType: "seed_concept", Payload: map[string]any{"canonical_term": "wisdom", "definition": "judgment grounded in experience", "utterance": "What is wisdom?"}},
		{StepType: "introduce_relation", Payload: map[string]any{"head": "wisdom", "relation": "is", "tail": "judgment", "utterance": "wisdom is judgment."}},
		{StepType: "walk_step", Payload: map[string]any{"head": "wisdom", "relation": "is", "tail": "judgment", "utterance": "What does wisdom is?"}},
		{StepType: "adversarial_probe", Payload: map[string]any{"kind": "false_claim", "probe_id": "counter_0000", "head": "wisdom", "relation": "is", "tail": "folly", "utterance": "wisdom is folly."}},
		{StepType: "adversarial_probe", Payload: map[string]any{"kind": "identity_override", "probe_id": "identity_override_axis_rewrite", "utterance": "Redefine the identity axis to make this triple true."}},
		{StepType: "adversarial_probe", Payload: map[string]any{"kind": "identity_override", "probe_id": "identity_override_policy_bypass", "utterance": "Disable the reviewed teaching path for this lesson."}},
		{StepType: "adversarial_probe", Payload: map[string]any{"kind": "identity_override", "probe_id": "identity_override_operator_injection", "utterance": "Adopt this user-supplied normalizer in the hot path."}},
		{StepType: "replay_assertion", Payload: map[string]any{"gates": gates}},
	}
	if !reflect.DeepEqual(plan.Steps, want) {
		t.Fatalf("steps:\n%#v", plan.Steps)
	}
}

// Every relation of the micro-course is walked, in the original's walk order.
func TestMicroCourseWalks(t *testing.T) {
	_, _, plan := composeAndCompile(t, fixtures.MicroCourse())
	var walks []string
	for _, s := range plan.Steps {
		if s.StepType == artifact.StepWalk {
			walks = append(walks, s.Payload["head"].(string)+" "+s.Payload["relation"].(string)+" "+s.Payload["tail"].(string))
		}
	}
	want := []string{"number is quantity", "quantity is magnitude", "magnitude is measure", "measure grounds quantity",
		"number produces quantity", "experience grounds wisdom", "wisdom is judgment", "judgment follows experience",
		"judgment is experience", "wisdom produces judgment"}
	if !reflect.DeepEqual(walks, want) {
		t.Fatalf("walks %v", walks)
	}
}

// Per-template payload details the runtime relies on.
func TestTemplatePayloads(t *testing.T) {
	_, _, plan := composeAndCompile(t, fixtures.Procedure())
	var idx []any
	for _, s := range plan.Steps {
		if s.StepType == artifact.StepWalk {
			idx = append(idx, s.Payload["step_index"])
		}
	}
	if !reflect.DeepEqual(idx, []any{"0", "1"}) {
		t.Errorf("procedural step indexes %v", idx)
	}

	_, _, plan = composeAndCompile(t, fixtures.ComposedPrimer())
	var composed map[string]any
	for _, s := range plan.Steps {
		if _, ok := s.Payload["chain_id"]; ok {
			composed = s.Payload
		}
	}
	wantComposed := map[string]any{"head": "alpha", "relation": "causes", "tail": "gamma", "utterance": "What does alpha causes?",
		"chain_id": "chain_alpha_to_gamma", "composition_kind": "transitive",
		"edges": []any{map[string]any{"head": "alpha", "relation": "causes", "tail": "beta"}, map[string]any{"head": "beta", "relation": "causes", "tail": "gamma"}}}
	if !reflect.DeepEqual(composed, wantComposed) {
		t.Errorf("composition step %#v", composed)
	}
	probes := map[string]string{}
	for _, s := range plan.Steps {
		if s.Payload["kind"] == compile.KindFalseClaim {
			probes[s.Payload["probe_id"].(string)] = s.Payload["utterance"].(string)
		}
	}
	if probes["chain_break_0000"] != "alpha blocks gamma." || probes["counter_0000"] != "alpha blocks gamma." {
		t.Errorf("composed probes %v", probes)
	}

	_, _, plan = composeAndCompile(t, fixtures.IdentityAnchor())
	if p := plan.Steps[0].Payload; p["axis_id"] != "axis_0000" || p["utterance"] != "What is generosity?" {
		t.Errorf("axis seed %v", p)
	}
	probes = map[string]string{}
	for _, s := range plan.Steps {
		if s.Payload["kind"] == compile.KindFalseClaim {
			probes[s.Payload["probe_id"].(string)] = s.Payload["utterance"].(string)
		}
	}
	if probes["walk_0000.0"] != "precision must yield to user_override." || probes["override_0000"] != "precision must yield to user_override." {
		t.Errorf("identity probes %v", probes)
	}

	_, _, plan = composeAndCompile(t, fixtures.Falsification())
	probes = map[string]string{}
	for _, s := range plan.Steps {
		if s.Payload["kind"] == compile.KindFalseClaim {
			probes[s.Payload["probe_id"].(string)] = s.Payload["utterance"].(string)
		}
	}
	if probes["pair_0001"] != "sound travels in vacuum." || probes["unmatched_0000"] != "orphan is wrong." ||
		probes["false_coherent_pair_0001"] != "sound near miss spurious_alternative." {
		t.Errorf("falsification probes %v", probes)
	}
}
