package compile_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"formation/artifact"
	"formation/canon"
	"formation/internal/testutil"
	"formation/run/compile"
)

// vectorCourse returns a compose vector's YAML and the Course record its
// expected.json and input.json describe.
func vectorCourse(t *testing.T, name string) (artifact.Course, []byte) {
	t.Helper()
	dir := testutil.Vector(t, "compose")
	y, err := os.ReadFile(filepath.Join(dir, name+".course.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		CourseID        string   `json:"course_id"`
		CourseSHA256    string   `json:"course_sha256"`
		ValidatedSetSHA string   `json:"validated_set_sha"`
		TemplateID      string   `json:"template_id"`
		TemplateVersion string   `json:"template_version"`
		Defects         []string `json:"defects,omitempty"`
	}
	readJSON(t, filepath.Join(dir, name+".expected.json"), &exp)
	var in struct {
		SourceBundleSHA string `json:"source_bundle_sha"`
		Rest            any    `json:"vts"`
		Spec            any    `json:"spec"`
		TemplateID      string `json:"template_id"`
		TemplateVersion string `json:"template_version"`
	}
	readJSON(t, filepath.Join(dir, name+".input.json"), &in)
	return artifact.Course{CourseID: exp.CourseID, CourseSHA256: exp.CourseSHA256, SourceBundleSHA: in.SourceBundleSHA,
		ValidatedSetSHA: exp.ValidatedSetSHA, TemplateID: exp.TemplateID, TemplateVersion: exp.TemplateVersion,
		SchemaVersion: artifact.SchemaVersion}, y
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := canon.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// counts tallies a plan by step type, probes by kind.
func counts(p artifact.FormationPlan) map[string]int {
	c := map[string]int{}
	for _, s := range p.Steps {
		k := s.StepType
		if kind, ok := s.Payload["kind"].(string); ok {
			k += "/" + kind
		}
		c[k]++
	}
	return c
}

// Each vector course compiles to the plan its template mapping implies. The
// counts were checked by hand against the YAML; the invariants below derive
// the same facts independently from the YAML.
func TestVectorPlans(t *testing.T) {
	type want struct{ seed, intro, walk, falseClaim, override int }
	cases := map[string]want{
		// 4 concepts; 7 relations; 5 chain steps + 2 unchained + 2 compositions;
		// 3 counters + 2 chain breaks.
		"composed_relation_1": {4, 7, 9, 5, 3},
		"composed_relation_2": {3, 5, 7, 3, 3},
		"definition_1":        {5, 8, 8, 3, 3},
		"definition_2":        {6, 5, 5, 1, 3},
		"definition_3":        {0, 0, 0, 0, 3},
		// 2 concepts; 4 supporting relations; 3 accepted alternatives + 2
		// unwalked; 3 rejected claims + 1 unmatched + 3 false-coherent.
		"falsification_1": {2, 4, 5, 7, 3},
		"falsification_2": {2, 0, 0, 2, 3},
		// 4 axes; 1 relation introduced and walked; 3 refusal steps + 3 overrides.
		"identity_anchor_1": {4, 1, 1, 6, 3},
		"identity_anchor_2": {4, 0, 0, 2, 3},
		"procedural_1":      {3, 3, 3, 1, 3},
		"procedural_2":      {0, 1, 1, 0, 3},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			course, y := vectorCourse(t, name)
			plan, err := compile.Compile(course, y)
			if err != nil {
				t.Fatal(err)
			}
			got := counts(plan)
			exp := map[string]int{"seed_concept": w.seed, "introduce_relation": w.intro, "walk_step": w.walk,
				"adversarial_probe/false_claim": w.falseClaim, "adversarial_probe/identity_override": w.override, "replay_assertion": 1}
			for k, v := range exp {
				if got[k] != v {
					t.Errorf("%s: %d steps, want %d", k, got[k], v)
				}
			}
			last := plan.Steps[len(plan.Steps)-1]
			if last.StepType != artifact.StepReplayAssertion || len(last.Payload["gates"].([]any)) < 6 {
				t.Errorf("last step %v", last)
			}
			checkInvariants(t, plan, y)
			digest, _ := artifact.PlanDigest(course.CourseID, course.CourseSHA256, plan.Steps)
			if plan.PlanSHA256 != digest || plan.CourseID != course.CourseID || plan.CourseSHA256 != course.CourseSHA256 {
				t.Errorf("plan header %s %s %s", plan.PlanSHA256, plan.CourseID, plan.CourseSHA256)
			}
			again, _ := compile.Compile(course, y)
			if again.PlanSHA256 != plan.PlanSHA256 {
				t.Error("compile is not deterministic")
			}
		})
	}
}

