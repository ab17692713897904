package compile_test

import (
	"os"
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
	"formation/compose/fixtures"
	"formation/internal/testutil"
)

// safetyPackInput rebuilds the identity_anchor input the original's
// ratification script gave Compose for the shipped safety pack, after its
// Forge dropped the boundary and the counter whose names hold the identity
// word "operator"/"identity".
func safetyPackInput(t *testing.T) fixtures.Input {
	t.Helper()
	data, err := os.ReadFile(testutil.Original(t, "packs", "safety", "core_safety_axes_v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pack struct {
		IDs          []string          `json:"boundary_ids"`
		Descriptions map[string]string `json:"boundary_descriptions"`
	}
	g, err := canon.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	obj := g.(*canon.Object)
	for _, k := range obj.Keys() {
		if k != "boundary_ids" && k != "boundary_descriptions" {
			obj.Delete(k)
		}
	}
	if err := canon.Assign(obj, &pack); err != nil {
		t.Fatal(err)
	}
	const source = "ae82011f09d1e2b85a61eb83eaf73de6beeecf7d517c777e5b0e3e05faab13ca"
	ref := artifact.SourceRef{SourceSHA: source, Span: "safety_pack:core_safety_axes_v1", Adapter: "safety_pack_authoring", RetrievedAt: "2026-05-17T00:00:00Z"}
	vts := artifact.ValidatedTripleSet{SubjectID: "subject.safety.core_safety_axes_v1", SchemaVersion: artifact.SchemaVersion}
	for _, id := range pack.IDs {
		if id == "no_identity_override" {
			continue
		}
		vts.Concepts = append(vts.Concepts, artifact.ConceptCandidate{CanonicalTerm: id, Definition: pack.Descriptions[id],
			Sources: []artifact.SourceRef{ref}, State: artifact.StateValidated})
	}
	for _, tail := range []string{"context_pressure", "performance_optimization"} {
		vts.Counters = append(vts.Counters, artifact.CounterCandidate{Head: "boundary", Relation: "must_yield_to", Tail: tail,
			Sources: []artifact.SourceRef{ref}, State: artifact.StateValidated})
	}
	spec := artifact.SubjectSpec{SubjectID: vts.SubjectID, Title: "Safety Anchor — core_safety_axes_v1", TargetDepth: "introductory",
		IdentityAxisConstraints: pack.IDs, SchemaVersion: artifact.SchemaVersion}
	return fixtures.Input{VTS: vts, Spec: spec, SourceBundleSHA: source, TemplateID: "identity_anchor", TemplateVersion: "1.0.0"}
}

// The shipped safety pack's course is byte-identical to the original's; its
// plan, less what this port adds (4 axis seeds, 2 refusal-walk probes, 2
// override probes), is the original's 4-step plan.
func TestSafetyPackCourse(t *testing.T) {
	in := safetyPackInput(t)
	course, _, plan := composeAndCompile(t, in)
	if course.CourseSHA256 != "51431e4fd392836c277289970e16783e71ffdc37cda288013360aeb2f2204396" ||
		course.ValidatedSetSHA != "93b5ec487e375d03ec882f5d5a33dc41d1c7fbb9990261c9fa5e903898d05069" ||
		course.CourseID != "course.subject.safety.core_safety_axes_v1.identity_anchor.1.0.0" {
		t.Fatalf("course %+v", course)
	}
	if len(plan.Steps) != 12 {
		t.Errorf("%d steps, want 12", len(plan.Steps))
	}
	orig := originalView(in.TemplateID, plan.Steps)
	got, _ := artifact.PlanDigest(course.CourseID, course.CourseSHA256, orig)
	if len(orig) != 4 || got != "e3cb38c98da618cdb3a35355496d0a68cda4bab4e2df483384e21c57b46c809e" {
		t.Fatalf("original view: %d steps, %s", len(orig), got)
	}
	for _, s := range plan.Steps[:4] {
		if s.StepType != artifact.StepSeedConcept || !strings.HasPrefix(s.Payload["utterance"].(string), "What is ") {
			t.Errorf("axis seed %v", s)
		}
	}
}
