package knowledge

import (
	"reflect"
	"testing"

	"formation/runtime/epistemic"
)

// Lessons live in one overlay: the shared index, and any other overlay over
// it, never see them; a lesson carries its claim's session status.
func TestLessonsStayInTheOverlay(t *testing.T) {
	k := loadOptics(t)
	before := k.Stats()
	o := NewOverlay(k)
	cite := Citation{SourceSHA: "abcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd", Span: "A quasiprism causes dispersion."}
	o.Learn(Claim{Key: Key{"Quasiprism", "causes", "Dispersion"}}, 3, cite)
	o.Learn(Claim{Key: Key{"quasiprism", "causes", "rainbow"}}, 4, cite)
	o.LearnDefinition("Quasiprism", "a wedge of glass", epistemic.Speculative, cite)
	if !o.HasTerm("quasiprism") || k.HasTerm("quasiprism") || NewOverlay(k).HasTerm("quasiprism") {
		t.Fatal("a lesson's term leaked out of its overlay")
	}
	if k.Stats() != before {
		t.Fatal("learning changed the shared index")
	}
	got := o.LessonsFrom("quasiprism", "causes")
	if len(got) != 2 || got[0].Tail != "dispersion" || got[1].Tail != "rainbow" || got[0].Status != epistemic.Speculative ||
		!reflect.DeepEqual(got[0].Sources, []Citation{cite}) {
		t.Fatalf("lessons from quasiprism: %+v", got)
	}
	if defs := o.LessonDefinitions("quasiprism"); len(defs) != 1 || defs[0].Definition != "a wedge of glass" {
		t.Fatalf("definitions: %+v", defs)
	}
	// Denying a lesson in the same session contests it.
	o.Assess(Claim{Key: Key{"quasiprism", "causes", "dispersion"}, Negated: true}, 5)
	if l, ok := o.Lesson(Claim{Key: Key{"quasiprism", "causes", "dispersion"}}); !ok || l.Status != epistemic.Contested {
		t.Fatalf("a denied lesson: %+v", l)
	}
	if len(o.Assertions()) != 3 {
		t.Fatalf("assertions: %+v", o.Assertions())
	}
}
