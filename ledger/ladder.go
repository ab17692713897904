package ledger

import (
	"fmt"
	"sort"
	"strings"

	"formation/eval"
	"formation/reviewers"
	"formation/runtime/text"
)

// DomainSpec is a domain as courses/domains.yaml declares it.
type DomainSpec struct {
	ID       string
	Subjects []string
	Families []Family
	Lanes    []LaneSpec
}

// Family is a claimed operator family and its relation predicates.
type Family struct {
	Name      string
	Relations []string
}

// LaneSpec is a declared eval lane.
type LaneSpec struct {
	Lane    string
	Version string
	Splits  []string
}

// Walk is a ratified walk: the predicate of each of its edges, in order.
type Walk struct {
	Course    string
	ID        string
	Relations []string
}

// Facts is everything gathered about one domain; Evaluate needs nothing else.
type Facts struct {
	Domain       DomainSpec
	Courses      []CourseFact // promoted courses of the domain's subjects
	Terms        int64        // distinct terms of the promoted triples
	Defined      int64        // of those, terms with a promoted definition
	Walks        []Walk       // ratified walks of the verified courses
	IntentShapes []string     // distinct answer kinds the domain's questions exercise
	// Problems names inputs that failed to load (a question file, a course
	// YAML): what they would have shown counts for nothing.
	Problems      []string
	Results       map[string]map[string]LaneEvidence
	Registry      *reviewers.Registry // reviewers.Empty() when the file failed
	RegistryError string
}

// Evaluate places a domain on the ladder. Every predicate is measured
// whatever the rungs below it say, so a row shows all that is missing; the
// status is the highest rung whose predicate, and every predicate below it,
// holds.
func Evaluate(f Facts) Row {
	row := Row{Domain: f.Domain.ID, Subjects: nonNil(f.Domain.Subjects), PromotedCourses: nonNilCourses(f.Courses)}
	seeded, seededWhy := seededPredicate(f)
	row.DefinitionCoverage = coverage(f)
	row.OperatorCoverage = familyCoverage(f)
	row.IntentShapes = intentShapes(f.IntentShapes)
	row.Problems = nonNil(f.Problems)
	row.EvalLanes = laneCoverage(f.Domain.Lanes)

	row.Predicates.Seeded = seeded
	row.SeededReason = seededWhy
	row.Predicates.Grounded, row.GroundedReason = below(seeded, StatusSeeded, groundedReason(row.DefinitionCoverage))
	row.Predicates.ReasoningCapable, row.ReasoningCapableReason = below(row.Predicates.Grounded, StatusGrounded, reasoningReason(row))

	gate := Gate(GateInput{Domain: f.Domain.ID, ReasoningCapable: row.Predicates.ReasoningCapable, Registry: registry(f),
		RegistryError: f.RegistryError, DomainLanes: laneIDs(f.Domain.Lanes), Results: f.Results})
	row.Predicates.AuditPassed, row.AuditPassedReason = gate.Passed, gate.Reason
	row.DerivedDigest = gate.DerivedDigest
	if gate.Claim != nil {
		row.Claim = &ClaimView{SignedBy: gate.Claim.SignedBy, EvidenceLanes: nonNil(gate.Claim.EvidenceLanes),
			EvidenceRevision: gate.Claim.EvidenceRevision, ClaimDigest: gate.Claim.ClaimDigest, Signed: gate.SignatureError == ""}
	}
	row.Evidence = evidenceViews(f.Results)
	row.Status = status(row.Predicates)
	return row
}

func registry(f Facts) *reviewers.Registry {
	if f.Registry == nil {
		return reviewers.Empty()
	}
	return f.Registry
}

func status(p Predicates) string {
	switch {
	case p.AuditPassed:
		return StatusAuditPassed
	case p.ReasoningCapable:
		return StatusReasoningCapable
	case p.Grounded:
		return StatusGrounded
	case p.Seeded:
		return StatusSeeded
	}
	return StatusBlocked
}

// below combines a rung's own reason with the rung beneath it: the rung
// holds only when the lower one does and its own reason is empty.
func below(lower bool, lowerName, own string) (bool, string) {
	switch {
	case !lower && own != "":
		return false, "not " + lowerName + "; " + own
	case !lower:
		return false, "not " + lowerName
	case own != "":
		return false, own
	}
	return true, ""
}

func seededPredicate(f Facts) (bool, string) {
	var failures []string
	for _, c := range f.Courses {
		if c.Verified {
			return true, ""
		}
		failures = append(failures, fmt.Sprintf("course '%s' (subject '%s'): %s", c.CourseID, c.Subject, c.Reason))
	}
	why := fmt.Sprintf("no promoted course of subjects %s", pyList(f.Domain.Subjects))
	if len(failures) == 0 {
		return false, why
	}
	return false, why + " verifies: " + strings.Join(failures, "; ")
}

