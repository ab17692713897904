package identity

import (
	"math"
	"testing"

	"formation/runtime/algebra"
	"formation/runtime/field"
)

var defaultAxes = []Axis{{ID: "truthfulness", Direction: [3]float64{1, 0, 0}}, {ID: "coherence", Direction: [3]float64{0, 1, 0}},
	{ID: "reverence", Direction: [3]float64{0, 0, 1}}}

func TestIdentityStateScoresOne(t *testing.T) {
	g, err := NewGeometry(defaultAxes, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Check(algebra.One(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Score != 1 || s.Alignment != 1 || s.LeakageRMS != 0 || s.MinSelfAlignment != 1 || s.Flagged || len(s.DeviationAxes) != 0 {
		t.Fatalf("identity state: %+v", s)
	}
}

// A rotation inside the e1e2 plane keeps every axis inside the span
// (no leakage) but a half-turn reverses truthfulness and coherence.
func TestRotationWithinTheSpan(t *testing.T) {
	g, _ := NewGeometry(defaultAxes, nil)
	quarter, _ := algebra.PlaneRotor(6, math.Pi/4) // rotates e1 → -e2 (90°)
	s, _ := g.Check(quarter, nil)
	if s.LeakageRMS > 1e-12 || math.Abs(s.MinSelfAlignment) > 1e-12 || s.Flagged {
		t.Fatalf("quarter turn in e12: %+v", s)
	}
	half, _ := algebra.PlaneRotor(6, math.Pi/2) // 180°
	s, _ = g.Check(half, nil)
	if s.LeakageRMS > 1e-12 || s.MinSelfAlignment > -1+1e-12 || !s.Flagged {
		t.Fatalf("half turn in e12: %+v", s)
	}
	if len(s.DeviationAxes) != 2 || s.DeviationAxes[0] != "truthfulness" || s.DeviationAxes[1] != "coherence" {
		t.Fatalf("deviations %v", s.DeviationAxes)
	}
}

// A rotation into e4 carries an axis out of the span: leakage sin 2θ.
func TestLeakageOutOfTheSpan(t *testing.T) {
	g, _ := NewGeometry(defaultAxes, nil)
	r, _ := algebra.PlaneRotor(8, 0.3) // e14 plane: e1 leaks into e4
	s, _ := g.Check(r, nil)
	want := math.Sqrt(math.Pow(math.Sin(0.6), 2) / 3)
	if math.Abs(s.LeakageRMS-want) > 1e-12 || math.Abs(s.Score-(1-want)) > 1e-12 {
		t.Fatalf("leakage %v, want %v", s.LeakageRMS, want)
	}
	if len(s.DeviationAxes) != 1 || s.DeviationAxes[0] != "truthfulness" || !s.Flagged || s.Alignment != s.Score {
		t.Fatalf("%+v", s)
	}
}

func TestBoundaryViolationsFlag(t *testing.T) {
	g, _ := NewGeometry(defaultAxes, nil)
	if s, _ := g.Check(algebra.One(), []string{"no_fabricated_source"}); !s.Flagged || s.Score != 1 {
		t.Fatalf("%+v", s)
	}
	empty, _ := NewGeometry(nil, nil)
	if s, _ := empty.Check(field.WordRotor("x"), nil); s.Score != 1 || s.Flagged {
		t.Fatalf("no axes: %+v", s)
	}
	if s, _ := empty.Check(algebra.One(), []string{"b"}); !s.Flagged {
		t.Fatal("no axes with a violation is not flagged")
	}
}

func TestRefusals(t *testing.T) {
	if _, err := NewGeometry([]Axis{{ID: "a", Direction: [3]float64{1, 0, 0}}, {ID: "b", Direction: [3]float64{1, 1e-9, 0}}}, nil); err == nil {
		t.Error("nearly parallel axes accepted")
	}
	if _, err := NewGeometry([]Axis{{ID: "z"}}, nil); err == nil {
		t.Error("zero axis accepted")
	}
	if _, err := NewGeometry([]Axis{{ID: "n", Direction: [3]float64{math.NaN(), 0, 0}}}, nil); err == nil {
		t.Error("NaN axis accepted")
	}
	g, _ := NewGeometry(defaultAxes, nil)
	bad := algebra.One()
	bad[3] = math.Inf(1)
	if _, err := g.Check(bad, nil); err == nil {
		t.Error("infinite state scored")
	}
}

func TestScoresStayInRangeForWordStates(t *testing.T) {
	g, _ := NewGeometry(defaultAxes, nil)
	for _, w := range []string{"light", "lens", "prism", "truth", "refraction"} {
		s, err := g.Check(field.WordRotor(w), nil)
		if err != nil || s.Score < 0 || s.Score > 1 || s.MinSelfAlignment < -1-1e-12 || s.MinSelfAlignment > 1+1e-12 {
			t.Fatalf("%s: %+v %v", w, s, err)
		}
	}
}
