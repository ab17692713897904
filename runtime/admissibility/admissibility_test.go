package admissibility

import (
	"errors"
	"math"
	"testing"

	"formation/runtime/algebra"
	"formation/runtime/refusal"
)

// scalarCandidates makes candidates whose score against the blade 1 is
// exactly the given value (CGAInner(s·1, 1) = s).
func scalarCandidates(scores ...float64) []Candidate {
	out := make([]Candidate, len(scores))
	for i, s := range scores {
		out[i] = Candidate{Index: i, Label: string(rune('a' + i)), Versor: algebra.Scalar(s)}
	}
	return out
}

func TestThresholdIsStrict(t *testing.T) {
	scored := Score(scalarCandidates(0.5, 0, -0.2, 1e-12), algebra.One())
	adm, rej := CheckThreshold(scored, 0)
	if len(adm) != 2 || adm[0].Index != 0 || adm[1].Index != 3 {
		t.Fatalf("admitted %+v", adm)
	}
	if len(rej) != 2 || rej[0].Index != 1 || rej[1].Index != 2 {
		t.Fatalf("rejected %+v: a score equal to the threshold must be rejected", rej)
	}
	if adm, _ := CheckThreshold(scored, 0.5); len(adm) != 0 {
		t.Fatalf("score 0.5 admitted at threshold 0.5: %+v", adm)
	}
}

func TestNullBladeScoresZero(t *testing.T) {
	for _, s := range Score(scalarCandidates(3, -3), algebra.Scalar(1e-9)) {
		if s.Score != 0 {
			t.Fatalf("null blade scored %v", s.Score)
		}
	}
}

func TestRankDescendingStableByIndex(t *testing.T) {
	ranked := Rank(Score(scalarCandidates(0.1, 0.7, 0.1, 0.7, -1), algebra.One()))
	want := []int{1, 3, 0, 2, 4}
	for i, r := range ranked {
		if r.Index != want[i] {
			t.Fatalf("ranking %+v, want indices %v", ranked, want)
		}
	}
}

func TestMarginGate(t *testing.T) {
	cases := []struct {
		name   string
		scores []float64
		margin float64
		admit  bool
		top    int
		gap    float64
	}{
		{"clear winner", []float64{0.9, 0.3}, 0.4, true, 0, 0.6},
		{"exactly the margin", []float64{0.5, 0.1, 0}, 0.4, true, 0, 0.4},
		{"too close", []float64{0.5, 0.2}, 0.4, false, 0, 0.3},
		{"top not positive", []float64{0, -0.9}, 0.4, false, 0, 0.9},
		{"single candidate", []float64{-0.3}, 0.4, true, 0, math.Inf(1)},
		{"tie at top", []float64{0.8, 0.8, 0.1}, 0.4, false, 0, 0},
		{"winner not first", []float64{0.1, 0.95}, 0.4, true, 1, 0.85},
	}
	for _, c := range cases {
		v := CheckMargin(Rank(Score(scalarCandidates(c.scores...), algebra.One())), c.margin)
		if v.Admitted != c.admit || v.Top == nil || v.Top.Index != c.top || math.Abs(v.Gap-c.gap) > 1e-12 && !math.IsInf(c.gap, 1) {
			t.Errorf("%s: verdict %+v", c.name, v)
		}
		if len(c.scores) > 1 && (v.Second == nil || v.Second.Score > v.Top.Score) {
			t.Errorf("%s: second %+v", c.name, v.Second)
		}
		if len(v.Ranked) != len(c.scores) || v.Reason == "" {
			t.Errorf("%s: evidence missing: %+v", c.name, v)
		}
	}
	if v := CheckMargin(nil, DefaultMargin); v.Admitted || v.Top != nil || v.Reason != "empty ranking" {
		t.Errorf("empty ranking: %+v", v)
	}
}

func TestRotorAdmissibility(t *testing.T) {
	r, _ := algebra.PlaneRotor(6, 0.3)
	f, _ := algebra.PlaneRotor(10, 0.2)
	if v := CheckRotor(r, f, algebra.MV{}); !v.Admitted || !math.IsInf(v.Score, 1) {
		t.Fatalf("no frame: %+v", v)
	}
	// The scalar part survives conjugation, so against the frame 1 the score is
	// F's scalar part: cos 0.2 > 0.
	if v := CheckRotor(r, f, algebra.One()); !v.Admitted || math.Abs(v.Score-math.Cos(0.2)) > 1e-12 {
		t.Fatalf("frame 1: %+v", v)
	}
	if v := CheckRotor(r, f, algebra.Scalar(-1)); v.Admitted {
		t.Fatalf("frame -1 admitted: %+v", v)
	}
	e5, _ := algebra.Blade(5, 1) // orthogonal to every even element: score 0
	if v := CheckRotor(r, f, e5); v.Admitted || v.Score != 0 {
		t.Fatalf("frame e5: %+v", v)
	}
	before := f
	CheckRotor(r, f, algebra.One())
	if f != before {
		t.Fatal("rotor check changed the field")
	}
}

func TestExhaustionError(t *testing.T) {
	err := error(Exhausted("relation:causes", 2, []Attempt{{Index: 0, Label: "x", Score: -1}}))
	var ee *ExhaustionError
	if !errors.As(err, &ee) || ee.Reason != refusal.InnerLoopExhaustion || ee.StepIndex != 2 || ee.RegionLabel != "relation:causes" {
		t.Fatalf("%+v", ee)
	}
	ee = Exhausted("r", 0, []Attempt{{Index: 0}, {Index: 1, Rotor: true}})
	if ee.Reason != refusal.RotorRejection || len(ee.RejectedAttempts) != 2 {
		t.Fatalf("rotor exhaustion %+v", ee)
	}
	if ee.Error() == "" || Exhausted("r", -1, nil).Error() == "" {
		t.Fatal("empty message")
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Off, "off": Off, "threshold": Threshold, "margin": Margin} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("Margin"); err == nil {
		t.Error("unknown mode accepted")
	}
}
