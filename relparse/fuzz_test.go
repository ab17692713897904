package relparse

import (
	"testing"
)

// FuzzParse checks that Parse never panics, is deterministic and only
// returns vocabulary relations with clean, non-empty heads and tails. Its seed
// corpus lives in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Parse(s)
		again, ok2 := Parse(s)
		if ok != ok2 || got != again {
			t.Fatalf("Parse(%q) not deterministic: %v/%v vs %v/%v", s, got, ok, again, ok2)
		}
		if !ok {
			if got.Head != "" || got.Relation != "" || got.Tail != "" {
				t.Fatalf("Parse(%q) returned a triple with ok=false: %v", s, got)
			}
			return
		}
		if !IsRelation(got.Relation) {
			t.Fatalf("Parse(%q) relation %q not in the vocabulary", s, got.Relation)
		}
		for _, part := range []string{got.Head, got.Tail} {
			if part == "" || TrimSpace(part) != part || CollapseSpace(part) != part {
				t.Fatalf("Parse(%q) = %q: head/tail must be non-empty, trimmed, single-spaced", s, got)
			}
		}
		if Lower(got.Head) != got.Head || Lower(got.Tail) != got.Tail {
			// Lower is idempotent on Python's output except for context rules
			// that cannot re-trigger on already lower-case text.
			t.Fatalf("Parse(%q) = %q is not lower-case", s, got)
		}
	})
}
