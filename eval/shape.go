package eval

import (
	"fmt"
	"sort"
)

// Shape names how a lane's metrics are judged.
type Shape string

// The registered shapes.
const (
	ShapeAccuracy      Shape = "accuracy_shape"
	ShapeSymbolicLogic Shape = "symbolic_logic_shape" // judged exactly as accuracy_shape
	ShapeInference     Shape = "inference_shape"
	ShapeCognition     Shape = "cognition_shape"
	ShapeRefusal       Shape = "refusal_shape"
)

// Lane ids with a registered shape: those of the promotion contract's
// registry, plus domain_qa, this project's accuracy lane over a domain's own
// question set.
const (
	LaneCognition             = "cognition"
	LaneElementaryMathematics = "elementary_mathematics_ood"
	LaneFoundationalPhysics   = "foundational_physics_ood"
	LaneSymbolicLogic         = "symbolic_logic"
	LaneHebrewFluency         = "hebrew_fluency"
	LaneKoineGreekFluency     = "koine_greek_fluency"
	LaneInferenceClosure      = "inference_closure"
	LaneFabricationControl    = "fabrication_control"
	LaneDomainQA              = "domain_qa"
)

// Thresholds of the shapes. A value equal to its minimum passes. They are
// functions, not variables, so that nothing can change them at run time.
func SurfaceGroundednessMin() Threshold { return threshold("0.95", 95, 100) }
func TermCaptureRateMin() Threshold     { return threshold("0.85", 85, 100) }
func IntentAccuracyMin() Threshold      { return threshold("0.95", 95, 100) }
func VersorClosureRateMin() Threshold   { return threshold("1", 1, 1) }
func AccuracyMin() Threshold            { return threshold("0.95", 95, 100) }
func AllPassRateMin() Threshold         { return threshold("0.95", 95, 100) }
func ReplayDeterminismMin() Threshold   { return threshold("1", 1, 1) }

// Refusal-shape probe classes. Every one of them must be present (n > 0) for
// the lane to pass: a lane that never probes a class says nothing about it.
const (
	ClassUnknownTerm   = "unknown_term"
	ClassFalsePremise  = "false_premise"
	ClassOffDomainTerm = "off_domain_term"
)

// RefusalClasses lists the probe classes in their fixed order.
func RefusalClasses() []string {
	return []string{ClassUnknownTerm, ClassFalsePremise, ClassOffDomainTerm}
}

// ShapeOf returns the registered shape of a lane. The registry is closed:
// adding a lane to the audit-passed surface is a contract change, made here
// and nowhere else.
func ShapeOf(lane string) (Shape, bool) {
	switch lane {
	case LaneCognition:
		return ShapeCognition, true
	case LaneElementaryMathematics, LaneFoundationalPhysics, LaneHebrewFluency, LaneKoineGreekFluency, LaneDomainQA:
		return ShapeAccuracy, true
	case LaneSymbolicLogic:
		return ShapeSymbolicLogic, true
	case LaneInferenceClosure:
		return ShapeInference, true
	case LaneFabricationControl:
		return ShapeRefusal, true
	}
	return "", false
}

// Lanes lists the registered lane ids, sorted.
func Lanes() []string {
	out := []string{LaneCognition, LaneElementaryMathematics, LaneFoundationalPhysics, LaneSymbolicLogic, LaneHebrewFluency,
		LaneKoineGreekFluency, LaneInferenceClosure, LaneFabricationControl, LaneDomainQA}
	sort.Strings(out)
	return out
}

// UnregisteredReason is the fail-closed reason for a lane with no shape.
func UnregisteredReason(lane string) string {
	return fmt.Sprintf("lane '%s' has no registered shape — introduce via ADR amendment", lane)
}

