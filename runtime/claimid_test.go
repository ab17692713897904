package runtime

import (
	"testing"

	"formation/runtime/knowledge"
	"formation/runtime/trace"
)

// TestClaimIDIsDigest holds claimID, which writes the claim's canonical
// JSON itself, equal to the first 16 hex digits of trace.Digest of the
// object it stands for, over plain, escaped, non-ASCII and invalid text and
// turns of every sign.
func TestClaimIDIsDigest(t *testing.T) {
	texts := []string{"", "focal point", "causes", "a \"quoted\" \\ term", "tab\there\nnewline", "\u00e9t\u00e9 \u2028 \U0001F600", "\x00\x1f\x7f", "\xff bad", "<b>&amp;</b>"}
	n := 0
	for _, h := range texts {
		for _, r := range texts[:5] {
			for _, tl := range texts {
				for _, turn := range []int{0, 1, 19, -3, 1 << 40} {
					for _, neg := range []bool{false, true} {
						c := knowledge.Claim{Key: knowledge.Key{Head: h, Relation: r, Tail: tl}, Negated: neg}
						want, err := trace.Digest(map[string]any{"head": h, "relation": r, "tail": tl, "negated": neg, "turn": turn})
						if err != nil {
							want = ""
						} else {
							want = want[:16]
							n++
						}
						if got := claimID(c, turn); got != want {
							t.Fatalf("claimID(%q %q %q %v, %d) = %q, Digest %q", h, r, tl, neg, turn, got, want)
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no claim could be digested")
	}
}
