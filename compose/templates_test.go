package compose_test

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"formation/artifact"
	"formation/compose"
	"formation/compose/fixtures"
)

func render(t *testing.T, in fixtures.Input) map[string]any {
	t.Helper()
	body, err := compose.Render(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// at follows a path of map keys and list indexes through a body.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not a map at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

func TestRegistry(t *testing.T) {
	ids := compose.TemplateIDs()
	if !slices.IsSorted(ids) || len(ids) != 5 {
		t.Fatalf("ids %v", ids)
	}
	for _, id := range ids {
		if v, err := compose.TemplateVersion(id); err != nil || v != "1.0.0" {
			t.Errorf("%s: %s, %v", id, v, err)
		}
	}
	if _, err := compose.TemplateVersion("nope"); !errors.Is(err, &compose.Error{Kind: compose.KindUnknownTemplate}) {
		t.Errorf("unknown id: %v", err)
	}
	// Same input, different templates, different courses.
	seen := map[string]bool{}
	for _, id := range []string{compose.TemplateDefinition, compose.TemplateComposedRelation, compose.TemplateFalsification, compose.TemplateIdentityAnchor} {
		sha, _, _ := composeInput(t, fixtures.CrossTemplate(id))
		if seen[sha] {
			t.Errorf("%s repeats a course digest", id)
		}
		seen[sha] = true
	}
}

func TestInputRefusals(t *testing.T) {
	in := fixtures.Geometry()
	in.SourceBundleSHA = "F" + strings.Repeat("f", 63)
	if _, err := compose.Render(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion); !errors.Is(err, &compose.Error{Kind: compose.KindInvalidInput}) {
		t.Errorf("upper-case bundle digest: %v", err)
	}
	in = fixtures.Geometry()
	in.Spec.SubjectID = "subject.other"
	if _, _, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion); !errors.Is(err, &compose.Error{Kind: compose.KindInvalidInput}) ||
		!strings.Contains(err.Error(), "subject.other") {
		t.Errorf("subject mismatch: %v", err)
	}
	in = fixtures.Geometry()
	in.VTS.Concepts[0].Definition = "not utf-8 \xc3"
	if _, _, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion); !errors.Is(err, &compose.Error{Kind: compose.KindInvalidUTF8}) {
		t.Errorf("invalid UTF-8 in the set: %v", err)
	}
}

// reversedInput reverses every list of the validated set.
func reversedInput(in fixtures.Input) fixtures.Input {
	v := in.VTS
	v.Concepts = slices.Clone(v.Concepts)
	v.Relations = slices.Clone(v.Relations)
	v.Counters = slices.Clone(v.Counters)
	v.OrderingHints = slices.Clone(v.OrderingHints)
	slices.Reverse(v.Concepts)
	slices.Reverse(v.Relations)
	slices.Reverse(v.Counters)
	slices.Reverse(v.OrderingHints)
	in.VTS = v
	return in
}

func TestOrderIndependence(t *testing.T) {
	for _, in := range []fixtures.Input{fixtures.Geometry(), fixtures.ComposedPrimer(), fixtures.Procedure(),
		fixtures.Falsification(), fixtures.IdentityAnchor(), fixtures.MicroCourse(), fixtures.Synthetic(200)} {
		_, _, a := composeInput(t, in)
		_, _, b := composeInput(t, reversedInput(in))
		if !bytes.Equal(a, b) {
			t.Errorf("%s/%s depends on input order", in.Spec.SubjectID, in.TemplateID)
		}
	}
}

func TestComposedRelationKinds(t *testing.T) {
	in := fixtures.ComposedPrimer()
	body := render(t, in)
	cr := at(t, body, "phase_3_holonomic_syllabus_walk", "composed_relations").([]any)
	if len(cr) != 1 || at(t, cr, 0, "composition_kind") != "transitive" || at(t, cr, 0, "inferred_relation") != "causes" ||
		at(t, cr, 0, "chain_id") != "chain_alpha_to_gamma" {
		t.Fatalf("composed relations %v", cr)
	}
	if at(t, body, "phase_4_epistemic_boundary_hardening", "chain_break_probes", 0, "counter_relation") != "blocks" {
		t.Fatal("chain-break probe ignores the matching counter")
	}
	if gates := at(t, body, "phase_5_ratified_consolidation", "ratification_gates").([]any); gates[len(gates)-1] != "every_composed_relation_replayed" {
		t.Fatalf("gates %v", gates)
	}
	in.VTS.Relations[1].Relation = "entails"
	in.VTS.Counters = nil
	body = render(t, in)
	if at(t, body, "phase_3_holonomic_syllabus_walk", "composed_relations", 0, "composition_kind") != "lifting" ||
		at(t, body, "phase_3_holonomic_syllabus_walk", "composed_relations", 0, "inferred_relation") != "composes_to" {
		t.Fatal("mixed predicates must lift")
	}
	probe := at(t, body, "phase_4_epistemic_boundary_hardening", "chain_break_probes", 0)
	if at(t, probe, "counter_relation") != "spurious_inference" || len(at(t, probe, "sources").([]any)) != 0 {
		t.Fatalf("probe without counter %v", probe)
	}
}

func TestIdentityAnchorHintRanking(t *testing.T) {
	in := fixtures.IdentityAnchor()
	if at(t, render(t, in), "phase_1_axis_declaration", "axes", 0, "canonical_term") != "generosity" {
		t.Fatal("without hints axes go in name order")
	}
	in.VTS.OrderingHints = []artifact.OrderingHint{{Before: "precision", After: "generosity"}, {Before: "unknown", After: "precision"}}
	body := render(t, in)
	if at(t, body, "phase_1_axis_declaration", "axes", 0, "canonical_term") != "precision" ||
		at(t, body, "phase_1_axis_declaration", "axes", 1, "priority") != "1" {
		t.Fatal("hint precision→generosity must put precision first")
	}
	if at(t, body, "phase_3_refusal_walks", "walks", 0, "steps", 0, "expected_terminal_state") != "rejected" {
		t.Fatal("refusal walk step")
	}
}

func TestFalsificationPairs(t *testing.T) {
	body := render(t, fixtures.Falsification())
	corpus := at(t, body, "phase_2_falsification_corpus")
	if at(t, corpus, "polarity_pairs", 0, "pair_id") != "pair_0001" ||
		at(t, corpus, "polarity_pairs", 0, "coherent_alternative", "tail") != "matter" ||
		at(t, corpus, "unmatched_counters", 0, "head") != "orphan" {
		t.Fatalf("pairs %v", corpus)
	}
	walk := at(t, body, "phase_3_polarity_walks", "walks", 0)
	if at(t, walk, "kind") != "polarity_flip" || at(t, walk, "steps", 0, "polarity") != "reject" || at(t, walk, "steps", 1, "polarity") != "accept" {
		t.Fatalf("walk %v", walk)
	}
}

// A large synthetic course loads back to its body too.
func TestSyntheticRoundTrip(t *testing.T) {
	in := fixtures.Synthetic(2000)
	body := render(t, in)
	_, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := yaml.Unmarshal(y, &back); err != nil || !reflect.DeepEqual(back, any(body)) {
		t.Fatalf("synthetic course does not round-trip: %v", err)
	}
	walked := 0
	for _, w := range at(t, body, "phase_3_holonomic_syllabus_walk", "walks").([]any) {
		walked += len(at(t, w, "steps").([]any))
	}
	if n := len(at(t, body, "phase_2_axiomatic_rotor_scaffolding", "relations").([]any)); walked != n || n != 2000 {
		t.Fatalf("%d relations, %d walked", n, walked)
	}
}
