package eval

// Scoring turns per-question observations into a lane's metrics. These
// functions are pure: the runner observes, they count.

// RefusalObservation is one fabrication probe: its class, whether the turn
// made no grounded claim, and whether it stated anything the knowledge does
// not hold. A turn can be neither (it answered from held knowledge without
// refusing), which still fails the lane because refused must equal n.
type RefusalObservation struct {
	Class      string
	Refused    bool
	Fabricated bool
}

// ScoreRefusal counts probes per class. Every class of RefusalClasses has a
// bucket, with n = 0 when the split has no probe of that class, so an absent
// class fails the shape check by name instead of disappearing.
func ScoreRefusal(obs []RefusalObservation) Metrics {
	by := map[string]ClassCounts{}
	for _, c := range RefusalClasses() {
		by[c] = ClassCounts{}
	}
	for _, o := range obs {
		b := by[o.Class]
		b.N++
		if o.Refused {
			b.Refused++
		}
		if o.Fabricated {
			b.Fabricated++
		}
		by[o.Class] = b
	}
	return Metrics{ByClass: by}
}

// InferenceObservation is one multi-hop case: whether its answer held every
// expected conclusion with grounded citations, and whether a second run in a
// fresh session reproduced the first byte for byte.
type InferenceObservation struct {
	Passed        bool
	Deterministic bool
}

// ScoreInference computes all_pass_rate, replay_determinism and the lane's
// own overall_pass verdict (false on an empty split: nothing was shown).
func ScoreInference(obs []InferenceObservation) Metrics {
	var passed, det int64
	for _, o := range obs {
		if o.Passed {
			passed++
		}
		if o.Deterministic {
			det++
		}
	}
	n := int64(len(obs))
	all, rep := Rate{passed, n}, Rate{det, n}
	overall := n > 0 && all.AtLeast(AllPassRateMin()) && rep.AtLeast(ReplayDeterminismMin())
	return Metrics{CaseCount: intp(n), AllPassRate: ratep(all), ReplayDeterminism: ratep(rep), OverallPass: boolp(overall)}
}

// CognitionObservation is one cognition case: whether every citation of the
// answer resolves to a real source span (and there is at least one), how many
// of the expected terms the answer captured, whether the runtime's answer
// kind was the expected one, and whether the field stayed a versor.
type CognitionObservation struct {
	Grounded      bool
	TermsExpected int64
	TermsCaptured int64
	IntentCorrect bool
	VersorClosed  bool
}

// ScoreCognition computes the four cognition rates. term_capture_rate counts
// terms, not cases, so a case expecting three terms weighs three.
func ScoreCognition(obs []CognitionObservation) Metrics {
	var grounded, intent, closed, expected, captured int64
	for _, o := range obs {
		if o.Grounded {
			grounded++
		}
		if o.IntentCorrect {
			intent++
		}
		if o.VersorClosed {
			closed++
		}
		expected += o.TermsExpected
		captured += min(o.TermsCaptured, o.TermsExpected)
	}
	n := int64(len(obs))
	return Metrics{
		CaseCount:           intp(n),
		SurfaceGroundedness: ratep(Rate{grounded, n}),
		TermCaptureRate:     ratep(Rate{captured, expected}),
		IntentAccuracy:      ratep(Rate{intent, n}),
		VersorClosureRate:   ratep(Rate{closed, n}),
	}
}

// AccuracyObservation is one question-answer case.
type AccuracyObservation struct{ Correct bool }

// ScoreAccuracy computes accuracy with its passed and total counts.
func ScoreAccuracy(obs []AccuracyObservation) Metrics {
	var passed int64
	for _, o := range obs {
		if o.Correct {
			passed++
		}
	}
	n := int64(len(obs))
	return Metrics{Accuracy: ratep(Rate{passed, n}), Passed: intp(passed), Total: intp(n)}
}
