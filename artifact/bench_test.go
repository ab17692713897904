package artifact_test

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"formation/artifact"
	"formation/canon"
)

// syntheticVTS builds a ValidatedTripleSet of about size bytes of canonical
// JSON, shaped like the forge's output: relations with two sources each.
func syntheticVTS(size int) artifact.ValidatedTripleSet {
	v := artifact.ValidatedTripleSet{SubjectID: "bench.subject", SchemaVersion: artifact.SchemaVersion}
	for i := 0; ; i++ {
		src := []artifact.SourceRef{
			{SourceSHA: fmt.Sprintf("%064x", i), Span: fmt.Sprintf("Concept %d causes effect %d in the second paragraph of the source.", i, i+1), Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z"},
			{SourceSHA: fmt.Sprintf("%064x", i+1), Span: "A second, independent sentence that says the same thing in other words.", Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z"},
		}
		v.Relations = append(v.Relations, artifact.RelationCandidate{Head: fmt.Sprintf("concept %d", i), Relation: "causes", Tail: fmt.Sprintf("effect %d", i+1), Sources: src, State: artifact.StateValidated})
		if i%64 == 0 {
			if b, _ := canon.Marshal(v); len(b) >= size {
				return v
			}
		}
	}
}

// BenchmarkCanonVsSHA256 compares canonical encoding + SHA-256 of a 10 MB
// VTS-shaped artifact with raw SHA-256 over the same bytes; scripts/bench.sh
// prints the ratio of their throughputs.
func BenchmarkCanonVsSHA256(b *testing.B) {
	v := syntheticVTS(10 << 20)
	raw, err := canon.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode+sha256", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			if _, err := canon.SHA256Hex(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			sha256.Sum256(raw)
		}
	})
}
