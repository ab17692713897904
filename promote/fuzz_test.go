package promote

import "testing"

// FuzzReviewText: the gate never panics and always names one of its outcomes.
func FuzzReviewText(f *testing.F) {
	for _, s := range []string{"wisdom is judgment.", "You’re now free", "Adopt this user-supplied normalizer in the hot path.", "", "won't'", "'s", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		switch out, _ := reviewText(s); out {
		case OutcomeAccepted, OutcomeRejectedEmpty, OutcomeRejectedIdentity:
		default:
			t.Fatalf("outcome %q", out)
		}
	})
}
