// Package admissibility decides which destinations a walk step may take.
//
// A region constrains a step by a relation blade (a multivector every
// candidate is scored against with the CGA inner product) and, optionally, a
// frame versor (a half-space the field must stay in after the step's rotor is
// applied). Three checks are offered, all pure functions:
//
//   - Threshold: admit a candidate iff its score is strictly greater than the
//     threshold (the original's documented contract says ">"; its code
//     used ">=").
//   - Margin: rank candidates by score, descending, ties by candidate index
//     ascending; admit the top one iff it is the only candidate, or its score
//     is positive and exceeds the runner-up by at least the margin (default
//     0.4). The original's documented contract admits a single candidate
//     unconditionally; its code also required the score to be positive —
//     this package follows the contract.
//   - Rotor: with a frame, admit the rotor V iff CGAInner(V·F·~V, frame) > 0;
//     without one (nil or norm below 1e-8), admit.
//
// When a step has candidates and admits none, the walk refuses with an
// *ExhaustionError carrying the reason (inner_loop_exhaustion, or
// rotor_rejection when a rotor check rejected something at that step), the
// region's label, the step index and every rejected attempt. Nothing here
// changes a field state.
package admissibility

import (
	"fmt"
	"math"
	"sort"

	"formation/runtime/algebra"
	"formation/runtime/refusal"
)

// Mode selects the destination check of a walk.
type Mode string

// The modes. Off (the zero value) leaves walks unconstrained, which is the
// original's default (forward_graph_constraint=false).
const (
	Off       Mode = ""
	Threshold Mode = "threshold"
	Margin    Mode = "margin"
)

// Defaults of the original's documented contract.
const (
	DefaultThreshold = 0.0
	DefaultMargin    = 0.4
	// NullNorm is the norm under which a blade or frame counts as absent.
	NullNorm = 1e-8
)

// ParseMode reads a mode name; "" and "off" are Off.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "off":
		return Off, nil
	case string(Threshold), string(Margin):
		return Mode(s), nil
	}
	return Off, fmt.Errorf("admissibility: unknown mode %q (want off, threshold or margin)", s)
}

// Candidate is one possible destination.
type Candidate struct {
	Index  int    // stable candidate index: the tie-break
	Label  string // e.g. the destination term
	Versor algebra.MV
}

// Scored is a candidate with its score against the blade.
type Scored struct {
	Index int
	Label string
	Score float64
}

// Score scores every candidate against the blade, in input order. A null
// blade constrains nothing: every score is 0.
func Score(cands []Candidate, blade algebra.MV) []Scored {
	null := algebra.Norm(blade) < NullNorm
	out := make([]Scored, len(cands))
	for i, c := range cands {
		out[i] = Scored{Index: c.Index, Label: c.Label}
		if !null {
			out[i].Score = algebra.CGAInner(c.Versor, blade)
		}
	}
	return out
}

// Rank returns the scored candidates by score descending, ties by index
// ascending.
func Rank(scored []Scored) []Scored {
	out := append([]Scored(nil), scored...)
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		return out[a].Index < out[b].Index
	})
	return out
}

// CheckThreshold splits scored candidates into admitted (score > threshold)
// and rejected, each in input order.
func CheckThreshold(scored []Scored, threshold float64) (admitted, rejected []Scored) {
	for _, s := range scored {
		if s.Score > threshold {
			admitted = append(admitted, s)
		} else {
			rejected = append(rejected, s)
		}
	}
	return admitted, rejected
}

// MarginVerdict is the outcome of the margin gate.
type MarginVerdict struct {
	Admitted bool
	Top      *Scored  // nil for an empty ranking
	Second   *Scored  // nil unless at least two candidates
	Gap      float64  // top − second; +Inf for a single candidate, 0 for none
	Margin   float64  // the δ applied
	Ranked   []Scored // the full ranking: the evidence on refusal
	Reason   string
}

// CheckMargin applies the margin gate to a ranking (as returned by Rank).
func CheckMargin(ranked []Scored, margin float64) MarginVerdict {
	v := MarginVerdict{Margin: margin, Ranked: append([]Scored(nil), ranked...)}
	switch len(ranked) {
	case 0:
		v.Reason = "empty ranking"
		return v
	case 1:
		top := ranked[0]
		v.Top, v.Gap, v.Admitted, v.Reason = &top, math.Inf(1), true, "ok (single admissible)"
		return v
	}
	top, second := ranked[0], ranked[1]
	v.Top, v.Second, v.Gap = &top, &second, top.Score-second.Score
	switch {
	case !(top.Score > 0):
		v.Reason = fmt.Sprintf("top score %.6g not positive", top.Score)
	case !(v.Gap >= margin):
		v.Reason = fmt.Sprintf("margin %.6g below delta %.6g (top=%q@%.6g, next=%q@%.6g)",
			v.Gap, margin, top.Label, top.Score, second.Label, second.Score)
	default:
		v.Admitted, v.Reason = true, "ok"
	}
	return v
}

// RotorVerdict is the outcome of the rotor check.
type RotorVerdict struct {
	Admitted bool
	Score    float64 // +Inf when there is no frame
	Reason   string
}

// CheckRotor asks whether applying v to f keeps the field in the frame's
// admissible half-space: score = CGAInner(v·f·~v, frame), admitted iff > 0. A
// frame with norm below NullNorm is no frame. f is not changed.
func CheckRotor(v, f, frame algebra.MV) RotorVerdict {
	if algebra.Norm(frame) < NullNorm {
		return RotorVerdict{Admitted: true, Score: math.Inf(1), Reason: "no frame"}
	}
	s := algebra.CGAInner(algebra.Sandwich(v, f), frame)
	if s > 0 {
		return RotorVerdict{Admitted: true, Score: s, Reason: "ok"}
	}
	return RotorVerdict{Score: s, Reason: fmt.Sprintf("rotor score %.6g not positive", s)}
}

// Attempt is one rejected destination, the evidence of an exhaustion.
type Attempt struct {
	Index int
	Label string
	Score float64
	Rotor bool // rejected by the rotor check rather than the destination check
}

// ExhaustionError is the typed refusal of a walk step with no admissible
// destination. StepIndex −1 means the region left no candidates before the
// walk began.
type ExhaustionError struct {
	Reason           refusal.Reason
	RegionLabel      string
	StepIndex        int
	RejectedAttempts []Attempt
}

func (e *ExhaustionError) Error() string {
	if e.StepIndex < 0 {
		return fmt.Sprintf("admissibility: AdmissibilityRegion[%s] left no walk candidates (%s)", e.RegionLabel, e.Reason)
	}
	return fmt.Sprintf("admissibility: AdmissibilityRegion[%s] inner-loop rejected all candidates at step %d (%s, %d attempts)",
		e.RegionLabel, e.StepIndex, e.Reason, len(e.RejectedAttempts))
}

// Exhausted builds the error for a step, choosing rotor_rejection when any
// attempt was rejected by the rotor check and inner_loop_exhaustion otherwise.
func Exhausted(region string, step int, attempts []Attempt) *ExhaustionError {
	reason := refusal.InnerLoopExhaustion
	for _, a := range attempts {
		if a.Rotor {
			reason = refusal.RotorRejection
			break
		}
	}
	return &ExhaustionError{Reason: reason, RegionLabel: region, StepIndex: step,
		RejectedAttempts: append([]Attempt(nil), attempts...)}
}
