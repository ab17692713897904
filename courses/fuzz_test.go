package courses

import (
	"errors"
	"testing"
)

// FuzzParseSubject feeds arbitrary bytes to the subject loader: it must
// either accept (and then the result must be internally consistent) or
// refuse with a *ValidationError, never panic.
func FuzzParseSubject(f *testing.F) {
	f.Add([]byte(validSubject))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("refusal is not a ValidationError with problems: %v", err)
			}
			return
		}
		if ValidSubjectID(s.SubjectID) != nil || !ValidTime(s.RetrievedAt) || len(s.Sources) == 0 {
			t.Fatalf("accepted an invalid subject: %+v", s)
		}
		if _, err := s.Digest(); err != nil {
			t.Fatalf("accepted subject has no digest: %v", err)
		}
	})
}

// FuzzParseQuestions: any bytes are either a valid question list or a
// ValidationError, never a panic.
func FuzzParseQuestions(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := ParseQuestions(data, "fuzz.jsonl")
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("refusal is not a ValidationError with problems: %v", err)
			}
			return
		}
		ids := map[string]bool{}
		for _, q := range qs {
			if ids[q.ID] || ValidSubjectID(q.ID) != nil {
				t.Fatalf("accepted a bad or repeated id %q", q.ID)
			}
			ids[q.ID] = true
		}
	})
}

// FuzzParseDomains: domains.yaml bytes either parse or give a typed
// validation error; never a panic.
func FuzzParseDomains(f *testing.F) {
	f.Add([]byte("schema_version: \"1.0.0\"\ndomains:\n  - id: optics\n    title: Optics\n    subjects: [optics]\n    operator_families:\n      - family: causal\n        relations: [causes]\n    eval_lanes:\n      - lane: cognition\n        version: v1\n        splits: [dev, public, holdout]\n"))
	f.Add([]byte("domains: [{id: x, id: y}]\n"))
	f.Add([]byte("schema_version: 1.0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDomains(data)
		if err == nil && d == nil {
			t.Fatal("nil domains without an error")
		}
	})
}
