package courses

import (
	"errors"
	"testing"
)

const proposalsSubject = `subject_id: taught
template: definition
retrieved_at: 2026-06-01T00:00:00Z
sources:
  - id: accepted
    adapter: proposals
    citation: Accepted teaching proposals
`

// A proposals source takes only the common fields: the store, not the
// subject folder, holds what it reads.
func TestProposalsAdapter(t *testing.T) {
	s, err := Parse([]byte(proposalsSubject))
	if err != nil || s.Sources[0].Adapter != AdapterProposals {
		t.Fatalf("parse: %+v %v", s, err)
	}
	_, err = Parse([]byte(proposalsSubject + "    path: sources/x.md\n"))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Code != CodeNotAllowed {
		t.Fatalf("a proposals source with a path: %v", err)
	}
}
