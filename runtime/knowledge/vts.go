package knowledge

import (
	"formation/artifact"
	"formation/runtime/epistemic"
)

// LoadKnowledgeVTS reads a ValidatedTripleSet document (the Forge's output, in
// canonical JSON with the original's field names) strictly — unknown fields,
// wrong types, floats and duplicate keys are refused — and builds the index
// from it. Everything in a validated set is Speculative: the Forge validates,
// it does not review.
func LoadKnowledgeVTS(data []byte) (*Knowledge, error) {
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](data)
	if err != nil {
		return nil, &Error{Reason: ReasonDecode, Detail: err.Error()}
	}
	return FromVTS(vts)
}

// FromVTS builds one index from one or more validated sets (for example every
// course a subject has promoted). Relations, concepts and counters are used,
// and the sets' declared relations join the vocabulary (WithRelations);
// quarantined candidates and ordering hints are not knowledge and are ignored.
// A quarantined record inside the relations, concepts or counters lists is a
// malformed set and is refused.
func FromVTS(sets ...artifact.ValidatedTripleSet) (*Knowledge, error) {
	// Sized at once: grown record by record, a large set's records were
	// copied over and over (at 506,734 relations, 80 MB).
	nc, nt, nk := 0, 0, 0
	for _, vts := range sets {
		nc, nt, nk = nc+len(vts.Concepts), nt+len(vts.Relations), nk+len(vts.Counters)
	}
	concepts := make([]Concept, 0, nc)
	triples, counters := make([]Triple, 0, nt), make([]Triple, 0, nk)
	var declared []string
	for _, vts := range sets {
		declared = append(declared, vts.DeclaredRelations...)
		for _, c := range vts.Concepts {
			if c.State == artifact.StateQuarantined {
				return nil, errorf(ReasonQuarantined, "subject %q: concept %q is quarantined", vts.SubjectID, c.CanonicalTerm)
			}
			concepts = append(concepts, Concept{Term: c.CanonicalTerm, Definition: c.Definition,
				Sources: citations(c.Sources), Status: epistemic.Speculative})
		}
		var err error
		if triples, err = appendRelations(triples, vts.SubjectID, "relation", vts.Relations); err != nil {
			return nil, err
		}
		if counters, err = appendRelations(counters, vts.SubjectID, "counter", vts.Counters); err != nil {
			return nil, err
		}
	}
	k, err := NewKnowledge(concepts, triples, counters...)
	if err != nil {
		return nil, err
	}
	return k.WithRelations(declared...), nil
}

func appendRelations(dst []Triple, subject, what string, rs []artifact.RelationCandidate) ([]Triple, error) {
	for _, r := range rs {
		if r.State == artifact.StateQuarantined {
			return nil, errorf(ReasonQuarantined, "subject %q: %s (%s, %s, %s) is quarantined", subject, what, r.Head, r.Relation, r.Tail)
		}
		dst = append(dst, Triple{Head: r.Head, Relation: r.Relation, Tail: r.Tail,
			Sources: citations(r.Sources), Status: epistemic.Speculative})
	}
	return dst, nil
}

// citations converts source refs. The optional byte range is carried only
// when the ref names its text object, as artifact.SourceRef.HasSpanRange says.
func citations(refs []artifact.SourceRef) []Citation {
	out := make([]Citation, 0, len(refs))
	for _, r := range refs {
		c := Citation{SourceSHA: r.SourceSHA, Span: r.Span, Adapter: r.Adapter, RetrievedAt: r.RetrievedAt}
		if r.HasSpanRange() {
			c.TextSHA, c.Start, c.End = r.TextSHA, int(*r.Start), int(*r.End)
		}
		out = append(out, c)
	}
	return out
}
