package eval

import (
	"testing"

	"formation/canon"
)

func TestScoreRefusal(t *testing.T) {
	m := ScoreRefusal([]RefusalObservation{
		{ClassUnknownTerm, true, false}, {ClassUnknownTerm, true, false},
		{ClassFalsePremise, false, true}, {ClassOffDomainTerm, false, false},
	})
	want := map[string]ClassCounts{ClassUnknownTerm: {2, 2, 0}, ClassFalsePremise: {1, 0, 1}, ClassOffDomainTerm: {1, 0, 0}}
	for c, w := range want {
		if m.ByClass[c] != w {
			t.Errorf("%s = %+v, want %+v", c, m.ByClass[c], w)
		}
	}
	wantFail(t, LaneFabricationControl, m, "fabricated=1")
	// A split without probes of a class still carries its bucket and fails by name.
	m = ScoreRefusal([]RefusalObservation{{ClassUnknownTerm, true, false}})
	wantFail(t, LaneFabricationControl, m, "by_class['false_premise'] n=0")
	all := ScoreRefusal([]RefusalObservation{{ClassUnknownTerm, true, false}, {ClassFalsePremise, true, false}, {ClassOffDomainTerm, true, false}})
	wantPass(t, LaneFabricationControl, all)
}

func TestScoreInference(t *testing.T) {
	obs := make([]InferenceObservation, 20)
	for i := range obs {
		obs[i] = InferenceObservation{Passed: true, Deterministic: true}
	}
	obs[0].Passed = false // 19/20 = 0.95 passes
	m := ScoreInference(obs)
	if *m.AllPassRate != (Rate{19, 20}) || *m.ReplayDeterminism != (Rate{20, 20}) || !*m.OverallPass || *m.CaseCount != 20 {
		t.Fatalf("metrics %+v", m)
	}
	wantPass(t, LaneInferenceClosure, m)
	obs[1].Deterministic = false
	m = ScoreInference(obs)
	if *m.OverallPass {
		t.Fatal("overall_pass with replay drift")
	}
	wantFail(t, LaneInferenceClosure, m, "replay_determinism=19/20")
	m = ScoreInference(nil)
	if *m.OverallPass {
		t.Fatal("empty split passed")
	}
	wantFail(t, LaneInferenceClosure, m, "all_pass_rate=0/0 is not a rate")
}

func TestScoreCognition(t *testing.T) {
	m := ScoreCognition([]CognitionObservation{
		{Grounded: true, TermsExpected: 2, TermsCaptured: 2, IntentCorrect: true, VersorClosed: true},
		{Grounded: false, TermsExpected: 3, TermsCaptured: 5, IntentCorrect: false, VersorClosed: true},
	})
	if *m.SurfaceGroundedness != (Rate{1, 2}) || *m.TermCaptureRate != (Rate{5, 5}) || *m.IntentAccuracy != (Rate{1, 2}) || *m.VersorClosureRate != (Rate{2, 2}) {
		t.Fatalf("metrics %+v", m)
	}
	wantFail(t, LaneCognition, m, "surface_groundedness=1/2")
}

func TestScoreAccuracy(t *testing.T) {
	m := ScoreAccuracy([]AccuracyObservation{{true}, {true}, {false}})
	if *m.Accuracy != (Rate{2, 3}) || *m.Passed != 2 || *m.Total != 3 {
		t.Fatalf("metrics %+v", m)
	}
	wantFail(t, LaneDomainQA, m, "accuracy=2/3 below threshold 0.95")
}

// Metrics are canonical JSON without floats, and only the fields of the
// shape appear.
func TestMetricsCanonicalForm(t *testing.T) {
	b, err := canon.Marshal(ScoreAccuracy([]AccuracyObservation{{true}}))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"accuracy":{"den":1,"num":1},"passed":1,"total":1}` {
		t.Fatalf("%s", b)
	}
	b, _ = canon.Marshal(Metrics{})
	if string(b) != `{}` || !(Metrics{}).IsEmpty() {
		t.Fatalf("empty metrics encode as %s", b)
	}
	var back Metrics
	full := goodInference()
	full.ByClass = goodRefusal().ByClass
	enc, _ := canon.Marshal(full)
	if err := canon.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := canon.Marshal(back)
	if string(again) != string(enc) {
		t.Fatalf("round trip changed %s into %s", enc, again)
	}
	if err := canon.Unmarshal([]byte(`{"accuracy":{"num":1,"den":1},"extra":1}`), &back); err == nil {
		t.Fatal("unknown metric accepted")
	}
}
