package promote

import (
	"fmt"

	"formation/artifact"
	"formation/canon"
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

// reviewed is a candidate after review: its normal-form key fields and its
// contribution.
type reviewed struct {
	head, relation, tail string
	contribution         Contribution
}

// buildChange reviews every concept, relation and counter-claim of the
// validated set for the report and returns the change to apply, or every
// rejection. Each candidate enters SPECULATIVE (the Forge validates, it does
// not review); an accepted one leaves COHERENT (a counter-claim: FALSIFIED).
func buildChange(report artifact.MasteryReport, subjectID, replaces string, vts artifact.ValidatedTripleSet) (change, []rejection, error) {
	c := change{
		course: CourseRecord{CourseID: report.CourseID, SubjectID: subjectID, ReportSHA256: report.ReportSHA256,
			IssuedAt: report.IssuedAt, ValidatedSetSHA: report.ValidatedSetSHA},
		replaces: replaces,
	}
	gate := review.NewGate()
	var rejected []rejection
	for _, con := range vts.Concepts {
		id := map[string]any{"term": con.CanonicalTerm, "definition": con.Definition, "report": report.ReportSHA256}
		r, rej, err := reviewCandidate(gate, con.CanonicalTerm+": "+con.Definition, id, con.Sources, report,
			epistemic.Coherent, text.Term(con.CanonicalTerm), "", "")
		if err != nil {
			return change{}, nil, err
		}
		if rej != nil {
			rejected = append(rejected, *rej)
			continue
		}
		c.concepts = append(c.concepts, ConceptRecord{Term: r.head, Definition: con.Definition,
			EpistemicStatus: epistemic.Coherent, Contributions: []Contribution{r.contribution}})
	}
	var err error
	if c.triples, rejected, err = reviewTriples(gate, vts.Relations, false, report, rejected); err != nil {
		return change{}, nil, err
	}
	if c.counters, rejected, err = reviewTriples(gate, vts.Counters, true, report, rejected); err != nil {
		return change{}, nil, err
	}
	return c, rejected, nil
}

func reviewTriples(gate *review.Gate, rs []artifact.RelationCandidate, counter bool, report artifact.MasteryReport, rejected []rejection) ([]TripleRecord, []rejection, error) {
	status := epistemic.Coherent
	if counter {
		status = epistemic.Falsified
	}
	var out []TripleRecord
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
		out = append(out, TripleRecord{Head: r.head, Relation: r.relation, Tail: r.tail,
			EpistemicStatus: status, Contributions: []Contribution{r.contribution}})
	}
	return out, rejected, nil
}

// reviewCandidate runs the runtime's review gate on one candidate's text.
// relation and tail are empty for a concept, whose key is its term (head).
func reviewCandidate(gate *review.Gate, sentence string, id map[string]any, sources []artifact.SourceRef,
	report artifact.MasteryReport, status epistemic.Status, head, relation, tail string) (reviewed, *rejection, error) {
	verdict := gate.Verdict(sentence)
	outcome, fired := verdict.Outcome, verdict.Fired()
	isConcept := relation == "" && tail == ""
	if outcome == review.Accepted && (head == "" || !isConcept && (relation == "" || tail == "")) {
		outcome, fired = review.RejectedEmpty, "a term is empty in normal form"
	}
	switch outcome {
	case review.RejectedEmpty:
		return reviewed{}, &rejection{ReasonReviewEmpty, sentence, fired}, nil
	case review.RejectedIdentity:
		return reviewed{}, &rejection{ReasonReviewIdentity, sentence, fired}, nil
	}
	candidate, err := canon.SHA256Hex(id)
	if err != nil {
		return reviewed{}, nil, fmt.Errorf("promote: candidate id: %w", err)
	}
	hash, err := canon.SHA256Hex(map[string]any{"candidate_id": candidate, "correction_text": sentence,
		"outcome": outcome, "epistemic_status": string(status)})
	if err != nil {
		return reviewed{}, nil, fmt.Errorf("promote: review hash: %w", err)
	}
	return reviewed{head: head, relation: relation, tail: tail, contribution: Contribution{
		CourseID: report.CourseID, ReportSHA256: report.ReportSHA256, CandidateID: candidate,
		ReviewHash: hash, Sources: sortSources(sources)}}, nil, nil
}
