package epistemic

import "testing"

func TestParse(t *testing.T) {
	for _, s := range All() {
		got, err := Parse(string(s))
		if err != nil || got != s || !s.Valid() {
			t.Errorf("Parse(%q) = %q, %v", s, got, err)
		}
	}
	if got, err := Parse(""); err != nil || got != Speculative {
		t.Errorf("empty status parses to %q, %v; want speculative", got, err)
	}
	for _, bad := range []string{"COHERENT", "final", "frozen", "axiom", "reviewed", " coherent"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// The enum is pinned to exactly four values; adding a fifth (a "final" or
// "axiom" tier) must break this test.
func TestExactlyFourStatuses(t *testing.T) {
	if got := All(); len(got) != 4 {
		t.Fatalf("statuses: %v", got)
	}
}

func TestMergeAndLoadBearing(t *testing.T) {
	if MoreDoubtful(Coherent, Speculative) != Speculative || MoreDoubtful(Contested, Speculative) != Contested ||
		MoreDoubtful(Falsified, Contested) != Falsified || MoreDoubtful(Coherent, Coherent) != Coherent {
		t.Error("merge does not keep the more doubtful status")
	}
	if !Speculative.LoadBearing() || !Coherent.LoadBearing() || Contested.LoadBearing() || Falsified.LoadBearing() {
		t.Error("load-bearing statuses wrong")
	}
}

func TestPasses(t *testing.T) {
	cases := []struct {
		s, min Status
		want   bool
	}{
		{Falsified, "", false}, {Falsified, Falsified, false}, {Coherent, Coherent, true},
		{Speculative, Coherent, false}, {Speculative, Speculative, true}, {Contested, Speculative, false},
		{Contested, "", true}, {Speculative, "", true},
	}
	for _, c := range cases {
		if got := Passes(c.s, c.min); got != c.want {
			t.Errorf("Passes(%q, %q) = %v", c.s, c.min, got)
		}
	}
}
