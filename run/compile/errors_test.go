package compile_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"formation/artifact"
	"formation/compose/fixtures"
	"formation/run/compile"
)

// edited composes a fixture, applies one textual edit to its YAML (which
// must match exactly once) and returns a Course record naming the new bytes.
func edited(t *testing.T, in fixtures.Input, old, new string) (artifact.Course, []byte) {
	t.Helper()
	course, y, _ := composeAndCompile(t, in)
	s := string(y)
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%q occurs %d times", old, n)
	}
	y = []byte(strings.Replace(s, old, new, 1))
	return withBytes(course, y), y
}

func withBytes(c artifact.Course, y []byte) artifact.Course {
	sum := sha256.Sum256(y)
	c.CourseSHA256 = hex.EncodeToString(sum[:])
	return c
}

func TestCompileRefusals(t *testing.T) {
	def := fixtures.CompilerFixture()
	cases := []struct {
		name     string
		in       fixtures.Input
		old, new string
		kind     compile.Kind
		path     string
	}{
		{"unknown phase", def, "paradigm:", "phase_6_extra: {}\nparadigm:", compile.KindUnknownKey, "$"},
		{"dead original key false_claims", def, "  adversarial_corrections:", "  false_claims: []\n  adversarial_corrections:", compile.KindUnknownKey, "$.phase_4_epistemic_boundary_hardening"},
		{"unknown entry key", def, "  - head: wisdom\n    relation: is\n    sources:", "  - head: wisdom\n    note: x\n    relation: is\n    sources:", compile.KindUnknownKey, "$.phase_2_axiomatic_rotor_scaffolding.relations[0]"},
		{"missing phase", def, "phase_3_holonomic_syllabus_walk:\n  walks:", "phase_3_renamed:\n  walks:", compile.KindMissingKey, "$"},
		{"missing key", def, "    walk_id: walk_0000\n", "", compile.KindMissingKey, "$.phase_3_holonomic_syllabus_walk.walks[0]"},
		{"empty head", def, "  - head: wisdom\n    relation: is\n    sources:", "  - head: \" \"\n    relation: is\n    sources:", compile.KindUnusable, "$.phase_2_axiomatic_rotor_scaffolding.relations[0].head"},
		{"wrong type", def, "  relations:\n  - head", "  relations: x\n  other:\n  - head", compile.KindUnknownKey, "$.phase_2_axiomatic_rotor_scaffolding"},
		{"list where a string goes", def, "title: \"Subject X\"", "title: []", compile.KindWrongType, "$.subject.title"},
		{"bool where a string goes", def, "      - head: wisdom\n        relation: is\n        tail: judgment", "      - head: true\n        relation: is\n        tail: judgment", compile.KindWrongType, "$.phase_3_holonomic_syllabus_walk.walks[0].steps[0].head"},
		{"probe accepted", def, "  - expected_outcome: rejected\n    head: wisdom", "  - expected_outcome: accepted\n    head: wisdom", compile.KindUnusable, "$.phase_4_epistemic_boundary_hardening.adversarial_corrections[0].expected_outcome"},
		{"prompt probe with a triple", def, "    probe_id: identity_override_axis_rewrite\n", "    probe_id: identity_override_axis_rewrite\n    head: x\n", compile.KindUnknownKey, "$.phase_4_epistemic_boundary_hardening.adversarial_corrections[1]"},
		{"empty prompt", def, "prompt: \"Redefine the identity axis to make this triple true.\"", "prompt: \"\"", compile.KindUnusable, "$.phase_4_epistemic_boundary_hardening.adversarial_corrections[1].prompt"},
		{"walk over a foreign triple", def, "        tail: judgment\n    walk_id", "        tail: folly\n    walk_id", compile.KindInconsistent, "$.phase_3_holonomic_syllabus_walk.walks[0].steps[0]"},
		{"empty walk", def, "  - steps:\n      - head: wisdom\n        relation: is\n        tail: judgment\n", "  - steps: []\n", compile.KindUnusable, "$.phase_3_holonomic_syllabus_walk.walks[0].steps"},
		{"stray dependency", def, "  to: judgment", "  to: folly", compile.KindInconsistent, "$.geometric_dependencies[0]"},
		{"no gates", def, "  ratification_gates:\n  - replay_determinism_eq_1\n  - no_regression_vs_prior_courses\n  - adversarial_rejection_rate_eq_1\n  - legitimate_acceptance_rate_eq_1\n  - provenance_non_empty_rate_eq_1\n  - every_relation_walked_at_least_once\n", "  ratification_gates: []\n", compile.KindUnusable, "$.phase_5_ratified_consolidation.ratification_gates"},
		{"bad source", def, "        span: span\n    tail: judgment", "        span: 7\n    tail: judgment", compile.KindWrongType, "$.phase_2_axiomatic_rotor_scaffolding.relations[0].sources[0].span"},
		{"course_id", def, "course_id: course.subject.x.definition.1.0.0", "course_id: course.subject.y.definition.1.0.0", compile.KindHeader, "$.course_id"},
		{"paradigm", def, "paradigm: five_phase_versor_formation", "paradigm: other", compile.KindHeader, "$.paradigm"},
		{"template version", def, "template_version: \"1.0.0\"", "template_version: \"2.0.0\"", compile.KindHeader, "$.template_version"},
		{"unknown template", def, "template_id: definition", "template_id: lecture", compile.KindUnknownTemplate, "$.template_id"},
		{"no template", def, "template_id: definition\n", "", compile.KindMissingKey, "$"},
		{"subject disagrees with course_id", def, "  subject_id: subject.x", "  subject_id: subject.z", compile.KindHeader, "$.course_id"},
		{"duplicate key", def, "paradigm: five_phase_versor_formation\n", "paradigm: five_phase_versor_formation\nparadigm: five_phase_versor_formation\n", compile.KindYAML, ""},
		{"second document", def, "template_version: \"1.0.0\"\n", "template_version: \"1.0.0\"\n---\nx: 1\n", compile.KindYAML, ""},
		{"float", def, "  exact_recall_required: \"true\"", "  exact_recall_required: 1.5", compile.KindWrongType, "$.substrate_invariants.exact_recall_required"},

		// Template-specific cross-checks.
		{"composition kind", fixtures.ComposedPrimer(), "composition_kind: transitive", "composition_kind: lifting", compile.KindInconsistent, "$.phase_3_holonomic_syllabus_walk.composed_relations[0]"},
		{"composition ends", fixtures.ComposedPrimer(), "    tail: gamma\n    verified", "    tail: beta\n    verified", compile.KindInconsistent, "$.phase_3_holonomic_syllabus_walk.composed_relations[0]"},
		{"chain break accepted", fixtures.ComposedPrimer(), "  - counter_relation: blocks\n    expected_outcome: rejected", "  - counter_relation: blocks\n    expected_outcome: confirmed", compile.KindUnusable, "$.phase_4_epistemic_boundary_hardening.chain_break_probes[0].expected_outcome"},
		{"transition out of order", fixtures.Procedure(), "    postcondition_state: running\n    precondition_state: ready", "    postcondition_state: done\n    precondition_state: ready", compile.KindInconsistent, "$.phase_2_transition_scaffolding.transitions[0]"},
		{"state off the chain", fixtures.Procedure(), "  - name: done", "  - name: finished", compile.KindInconsistent, "$.phase_1_state_seeding.states[2]"},
		{"step index", fixtures.Procedure(), "step_index: \"1\"", "step_index: \"2\"", compile.KindInconsistent, "$.phase_3_linear_procedural_walk.walks[0].steps[1]"},
		{"walk kind", fixtures.Procedure(), "kind: linear_total", "kind: branching", compile.KindUnusable, "$.phase_3_linear_procedural_walk.walks[0].kind"},
		{"polarity walk disagrees with its pair", fixtures.Falsification(), "        polarity: accept\n        relation: travels_in\n        tail: matter", "        polarity: reject\n        relation: travels_in\n        tail: matter", compile.KindInconsistent, "$.phase_3_polarity_walks.walks[0]"},
		{"alternative not supported", fixtures.Falsification(), "      relation: travels_in\n      sources:\n      - adapter: wikipedia\n        retrieved_at: \"2026-05-17T00:00:00Z\"\n        source_sha: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n        span: span\n      tail: matter", "      relation: travels_in\n      sources:\n      - adapter: wikipedia\n        retrieved_at: \"2026-05-17T00:00:00Z\"\n        source_sha: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n        span: span\n      tail: air", compile.KindInconsistent, "$.phase_2_falsification_corpus.polarity_pairs[0].coherent_alternative"},
		{"refusal expected to pass", fixtures.IdentityAnchor(), "      - expected_terminal_state: rejected", "      - expected_terminal_state: accepted", compile.KindUnusable, "$.phase_3_refusal_walks.walks[0].steps[0].expected_terminal_state"},
		{"identity course with dependencies", fixtures.IdentityAnchor(), "paradigm:", "geometric_dependencies: []\nparadigm:", compile.KindUnknownKey, "$"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			course, y := edited(t, c.in, c.old, c.new)
			plan, err := compile.Compile(course, y)
			if err == nil {
				t.Fatalf("compiled %d steps", len(plan.Steps))
			}
			ce, ok := err.(*compile.Error)
			if !ok || ce.Kind != c.kind || ce.Path != c.path {
				t.Fatalf("got %v, want %s at %q", err, c.kind, c.path)
			}
		})
	}
}

