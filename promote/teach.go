package promote

import (
	"fmt"
	"slices"

	"formation/artifact"
	"formation/canon"
	"formation/reviewed"
	"formation/runtime/epistemic"
	"formation/runtime/review"
	"formation/runtime/text"
)

// rejection is one candidate the review gate refused.
type rejection struct {
	reason string // ReasonReviewIdentity or ReasonReviewEmpty
	item   string // the reviewed text
	fired  string
}

// accepted is a candidate after review: its normal-form key fields and its
// contribution.
type accepted struct {
	head, relation, tail string
	contribution         reviewed.Contribution
}

// buildChange reviews every concept, relation and counter-claim of the
// validated set for the report and returns the change to apply, or every
// rejection. Each candidate enters SPECULATIVE (the Forge validates, it does
// not review); an accepted one leaves COHERENT (a counter-claim: FALSIFIED).
func buildChange(report artifact.MasteryReport, subjectID, replaces string, vts artifact.ValidatedTripleSet) (reviewed.Change, []rejection, error) {
	c := reviewed.Change{
		Course: reviewed.CourseRecord{CourseID: report.CourseID, SubjectID: subjectID, ReportSHA256: report.ReportSHA256,
			IssuedAt: report.IssuedAt, ValidatedSetSHA: report.ValidatedSetSHA, DeclaredRelations: declared(vts)},
		Replaces: replaces,
	}
	gate := review.NewGate()
	var rejected []rejection
	for _, con := range vts.Concepts {
		id := map[string]any{"term": con.CanonicalTerm, "definition": con.Definition, "report": report.ReportSHA256}
		r, rej, err := reviewCandidate(gate, con.CanonicalTerm+": "+con.Definition, id, con.Sources, report,
			epistemic.Coherent, text.Term(con.CanonicalTerm), "", "")
		if err != nil {
			return reviewed.Change{}, nil, err
		}
		if rej != nil {
			rejected = append(rejected, *rej)
			continue
		}
		c.Concepts = append(c.Concepts, reviewed.ConceptRecord{Term: r.head, Definition: con.Definition,
			EpistemicStatus: epistemic.Coherent, Contributions: []reviewed.Contribution{r.contribution}})
	}
	var err error
	if c.Triples, rejected, err = reviewTriples(gate, vts.Relations, false, report, rejected); err != nil {
		return reviewed.Change{}, nil, err
	}
	if c.Counters, rejected, err = reviewTriples(gate, vts.Counters, true, report, rejected); err != nil {
		return reviewed.Change{}, nil, err
	}
	return c, rejected, nil
}

// declared is the set's declared relations in the form the course record
// keeps them: sorted, distinct, nil when none.
func declared(vts artifact.ValidatedTripleSet) []string {
	if len(vts.DeclaredRelations) == 0 {
		return nil
	}
	out := slices.Clone(vts.DeclaredRelations)
	slices.Sort(out)
	return slices.Compact(out)
}

func reviewTriples(gate *review.Gate, rs []artifact.RelationCandidate, counter bool, report artifact.MasteryReport, rejected []rejection) ([]reviewed.TripleRecord, []rejection, error) {
	status := epistemic.Coherent
	if counter {
		status = epistemic.Falsified
	}
	var out []reviewed.TripleRecord
	for _, t := range rs {
		// The original's candidate id for a relation, kept whole (it cut it
		// to 16 hex); a counter-claim is marked so that the two never share one.
		id := map[string]any{"head": t.Head, "relation": t.Relation, "tail": t.Tail, "report": report.ReportSHA256}
		if counter {
			id["counter"] = true
		}
		sentence := t.Head + " " + artifact.SpacedRelation(t.Relation) + " " + t.Tail + "."
		r, rej, err := reviewCandidate(gate, sentence, id, t.Sources, report, status, text.Term(t.Head), text.Relation(t.Relation), text.Term(t.Tail))
		if err != nil {
			return nil, nil, err
		}
		if rej != nil {
			rejected = append(rejected, *rej)
			continue
		}
		out = append(out, reviewed.TripleRecord{Head: r.head, Relation: r.relation, Tail: r.tail,
			EpistemicStatus: status, Contributions: []reviewed.Contribution{r.contribution}})
	}
	return out, rejected, nil
}

// reviewCandidate runs the runtime's review gate on one candidate's text.
// relation and tail are empty for a concept, whose key is its term (head).
func reviewCandidate(gate *review.Gate, sentence string, id map[string]any, sources []artifact.SourceRef,
	report artifact.MasteryReport, status epistemic.Status, head, relation, tail string) (accepted, *rejection, error) {
	verdict := gate.Verdict(sentence)
	outcome, fired := verdict.Outcome, verdict.Fired()
	isConcept := relation == "" && tail == ""
	if outcome == review.Accepted && (head == "" || !isConcept && (relation == "" || tail == "")) {
		outcome, fired = review.RejectedEmpty, "a term is empty in normal form"
	}
	switch outcome {
	case review.RejectedEmpty:
		return accepted{}, &rejection{ReasonReviewEmpty, sentence, fired}, nil
	case review.RejectedIdentity:
		return accepted{}, &rejection{ReasonReviewIdentity, sentence, fired}, nil
	}
	candidate, err := canon.SHA256Hex(id)
	if err != nil {
		return accepted{}, nil, fmt.Errorf("promote: candidate id: %w", err)
	}
	hash, err := canon.SHA256Hex(map[string]any{"candidate_id": candidate, "correction_text": sentence,
		"outcome": outcome, "epistemic_status": string(status)})
	if err != nil {
		return accepted{}, nil, fmt.Errorf("promote: review hash: %w", err)
	}
	return accepted{head: head, relation: relation, tail: tail, contribution: reviewed.Contribution{
		CourseID: report.CourseID, ReportSHA256: report.ReportSHA256, CandidateID: candidate,
		ReviewHash: hash, Sources: reviewed.SortSources(sources)}}, nil, nil
}
