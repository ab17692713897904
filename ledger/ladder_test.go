package ledger

import (
	"strings"
	"testing"

	"formation/eval"
	"formation/reviewers"
)

func walks(n int, rels ...string) []Walk {
	out := make([]Walk, n)
	for i := range out {
		out[i] = Walk{Course: "c", ID: "w", Relations: rels}
	}
	return out
}

// fullFacts reaches audit-passed: one verified course, 9/10 terms defined,
// 8 walks per family, three intent shapes, complete lanes, a signed claim.
func fullFacts(t *testing.T) Facts {
	t.Helper()
	lanes := []LaneSpec{
		{Lane: eval.LaneInferenceClosure, Version: "v1", Splits: []string{"public", "holdout", "dev"}},
		{Lane: eval.LaneFabricationControl, Version: "v1", Splits: []string{"dev", "public", "holdout"}},
	}
	s := newSigner(t, "demo", reviewers.RolePrimary)
	res := goodResults()
	return Facts{
		Domain: DomainSpec{ID: "example", Subjects: []string{"optics"}, Lanes: lanes,
			Families: []Family{{"causal", []string{"causes", "produces"}}, {"transitive", []string{"is", "belongs to"}}}},
		Courses:      []CourseFact{{CourseID: "optics-1", Subject: "optics", ReportSHA256: strings.Repeat("e", 64), Verified: true}},
		Terms:        10,
		Defined:      9,
		Walks:        append(walks(8, "causes", "produces"), walks(8, "is", "belongs_to")...),
		IntentShapes: []string{"definition", "relation", "walk", "definition"},
		Results:      res,
		Registry:     signedRegistry(t, s, s.reviewer(), claimLanes, res),
	}
}

func wantStatus(t *testing.T, f Facts, status string) Row {
	t.Helper()
	row := Evaluate(f)
	if row.Status != status {
		t.Fatalf("status %s, want %s (seeded %q, grounded %q, reasoning %q, audit %q)", row.Status, status,
			row.SeededReason, row.GroundedReason, row.ReasoningCapableReason, row.AuditPassedReason)
	}
	return row
}

func TestLadderReachesAuditPassed(t *testing.T) {
	row := wantStatus(t, fullFacts(t), StatusAuditPassed)
	p := row.Predicates
	if !p.Seeded || !p.Grounded || !p.ReasoningCapable || !p.AuditPassed || row.AuditPassedReason != ReasonPassed {
		t.Fatalf("row %+v", row)
	}
	if row.SeededReason != "" || row.GroundedReason != "" || row.ReasoningCapableReason != "" {
		t.Fatal("reasons on passing rungs")
	}
	if row.Claim == nil || !row.Claim.Signed || row.DerivedDigest != row.Claim.ClaimDigest {
		t.Fatalf("claim %+v derived %s", row.Claim, row.DerivedDigest)
	}
	if row.IntentShapes.Count != 3 || len(row.Evidence) != 4 {
		t.Fatalf("intent %+v evidence %d", row.IntentShapes, len(row.Evidence))
	}
}

func TestBlockedWithoutVerifiedCourse(t *testing.T) {
	f := fullFacts(t)
	f.Courses = nil
	row := wantStatus(t, f, StatusBlocked)
	if row.SeededReason != "no promoted course of subjects ['optics']" {
		t.Fatalf("reason %q", row.SeededReason)
	}
	if !strings.HasPrefix(row.GroundedReason, "not seeded") || !strings.HasPrefix(row.ReasoningCapableReason, "not grounded") ||
		row.AuditPassedReason != ReasonNotReasoningCapable {
		t.Fatalf("reasons %q / %q / %q", row.GroundedReason, row.ReasoningCapableReason, row.AuditPassedReason)
	}
	f.Courses = []CourseFact{{CourseID: "optics-1", Subject: "optics", Reason: "promotion signature does not verify against the trusted curator keys"}}
	row = wantStatus(t, f, StatusBlocked)
	if !strings.Contains(row.SeededReason, "verifies: course 'optics-1' (subject 'optics'): promotion signature does not verify") {
		t.Fatalf("reason %q", row.SeededReason)
	}
}

func TestSeededWhenCoverageLow(t *testing.T) {
	f := fullFacts(t)
	f.Defined = 8
	row := wantStatus(t, f, StatusSeeded)
	if row.GroundedReason != "definition coverage 8/10 below threshold 0.85" || row.DefinitionCoverage.Ready {
		t.Fatalf("reason %q", row.GroundedReason)
	}
	f.Terms, f.Defined = 0, 0
	row = wantStatus(t, f, StatusSeeded)
	if row.GroundedReason != "no terms in the domain's promoted knowledge" {
		t.Fatalf("reason %q", row.GroundedReason)
	}
	f.Terms, f.Defined = 20, 17 // exactly 0.85
	wantStatus(t, f, StatusAuditPassed)
}