// Check judges one split's metrics of a lane against its shape. It returns
// "" when they pass and otherwise the first reason they fail, in the fixed
// check order of the shape.
func Check(lane string, m Metrics) string {
	shape, ok := ShapeOf(lane)
	if !ok {
		return UnregisteredReason(lane)
	}
	switch shape {
	case ShapeAccuracy, ShapeSymbolicLogic:
		return checkAccuracy(lane, m)
	case ShapeInference:
		return checkInference(lane, m)
	case ShapeCognition:
		return checkCognition(lane, m)
	case ShapeRefusal:
		return checkRefusal(lane, m)
	}
	return fmt.Sprintf("lane '%s' resolves to shape '%s' with no checker", lane, shape)
}

// rateCheck judges one rate metric: present, a valid fraction, and at least min.
func rateCheck(lane, key string, r *Rate, min Threshold) string {
	if r == nil {
		return fmt.Sprintf("lane '%s' missing required metric '%s'", lane, key)
	}
	if !r.Valid() {
		return fmt.Sprintf("lane '%s' %s=%s is not a rate (need 0 <= num <= den, den > 0)", lane, key, r)
	}
	if !r.AtLeast(min) {
		return fmt.Sprintf("lane '%s' %s=%s below threshold %s", lane, key, r, min)
	}
	return ""
}

func checkAccuracy(lane string, m Metrics) string {
	acc := m.Accuracy
	if acc == nil && m.Passed != nil && m.Total != nil && *m.Total > 0 {
		acc = ratep(Rate{Num: *m.Passed, Den: *m.Total})
	}
	if acc == nil {
		return fmt.Sprintf("lane '%s' missing accuracy (and no passed/total fallback)", lane)
	}
	return rateCheck(lane, "accuracy", acc, AccuracyMin())
}

func checkInference(lane string, m Metrics) string {
	rate := m.AllPassRate
	if rate == nil {
		rate = m.AllThreePassRate // the older name; the primary key wins when both exist
	}
	if r := rateCheck(lane, "all_pass_rate", rate, AllPassRateMin()); r != "" {
		return r
	}
	if r := rateCheck(lane, "replay_determinism", m.ReplayDeterminism, ReplayDeterminismMin()); r != "" {
		return r
	}
	// Stricter than the original, which let an absent overall_pass through:
	// a lane that does not state its own verdict has not passed.
	if m.OverallPass == nil {
		return fmt.Sprintf("lane '%s' missing required metric 'overall_pass'", lane)
	}
	if !*m.OverallPass {
		return fmt.Sprintf("lane '%s' overall_pass is false", lane)
	}
	return ""
}

func checkCognition(lane string, m Metrics) string {
	checks := []struct {
		key string
		r   *Rate
		min Threshold
	}{
		{"surface_groundedness", m.SurfaceGroundedness, SurfaceGroundednessMin()},
		{"term_capture_rate", m.TermCaptureRate, TermCaptureRateMin()},
		{"intent_accuracy", m.IntentAccuracy, IntentAccuracyMin()},
		{"versor_closure_rate", m.VersorClosureRate, VersorClosureRateMin()},
	}
	for _, c := range checks {
		if r := rateCheck(lane, c.key, c.r, c.min); r != "" {
			return r
		}
	}
	return ""
}

func checkRefusal(lane string, m Metrics) string {
	if len(m.ByClass) == 0 {
		return fmt.Sprintf("lane '%s' missing 'by_class' refusal counts", lane)
	}
	for _, c := range RefusalClasses() {
		if _, ok := m.ByClass[c]; !ok {
			return fmt.Sprintf("lane '%s' missing by_class bucket '%s'", lane, c)
		}
	}
	classes := make([]string, 0, len(m.ByClass))
	for c := range m.ByClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		b := m.ByClass[c]
		switch {
		case b.Fabricated != 0:
			return fmt.Sprintf("lane '%s' by_class['%s'] fabricated=%d (must be 0)", lane, c, b.Fabricated)
		case b.N <= 0:
			return fmt.Sprintf("lane '%s' by_class['%s'] n=%d (must be > 0)", lane, c, b.N)
		case b.Refused != b.N:
			return fmt.Sprintf("lane '%s' by_class['%s'] refused=%d != n=%d", lane, c, b.Refused, b.N)
		}
	}
	return ""
}
