package eval

import (
	"strings"
	"testing"
)

func r(n, d int64) *Rate { return &Rate{n, d} }

func goodCognition() Metrics {
	return Metrics{SurfaceGroundedness: r(97, 100), TermCaptureRate: r(90, 100), IntentAccuracy: r(96, 100), VersorClosureRate: r(20, 20)}
}

func goodRefusal() Metrics {
	return Metrics{ByClass: map[string]ClassCounts{
		ClassUnknownTerm: {3, 3, 0}, ClassFalsePremise: {3, 3, 0}, ClassOffDomainTerm: {3, 3, 0}}}
}

func goodInference() Metrics {
	return Metrics{AllPassRate: r(98, 100), ReplayDeterminism: r(1, 1), OverallPass: boolp(true)}
}

func goodAccuracy() Metrics { return Metrics{Accuracy: r(39, 40), Passed: intp(39), Total: intp(40)} }

func wantPass(t *testing.T, lane string, m Metrics) {
	t.Helper()
	if got := Check(lane, m); got != "" {
		t.Fatalf("%s: %q, want pass", lane, got)
	}
}

func wantFail(t *testing.T, lane string, m Metrics, want string) {
	t.Helper()
	got := Check(lane, m)
	if got == "" || !strings.Contains(got, want) {
		t.Fatalf("%s: reason %q, want it to contain %q", lane, got, want)
	}
}

func TestRegistryIsClosed(t *testing.T) {
	want := map[string]Shape{
		"cognition": ShapeCognition, "elementary_mathematics_ood": ShapeAccuracy, "foundational_physics_ood": ShapeAccuracy,
		"symbolic_logic": ShapeSymbolicLogic, "hebrew_fluency": ShapeAccuracy, "koine_greek_fluency": ShapeAccuracy,
		"inference_closure": ShapeInference, "fabrication_control": ShapeRefusal, "domain_qa": ShapeAccuracy,
	}
	if len(Lanes()) != len(want) {
		t.Fatalf("registry has %v", Lanes())
	}
	for lane, shape := range want {
		if got, ok := ShapeOf(lane); !ok || got != shape {
			t.Errorf("%s → %q", lane, got)
		}
	}
	for _, lane := range []string{"definitely_not_a_real_lane", "gsm8k_math", ""} {
		if _, ok := ShapeOf(lane); ok {
			t.Errorf("%q resolves", lane)
		}
	}
	wantFail(t, "synthetic_unregistered_lane", goodAccuracy(), "lane 'synthetic_unregistered_lane' has no registered shape — introduce via ADR amendment")
}

// Every shape of the registry has a checker that is reached by some lane.
func TestEveryShapeChecked(t *testing.T) {
	used := map[Shape]bool{}
	for _, l := range Lanes() {
		s, _ := ShapeOf(l)
		used[s] = true
		if strings.Contains(Check(l, Metrics{}), "no checker") {
			t.Errorf("lane %s: shape %s has no checker", l, s)
		}
	}
	for _, s := range []Shape{ShapeAccuracy, ShapeSymbolicLogic, ShapeInference, ShapeCognition, ShapeRefusal} {
		if !used[s] {
			t.Errorf("shape %s unused", s)
		}
	}
}

func TestThresholdConstants(t *testing.T) {
	cases := []struct {
		got  Threshold
		want string
	}{{SurfaceGroundednessMin(), "0.95"}, {TermCaptureRateMin(), "0.85"}, {IntentAccuracyMin(), "0.95"},
		{VersorClosureRateMin(), "1"}, {AccuracyMin(), "0.95"}, {AllPassRateMin(), "0.95"}, {ReplayDeterminismMin(), "1"},
		{Percent(85), "0.85"}, {Percent(90), "0.9"}, {Percent(100), "1"}, {Percent(0), "0"}, {Percent(250), "1"}}
	for _, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("threshold %s, want %s", c.got, c.want)
		}
		parsed, err := ParseThreshold(c.want)
		if err != nil || parsed.String() != c.want {
			t.Errorf("%s does not parse back: %v", c.want, err)
		}
		// The written decimal and the fraction agree at the boundary.
		if !NewRate(parsed.num, parsed.den).AtLeast(c.got) || !NewRate(c.got.num, c.got.den).AtLeast(parsed) {
			t.Errorf("%s: text and fraction disagree", c.want)
		}
	}
}