func TestGroundedWhenWalksShort(t *testing.T) {
	f := fullFacts(t)
	f.Walks = append(walks(7, "causes"), walks(8, "is")...)
	row := wantStatus(t, f, StatusGrounded)
	if !strings.Contains(row.ReasoningCapableReason, "operator family 'causal' has 7 ratified walks (need 8)") {
		t.Fatalf("reason %q", row.ReasoningCapableReason)
	}
	if row.AuditPassedReason != ReasonNotReasoningCapable || row.Predicates.AuditPassed {
		t.Fatalf("audit %q", row.AuditPassedReason)
	}
}

// A walk counts for a family only when every edge's predicate is in the
// family's set; an empty walk counts for nothing.
func TestWalkCounting(t *testing.T) {
	f := fullFacts(t)
	f.Walks = append(append(walks(8, "causes", "is"), walks(8, "is")...), Walk{ID: "empty"})
	row := Evaluate(f)
	if row.OperatorCoverage[0].Walks != 0 || row.OperatorCoverage[1].Walks != 8 {
		t.Fatalf("coverage %+v", row.OperatorCoverage)
	}
	f.Domain.Families = append(f.Domain.Families, Family{"modal", []string{"is", "causes"}})
	row = Evaluate(f)
	if row.OperatorCoverage[2].Walks != 16 {
		t.Fatalf("overlapping family %+v", row.OperatorCoverage[2])
	}
}

func TestGroundedWhenIntentShapesFew(t *testing.T) {
	f := fullFacts(t)
	f.IntentShapes = []string{"definition", "relation", "relation"}
	row := wantStatus(t, f, StatusGrounded)
	if !strings.Contains(row.ReasoningCapableReason, "only 2 intent shape(s) exercised (need 3): ['definition', 'relation']") {
		t.Fatalf("reason %q", row.ReasoningCapableReason)
	}
}

func TestGroundedWhenLaneSplitMissing(t *testing.T) {
	f := fullFacts(t)
	f.Domain.Lanes[1].Splits = []string{"public", "holdout"}
	row := wantStatus(t, f, StatusGrounded)
	if !strings.Contains(row.ReasoningCapableReason, "lane 'fabrication_control' does not cover dev, public and holdout (has ['holdout', 'public'])") {
		t.Fatalf("reason %q", row.ReasoningCapableReason)
	}
	f = fullFacts(t)
	f.Domain.Lanes, f.Domain.Families = nil, nil
	row = wantStatus(t, f, StatusGrounded)
	if !strings.Contains(row.ReasoningCapableReason, "no operator family") || !strings.Contains(row.ReasoningCapableReason, "no eval lane") {
		t.Fatalf("reason %q", row.ReasoningCapableReason)
	}
}

// Every gate failure leaves a reasoning-capable domain at reasoning-capable.
func TestGateFailureStaysReasoningCapable(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Facts)
		want   string
	}{
		{"no claim", func(f *Facts) { f.Registry = reviewers.Empty() }, ReasonNoClaim},
		{"broken registry", func(f *Facts) {
			f.Registry, f.RegistryError = reviewers.Empty(), "reviewer registry YAML parse error: x"
		}, "reviewer registry YAML parse error"},
		{"drift", func(f *Facts) {
			f.Results[eval.LaneInferenceClosure][SplitHoldout] = LaneEvidence{Metrics: inferenceMetrics(99)}
		}, ReasonReplayDrift},
		{"missing result", func(f *Facts) { delete(f.Results, eval.LaneFabricationControl) }, "has no results"},
		{"lane undeclared", func(f *Facts) { f.Domain.Lanes = f.Domain.Lanes[:1] }, "lanes not attached"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fullFacts(t)
			c.mutate(&f)
			row := wantStatus(t, f, StatusReasoningCapable)
			if !strings.Contains(row.AuditPassedReason, c.want) || row.Predicates.AuditPassed {
				t.Fatalf("reason %q", row.AuditPassedReason)
			}
		})
	}
}

func TestEvaluateIsDeterministic(t *testing.T) {
	f := fullFacts(t)
	a, _ := canonMarshal(Evaluate(f))
	b, _ := canonMarshal(Evaluate(f))
	if a != b {
		t.Fatal("two evaluations differ")
	}
}
