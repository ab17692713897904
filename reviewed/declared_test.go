package reviewed

import (
	"slices"
	"strings"
	"testing"

	"formation/artifact"
	"formation/runtime/epistemic"
)

func change(course, subject, report string, declared []string, head, rel, tail string) Change {
	src := artifact.SourceRef{SourceSHA: strings.Repeat("a", 64), Span: "s", Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z"}
	return Change{
		Course: CourseRecord{CourseID: course, SubjectID: subject, ReportSHA256: report, IssuedAt: "2026-05-16T00:00:00Z",
			ValidatedSetSHA: strings.Repeat("c", 64), DeclaredRelations: declared},
		Triples: []TripleRecord{{Head: head, Relation: rel, Tail: tail, EpistemicStatus: epistemic.Coherent,
			Contributions: []Contribution{{CourseID: course, ReportSHA256: report, CandidateID: "x", ReviewHash: "h", Sources: []artifact.SourceRef{src}}}}},
	}
}

// The knowledge keeps the union of its courses' declared relations, each
// course's own, so a superseded declaration goes with its course; the index
// reads them; knowledge without any writes no declared_relations at all.
func TestDeclaredRelationsFollowTheirCourses(t *testing.T) {
	k := EmptyKnowledge()
	k, _, _, err := k.Apply(change("course.a", "a", strings.Repeat("1", 64), nil, "lens", "is", "glass"))
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := artifact.Encode(k); strings.Contains(string(raw), "declared_relations") || k.DeclaredRelations() != nil {
		t.Fatalf("knowledge without a declaration: %s", raw)
	}
	k, _, _, err = k.Apply(change("course.b", "b", strings.Repeat("2", 64), []string{"provides", "defines"}, "package x", "defines", "y type"))
	if err != nil {
		t.Fatal(err)
	}
	if got := k.DeclaredRelations(); !slices.Equal(got, []string{"defines", "provides"}) {
		t.Fatalf("declared %v", got)
	}
	idx, err := k.Index()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(idx.Vocabulary(), "provides") || !slices.Contains(idx.Vocabulary(), "defines") {
		t.Fatalf("index vocabulary %v", idx.Vocabulary())
	}
	// course.b superseded by a report that declares only "defines".
	next := change("course.b", "b", strings.Repeat("3", 64), []string{"defines"}, "package x", "defines", "y type")
	next.Replaces = strings.Repeat("2", 64)
	if k, _, _, err = k.Apply(next); err != nil {
		t.Fatal(err)
	}
	if got := k.DeclaredRelations(); !slices.Equal(got, []string{"defines"}) {
		t.Fatalf("after supersede: %v", got)
	}
	if got := k.Restrict(func(c CourseRecord) bool { return c.CourseID == "course.a" }).DeclaredRelations(); got != nil {
		t.Fatalf("restricted to a course without a declaration: %v", got)
	}
}
