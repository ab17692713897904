package promote

import (
	"strings"
	"testing"

	"formation/artifact"
	"formation/canon"
)

func TestReviewRejectsTermsEmptyInNormalForm(t *testing.T) {
	r := artifact.MasteryReport{CourseID: "c", ReportSHA256: strings.Repeat("a", 64)}
	vts := vtsOf("s", nil, []artifact.RelationCandidate{rel("wisdom", "---", "judgment")}, nil)
	_, rej, err := buildChange(r, "s", "", vts)
	if err != nil || len(rej) != 1 || rej[0].reason != ReasonReviewEmpty {
		t.Fatalf("rejections %+v %v", rej, err)
	}
}

// The candidate id is the original's, kept whole: its first 16 hex are the
// original's literal for (wisdom, is, judgment) under report 7ae1d62d….
func TestCandidateIDExtendsTheOriginal(t *testing.T) {
	report := artifact.MasteryReport{CourseID: "x.v1", ReportSHA256: "7ae1d62d51e142b41960a6a43cce4652a506b0326a41eda8f944305441b51b53"}
	vts := vtsOf("subject.x", nil, []artifact.RelationCandidate{rel("wisdom", "is", "judgment")}, nil)
	ch, rej, err := buildChange(report, "subject.x", "", vts)
	if err != nil || len(rej) != 0 {
		t.Fatal(err, rej)
	}
	c := ch.Triples[0].Contributions[0]
	if len(c.CandidateID) != 64 || c.CandidateID[:16] != "f5100060303f3db9" {
		t.Fatalf("candidate id %s", c.CandidateID)
	}
	want, _ := canon.SHA256Hex(map[string]any{"candidate_id": c.CandidateID, "correction_text": "wisdom is judgment.",
		"outcome": "accepted", "epistemic_status": "coherent"})
	if c.ReviewHash != want {
		t.Fatalf("review hash %s, want %s", c.ReviewHash, want)
	}
}
