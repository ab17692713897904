package promote

import (
	"strings"
	"testing"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/reviewed"
)

func changeFor(t *testing.T, courseID, reportSHA, issued, replaces string, vts artifact.ValidatedTripleSet) reviewed.Change {
	t.Helper()
	r := artifact.MasteryReport{CourseID: courseID, ReportSHA256: reportSHA, IssuedAt: issued, ValidatedSetSHA: strings.Repeat("1", 64)}
	ch, rej, err := buildChange(r, vts.SubjectID, replaces, vts)
	if err != nil || len(rej) != 0 {
		t.Fatal(err, rej)
	}
	return ch
}

func mustApply(t *testing.T, k reviewed.Knowledge, c reviewed.Change) reviewed.Knowledge {
	t.Helper()
	next, _, changed, err := k.Apply(c)
	if err != nil || !changed {
		t.Fatalf("apply: changed %v, %v", changed, err)
	}
	return next
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := artifact.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApplyMergesCoursesOrderIndependently(t *testing.T) {
	other := artifact.SourceRef{SourceSHA: strings.Repeat("2", 64), Span: "other", Adapter: "book", RetrievedAt: "2026-05-16T00:00:00Z"}
	a := changeFor(t, "course.a", strings.Repeat("a", 64), "2026-05-16T00:00:00Z", "",
		vtsOf("s.a", []artifact.ConceptCandidate{concept("Wisdom")}, []artifact.RelationCandidate{rel("Wisdom", "is", "judgment")}, nil))
	bRel := rel("wisdom", "is", "judgment")
	bRel.Sources = []artifact.SourceRef{other, src, other}
	b := changeFor(t, "course.b", strings.Repeat("b", 64), "2026-05-16T00:00:00Z", "",
		vtsOf("s.b", nil, []artifact.RelationCandidate{bRel, rel("number", "belongs to", "quantity")}, nil))
	ab := mustApply(t, mustApply(t, reviewed.EmptyKnowledge(), a), b)
	ba := mustApply(t, mustApply(t, reviewed.EmptyKnowledge(), b), a)
	if encode(t, ab) != encode(t, ba) {
		t.Fatal("the reviewed store depends on promotion order")
	}
	if len(ab.Triples) != 2 {
		t.Fatalf("triples %+v", ab.Triples)
	}
	// Normal forms: "Wisdom" and "wisdom" are one record; "belongs to" is belongs_to.
	if ab.Triples[0].Head != "number" || ab.Triples[0].Relation != "belongs_to" || ab.Concepts[0].Term != "wisdom" {
		t.Fatalf("normal forms: %+v %+v", ab.Triples[0], ab.Concepts[0])
	}
	w := ab.Triples[1]
	if len(w.Contributions) != 2 || w.Contributions[0].CourseID != "course.a" || w.Contributions[1].CourseID != "course.b" {
		t.Fatalf("contributions %+v", w.Contributions)
	}
	if got := w.Contributions[1].Sources; len(got) != 2 || got[0] != src || got[1] != other {
		t.Fatalf("sources not sorted and deduplicated: %+v", got)
	}
	// Applying a course again under the same report changes nothing.
	if _, _, changed, err := ab.Apply(a); err != nil || changed {
		t.Fatalf("re-apply: %v %v", changed, err)
	}
	// Keeping course b alone keeps its contribution alone.
	onlyB := ab.Restrict(func(c reviewed.CourseRecord) bool { return c.CourseID == "course.b" })
	if len(onlyB.Courses) != 1 || len(onlyB.Concepts) != 0 || len(onlyB.Triples[1].Contributions) != 1 {
		t.Fatalf("restricted: %+v", onlyB)
	}
}

func TestApplyRefusesConflictingReports(t *testing.T) {
	vts := vtsOf("s", nil, []artifact.RelationCandidate{rel("a", "is", "b")}, nil)
	k := mustApply(t, reviewed.EmptyKnowledge(), changeFor(t, "course.x", strings.Repeat("a", 64), "2026-05-16T00:00:00Z", "", vts))
	_, _, _, err := k.Apply(changeFor(t, "course.x", strings.Repeat("b", 64), "2026-05-17T00:00:00Z", "", vts))
	wantRefusal(t, err, exitcode.Unavailable, reviewed.ReasonConcurrentChange)
	_, _, _, err = k.Apply(changeFor(t, "course.x", strings.Repeat("b", 64), "2026-05-17T00:00:00Z", strings.Repeat("c", 64), vts))
	wantRefusal(t, err, exitcode.Unavailable, reviewed.ReasonConcurrentChange)
	next := mustApply(t, k, changeFor(t, "course.x", strings.Repeat("b", 64), "2026-05-17T00:00:00Z", strings.Repeat("a", 64), vts))
	if next.Courses[0].ReportSHA256 != strings.Repeat("b", 64) || next.Triples[0].Contributions[0].ReportSHA256 != strings.Repeat("b", 64) {
		t.Fatalf("supersede: %+v", next)
	}
	// A set that holds a claim and its own counter-claim is not coherent.
	selfContradicting := vtsOf("s", nil, []artifact.RelationCandidate{rel("a", "is", "b")}, []artifact.RelationCandidate{rel("A", "is", "B")})
	_, _, _, err = reviewed.EmptyKnowledge().Apply(changeFor(t, "course.y", strings.Repeat("d", 64), "2026-05-16T00:00:00Z", "", selfContradicting))
	wantRefusal(t, err, exitcode.Rejected, reviewed.ReasonIncoherent)
}

// The index bytes of the original's promote test.
func TestIndexLiteralBytes(t *testing.T) {
	e := artifact.MasteredCourseEntry{CourseID: "x.v1", ReportSHA256: "7ae1d62d51e142b41960a6a43cce4652a506b0326a41eda8f944305441b51b53",
		IssuedAt: "2026-05-16T00:00:00Z", CourseSHA256: strings.Repeat("2", 64), ValidatedSetSHA: strings.Repeat("1", 64)}
	idx, changed, err := reviewed.AddEntry(reviewed.EmptyIndex(), e, "")
	if err != nil || !changed {
		t.Fatal(err)
	}
	want := `{"entries":[{"course_id":"x.v1","course_sha256":"` + strings.Repeat("2", 64) +
		`","issued_at":"2026-05-16T00:00:00Z","report_sha256":"7ae1d62d51e142b41960a6a43cce4652a506b0326a41eda8f944305441b51b53","validated_set_sha":"` +
		strings.Repeat("1", 64) + `"}],"schema_version":"1.0.0"}`
	if got := encode(t, idx); got != want {
		t.Fatalf("index bytes\n%s\nwant\n%s", got, want)
	}
	if _, changed, _ := reviewed.AddEntry(idx, e, ""); changed {
		t.Fatal("the same entry twice changed the index")
	}
	later := e
	later.ReportSHA256 = strings.Repeat("f", 64)
	_, _, err = reviewed.AddEntry(idx, later, "")
	wantRefusal(t, err, exitcode.Unavailable, reviewed.ReasonConcurrentChange)
	replaced, _, err := reviewed.AddEntry(idx, later, e.ReportSHA256)
	if err != nil || len(replaced.Entries) != 1 || replaced.Entries[0].ReportSHA256 != later.ReportSHA256 {
		t.Fatalf("replace: %+v %v", replaced, err)
	}
	first := artifact.MasteredCourseEntry{CourseID: "a.v1", ReportSHA256: strings.Repeat("3", 64)}
	both, _, _ := reviewed.AddEntry(idx, first, "")
	if both.Entries[0].CourseID != "a.v1" || both.Entries[1].CourseID != "x.v1" {
		t.Fatalf("entries not sorted by course_id: %+v", both.Entries)
	}
}