func TestCognitionShape(t *testing.T) {
	wantPass(t, "cognition", goodCognition())
	edge := goodCognition()
	edge.SurfaceGroundedness, edge.TermCaptureRate = r(95, 100), r(17, 20) // exactly at the minimum passes
	wantPass(t, "cognition", edge)
	cases := []struct {
		name   string
		mutate func(*Metrics)
		want   string
	}{
		{"grounded missing", func(m *Metrics) { m.SurfaceGroundedness = nil }, "missing required metric 'surface_groundedness'"},
		{"grounded low", func(m *Metrics) { m.SurfaceGroundedness = r(94, 100) }, "surface_groundedness=94/100 below threshold 0.95"},
		{"terms low", func(m *Metrics) { m.TermCaptureRate = r(84, 100) }, "term_capture_rate=84/100 below threshold 0.85"},
		{"terms missing", func(m *Metrics) { m.TermCaptureRate = nil }, "missing required metric 'term_capture_rate'"},
		{"intent low", func(m *Metrics) { m.IntentAccuracy = r(18, 20) }, "intent_accuracy=18/20 below threshold 0.95"},
		{"intent missing", func(m *Metrics) { m.IntentAccuracy = nil }, "missing required metric 'intent_accuracy'"},
		{"versor open", func(m *Metrics) { m.VersorClosureRate = r(19, 20) }, "versor_closure_rate=19/20 below threshold 1"},
		{"versor missing", func(m *Metrics) { m.VersorClosureRate = nil }, "missing required metric 'versor_closure_rate'"},
		{"zero denominator", func(m *Metrics) { m.TermCaptureRate = r(0, 0) }, "term_capture_rate=0/0 is not a rate"},
		{"over one", func(m *Metrics) { m.IntentAccuracy = r(3, 2) }, "intent_accuracy=3/2 is not a rate"},
		{"negative", func(m *Metrics) { m.IntentAccuracy = r(-1, 2) }, "is not a rate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := goodCognition()
			c.mutate(&m)
			wantFail(t, "cognition", m, c.want)
		})
	}
}

func TestAccuracyShape(t *testing.T) {
	wantPass(t, "domain_qa", goodAccuracy())
	wantPass(t, "elementary_mathematics_ood", Metrics{Passed: intp(19), Total: intp(20)}) // the fallback, at exactly 0.95
	wantPass(t, "symbolic_logic", goodAccuracy())
	wantFail(t, "domain_qa", Metrics{Accuracy: r(18, 20), Passed: intp(20), Total: intp(20)}, "accuracy=18/20 below threshold 0.95") // accuracy wins
	wantFail(t, "domain_qa", Metrics{Passed: intp(18), Total: intp(20)}, "accuracy=18/20 below threshold 0.95")
	wantFail(t, "domain_qa", Metrics{}, "missing accuracy (and no passed/total fallback)")
	wantFail(t, "domain_qa", Metrics{Passed: intp(0), Total: intp(0)}, "missing accuracy (and no passed/total fallback)")
	wantFail(t, "domain_qa", Metrics{Passed: intp(21), Total: intp(20)}, "is not a rate")
	wantFail(t, "symbolic_logic", Metrics{Accuracy: r(1, 2)}, "below threshold 0.95")
}

