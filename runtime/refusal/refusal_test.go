package refusal

import "testing"

func TestClosedSet(t *testing.T) {
	seen := map[Reason]bool{}
	for _, r := range All() {
		if !r.Valid() || seen[r] || r == None {
			t.Errorf("reason %q invalid or repeated", r)
		}
		seen[r] = true
	}
	for _, must := range []Reason{"ungrounded_relation", "contradicted_claim", "identity_override",
		"inner_loop_exhaustion", "rotor_rejection", "safety_boundary", "empty_input", "identity_hard_block"} {
		if !seen[must] {
			t.Errorf("reason %q missing", must)
		}
	}
	if None.Valid() || Reason("recognition_refused").Valid() {
		t.Error("a reason outside the set is valid")
	}
}