func coverage(f Facts) Coverage {
	c := Coverage{Terms: f.Terms, Defined: f.Defined, Rate: eval.NewRate(f.Defined, f.Terms), Threshold: DefinitionCoverageMin().String()}
	c.Ready = c.Rate.Valid() && c.Rate.AtLeast(DefinitionCoverageMin())
	return c
}

func groundedReason(c Coverage) string {
	switch {
	case c.Terms == 0:
		return "no terms in the domain's promoted knowledge"
	case !c.Ready:
		return fmt.Sprintf("definition coverage %s below threshold %s", c.Rate, c.Threshold)
	}
	return ""
}

// familyCoverage counts, per claimed family, the walks whose every edge's
// predicate is in the family's predicate set. One walk may count for
// several families when their sets overlap.
func familyCoverage(f Facts) []FamilyCoverage {
	out := make([]FamilyCoverage, 0, len(f.Domain.Families))
	for _, fam := range f.Domain.Families {
		set := map[string]bool{}
		for _, r := range fam.Relations {
			set[text.Relation(r)] = true
		}
		var n int64
		for _, w := range f.Walks {
			if walkIn(w, set) {
				n++
			}
		}
		out = append(out, FamilyCoverage{Family: fam.Name, Relations: nonNil(fam.Relations), Walks: n,
			Required: WalksPerFamilyMin, Ready: n >= WalksPerFamilyMin})
	}
	return out
}

func walkIn(w Walk, set map[string]bool) bool {
	if len(w.Relations) == 0 {
		return false
	}
	for _, r := range w.Relations {
		if !set[text.Relation(r)] {
			return false
		}
	}
	return true
}

func intentShapes(kinds []string) IntentShapes {
	seen := map[string]bool{}
	present := []string{}
	for _, k := range kinds {
		if k != "" && !seen[k] {
			seen[k] = true
			present = append(present, k)
		}
	}
	sort.Strings(present)
	n := int64(len(present))
	return IntentShapes{Present: present, Count: n, Required: IntentShapesMin, Ready: n >= IntentShapesMin}
}

func laneCoverage(lanes []LaneSpec) []LaneCoverage {
	out := make([]LaneCoverage, 0, len(lanes))
	for _, l := range lanes {
		shape, _ := eval.ShapeOf(l.Lane)
		complete := true
		for _, s := range []string{SplitDev, SplitPublic, SplitHoldout} {
			complete = complete && contains(l.Splits, s)
		}
		out = append(out, LaneCoverage{Lane: l.Lane, Version: l.Version, Shape: string(shape), Splits: nonNil(l.Splits), Complete: complete})
	}
	return out
}

// reasoningReason lists every unmet reasoning-capable predicate.
func reasoningReason(row Row) string {
	var why []string
	if len(row.OperatorCoverage) == 0 {
		why = append(why, "the domain claims no operator family")
	}
	for _, fc := range row.OperatorCoverage {
		if !fc.Ready {
			why = append(why, fmt.Sprintf("operator family '%s' has %d ratified walks (need %d)", fc.Family, fc.Walks, fc.Required))
		}
	}
	if !row.IntentShapes.Ready {
		why = append(why, fmt.Sprintf("only %d intent shape(s) exercised (need %d): %s", row.IntentShapes.Count, row.IntentShapes.Required, pyList(row.IntentShapes.Present)))
	}
	why = append(why, row.Problems...)
	if len(row.EvalLanes) == 0 {
		why = append(why, "the domain declares no eval lane")
	}
	for _, l := range row.EvalLanes {
		if !l.Complete {
			why = append(why, fmt.Sprintf("lane '%s' does not cover dev, public and holdout (has %s)", l.Lane, pyList(l.Splits)))
		}
	}
	return strings.Join(why, "; ")
}

func laneIDs(lanes []LaneSpec) []string {
	out := make([]string, len(lanes))
	for i, l := range lanes {
		out[i] = l.Lane
	}
	return out
}

// evidenceViews lists the selected results, lanes sorted, splits in the
// order public, holdout, dev.
func evidenceViews(results map[string]map[string]LaneEvidence) []EvidenceView {
	lanes := make([]string, 0, len(results))
	for l := range results {
		lanes = append(lanes, l)
	}
	sort.Strings(lanes)
	out := []EvidenceView{}
	for _, l := range lanes {
		for _, s := range []string{SplitPublic, SplitHoldout, SplitDev} {
			ev, ok := results[l][s]
			if !ok {
				continue
			}
			v := EvidenceView{Lane: l, Split: s, Object: ev.Object, Timestamp: ev.Timestamp, Reason: ev.Problem}
			if v.Reason == "" {
				v.Reason = eval.Check(l, ev.Metrics)
			}
			v.Pass = v.Reason == ""
			out = append(out, v)
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return append([]string{}, s...)
}

func nonNilCourses(c []CourseFact) []CourseFact {
	if c == nil {
		return []CourseFact{}
	}
	return append([]CourseFact{}, c...)
}
