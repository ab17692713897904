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