type tri struct{ h, r, t string }

func tripleOf(m map[string]any, rel string) tri {
	return tri{m["head"].(string), m[rel].(string), m["tail"].(string)}
}

func get(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func list(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, e := range l {
		out = append(out, e.(map[string]any))
	}
	return out
}

// checkInvariants re-reads the YAML on its own and checks that every
// relation is walked, every counter-like entry is a false_claim probe over
// the same triple, and every prompt is an identity_override probe.
func checkInvariants(t *testing.T, plan artifact.FormationPlan, y []byte) {
	t.Helper()
	var body any
	if err := yaml.Unmarshal(y, &body); err != nil {
		t.Fatal(err)
	}
	var relations, claims []tri
	var prompts []string
	for _, key := range [][]string{
		{"phase_2_axiomatic_rotor_scaffolding", "relations"}, {"phase_2_transition_scaffolding", "relations"},
		{"phase_2_falsification_corpus", "supporting_relations"}, {"phase_2_immutability_relations", "relations"},
	} {
		for _, r := range list(get(body, key...)) {
			relations = append(relations, tripleOf(r, "relation"))
		}
	}
	for _, c := range list(get(body, "phase_4_epistemic_boundary_hardening", "adversarial_corrections")) {
		if p, ok := c["prompt"].(string); ok {
			prompts = append(prompts, p)
		} else {
			claims = append(claims, tripleOf(c, "relation"))
		}
	}
	for _, c := range list(get(body, "phase_4_epistemic_boundary_hardening", "chain_break_probes")) {
		claims = append(claims, tripleOf(c, "counter_relation"))
	}
	for _, p := range list(get(body, "phase_2_falsification_corpus", "polarity_pairs")) {
		claims = append(claims, tripleOf(p["rejected_claim"].(map[string]any), "relation"))
	}
	for _, c := range list(get(body, "phase_2_falsification_corpus", "unmatched_counters")) {
		claims = append(claims, tripleOf(c, "relation"))
	}
	for _, w := range list(get(body, "phase_3_refusal_walks", "walks")) {
		for _, s := range list(w["steps"]) {
			claims = append(claims, tripleOf(s, "relation"))
		}
	}
	walked := map[tri]bool{}
	var gotClaims []tri
	var gotPrompts []string
	for _, s := range plan.Steps {
		switch {
		case s.StepType == artifact.StepWalk:
			walked[tripleOf(s.Payload, "relation")] = true
		case s.Payload["kind"] == compile.KindFalseClaim:
			gotClaims = append(gotClaims, tripleOf(s.Payload, "relation"))
		case s.Payload["kind"] == compile.KindIdentityOverride:
			gotPrompts = append(gotPrompts, s.Payload["utterance"].(string))
		}
	}
	for _, r := range relations {
		if !walked[r] {
			t.Errorf("relation %v is never walked", r)
		}
	}
	cmp := func(a, b tri) int { return strings.Compare(a.h+"\x00"+a.r+"\x00"+a.t, b.h+"\x00"+b.r+"\x00"+b.t) }
	slices.SortFunc(claims, cmp)
	slices.SortFunc(gotClaims, cmp)
	if !slices.Equal(claims, gotClaims) {
		t.Errorf("false claims %v, want %v", gotClaims, claims)
	}
	slices.Sort(prompts)
	slices.Sort(gotPrompts)
	if !slices.Equal(prompts, gotPrompts) {
		t.Errorf("prompts %v, want %v", gotPrompts, prompts)
	}
}

// The quirk vectors: definition_quirk_1's YAML (the original's, with raw
// control characters) is refused; the original's composed_relation_quirk_1
// course (no chains) still compiles, its one relation walked on its own.
func TestQuirkVectorCourses(t *testing.T) {
	course, y := vectorCourse(t, "definition_quirk_1")
	if _, err := compile.Compile(course, y); !isKind(err, compile.KindYAML) {
		t.Errorf("definition_quirk_1: %v", err)
	}
	course, y = vectorCourse(t, "composed_relation_quirk_1")
	plan, err := compile.Compile(course, y)
	if err != nil {
		t.Fatal(err)
	}
	if c := counts(plan); c["walk_step"] != 1 || c["introduce_relation"] != 1 {
		t.Errorf("composed_relation_quirk_1: %v", c)
	}
}