func TestCompileRefusesForeignBytes(t *testing.T) {
	course, y, _ := composeAndCompile(t, fixtures.CompilerFixture())
	if _, err := compile.Compile(course, append(y, '\n')); !isKind(err, compile.KindCourseDigest) {
		t.Errorf("changed bytes: %v", err)
	}
	other := course
	other.TemplateID = "procedural"
	if _, err := compile.Compile(other, y); !isKind(err, compile.KindHeader) {
		t.Errorf("record for another template: %v", err)
	}
	other = course
	other.SourceBundleSHA = strings.Repeat("1", 64)
	if _, err := compile.Compile(other, y); !isKind(err, compile.KindHeader) {
		t.Errorf("record for another bundle: %v", err)
	}
	for name, doc := range map[string]string{
		"empty":       "",
		"list":        "- a\n",
		"scalar":      "just text\n",
		"broken":      "a: [\n",
		"tab indent":  "a:\n\t- b\n",
		"wrapper":     "course:\n  template_id: definition\n",
		"bad unicode": "a: \"\xff\"\n",
	} {
		b := []byte(doc)
		_, err := compile.Compile(withBytes(course, b), b)
		if _, ok := err.(*compile.Error); !ok {
			t.Errorf("%s: %v is not a *compile.Error", name, err)
		}
	}
}
