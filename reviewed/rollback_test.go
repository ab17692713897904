package reviewed

import (
	"context"
	"strings"
	"testing"

	"formation/artifact"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/store"
)

// commitCourse moves the state to one more course in the index.
func commitCourse(t *testing.T, s store.Store, id string) Snapshot {
	t.Helper()
	snap, changed, err := Commit(context.Background(), s, func(cur Snapshot) (Next, error) {
		idx, _, err := AddEntry(cur.Index, artifact.MasteredCourseEntry{CourseID: id, ReportSHA256: strings.Repeat("a", 64),
			CourseSHA256: strings.Repeat("b", 64), ValidatedSetSHA: strings.Repeat("c", 64), IssuedAt: "2026-05-16T00:00:00Z"}, "")
		return Next{Knowledge: cur.Knowledge, Index: idx, Promotions: cur.State.Promotions}, err
	})
	if err != nil || !changed {
		t.Fatalf("commit %s: %v %v", id, changed, err)
	}
	return snap
}

// A rollback of everything at once (the ref moved back to an older, valid
// state) leaves a chain that verifies: only a pinned head detects it.
func TestRollbackIsDetectedOnlyByAPinnedHead(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := commitCourse(t, s, "course.a")
	second := commitCourse(t, s, "course.b")
	if second.State.Seq != 1 || second.State.Previous != first.Head {
		t.Fatalf("chain: %+v", second.State)
	}
	if err := CheckHead(second, second.Head.String()); err != nil {
		t.Fatal(err)
	}
	_, version, err := s.GetRef(ctx, StateRef)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetRef(ctx, StateRef, version, []byte(first.Head.String())); err != nil {
		t.Fatal(err)
	}
	snap, findings, err := VerifyChain(ctx, s)
	if err != nil || len(findings) != 0 || snap.Head != first.Head {
		t.Fatalf("the rolled-back chain: %v %v %v", snap.Head, findings, err)
	}
	err = CheckHead(snap, second.Head.String())
	if exitcode.Of(err) != exitcode.SealInvalid || !strings.Contains(err.Error(), ReasonHeadMismatch) {
		t.Fatalf("a rollback under a pinned head: %v (exit %d)", err, exitcode.Of(err))
	}
}

// A state whose link is wrong (a seq that does not follow) or that names a
// missing object is a finding of VerifyChain.
func TestBrokenChainIsFound(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := commitCourse(t, s, "course.a")
	forged := first.State
	forged.Seq, forged.Previous = 5, first.Head // claims seq 5 right after seq 0
	d, err := putArtifact(ctx, s, forged)
	if err != nil {
		t.Fatal(err)
	}
	_, version, _ := s.GetRef(ctx, StateRef)
	if _, err := s.SetRef(ctx, StateRef, version, []byte(d.String())); err != nil {
		t.Fatal(err)
	}
	_, findings, err := VerifyChain(ctx, s)
	if err != nil || len(findings) != 1 || findings[0].Reason != ReasonBrokenChain {
		t.Fatalf("findings %+v %v", findings, err)
	}
	missing := first.State
	missing.Seq, missing.Previous, missing.Index = 1, first.Head, ident.Digest(strings.Repeat("9", 64))
	d, _ = putArtifact(ctx, s, missing)
	_, version, _ = s.GetRef(ctx, StateRef)
	if _, err := s.SetRef(ctx, StateRef, version, []byte(d.String())); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, s); exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("a state naming a missing index loads: %v", err)
	}
	_, findings, _ = VerifyChain(ctx, s)
	if len(findings) != 1 || findings[0].Reason != ReasonDanglingState {
		t.Fatalf("findings %+v", findings)
	}
}