func TestInferenceShape(t *testing.T) {
	wantPass(t, "inference_closure", goodInference())
	wantPass(t, "inference_closure", Metrics{AllThreePassRate: r(1, 1), ReplayDeterminism: r(1, 1), OverallPass: boolp(true)})
	cases := []struct {
		name string
		m    Metrics
		want string
	}{
		{"no rate", Metrics{ReplayDeterminism: r(1, 1), OverallPass: boolp(true)}, "missing required metric 'all_pass_rate'"},
		{"primary key wins", Metrics{AllPassRate: r(90, 100), AllThreePassRate: r(1, 1), ReplayDeterminism: r(1, 1), OverallPass: boolp(true)}, "all_pass_rate=90/100 below threshold"},
		{"low rate", Metrics{AllPassRate: r(1, 2), ReplayDeterminism: r(1, 1), OverallPass: boolp(true)}, "all_pass_rate=1/2 below threshold 0.95"},
		{"no replay", Metrics{AllPassRate: r(1, 1), OverallPass: boolp(true)}, "missing required metric 'replay_determinism'"},
		{"replay drift", Metrics{AllPassRate: r(1, 1), ReplayDeterminism: r(99, 100), OverallPass: boolp(true)}, "replay_determinism=99/100 below threshold 1"},
		{"no verdict", Metrics{AllPassRate: r(1, 1), ReplayDeterminism: r(1, 1)}, "missing required metric 'overall_pass'"},
		{"verdict false", Metrics{AllPassRate: r(1, 1), ReplayDeterminism: r(1, 1), OverallPass: boolp(false)}, "overall_pass is false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantFail(t, "inference_closure", c.m, c.want) })
	}
}

func TestRefusalShape(t *testing.T) {
	wantPass(t, "fabrication_control", goodRefusal())
	cases := []struct {
		name   string
		mutate func(map[string]ClassCounts)
		want   string
	}{
		{"fabricated", func(b map[string]ClassCounts) { b[ClassUnknownTerm] = ClassCounts{3, 2, 1} }, "by_class['unknown_term'] fabricated=1 (must be 0)"},
		{"answered", func(b map[string]ClassCounts) { b[ClassFalsePremise] = ClassCounts{3, 2, 0} }, "by_class['false_premise'] refused=2 != n=3"},
		{"empty class", func(b map[string]ClassCounts) { b[ClassOffDomainTerm] = ClassCounts{} }, "by_class['off_domain_term'] n=0 (must be > 0)"},
		{"missing class", func(b map[string]ClassCounts) { delete(b, ClassOffDomainTerm) }, "missing by_class bucket 'off_domain_term'"},
		{"extra class fabricated", func(b map[string]ClassCounts) { b["phantom_endpoint"] = ClassCounts{1, 0, 1} }, "by_class['phantom_endpoint'] fabricated=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := goodRefusal()
			c.mutate(m.ByClass)
			wantFail(t, "fabrication_control", m, c.want)
		})
	}
	wantFail(t, "fabrication_control", Metrics{}, "missing 'by_class' refusal counts")
}

func TestRateParsingAndComparison(t *testing.T) {
	for _, s := range []string{"0/1", "19/20", "5/5"} {
		if _, err := ParseRate(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"", "1", "1/0", "3/2", "-1/2", "1.0/2", "1 /2", "a/b"} {
		if _, err := ParseRate(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
	for _, s := range []string{"", ".5", "1.5", "0.1234567890", "x"} {
		if _, err := ParseThreshold(s); err == nil {
			t.Errorf("threshold %q parsed", s)
		}
	}
	// Exactness: 17/20 is exactly 0.85; 1699999999/2000000000 is just below.
	if !NewRate(17, 20).AtLeast(TermCaptureRateMin()) || NewRate(1699999999, 2000000000).AtLeast(TermCaptureRateMin()) {
		t.Fatal("inexact comparison")
	}
	big := int64(1) << 62
	if !NewRate(big, big).AtLeast(VersorClosureRateMin()) || NewRate(big-1, big).AtLeast(VersorClosureRateMin()) {
		t.Fatal("overflow in comparison")
	}
}
