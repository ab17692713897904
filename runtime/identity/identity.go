// Package identity scores how a field state treats the identity's value axes
// (the original system's IdentityCheck).
//
// Each axis direction (a, b, c) is lifted to the vector a·e1 + b·e2 + c·e3.
// For a state F, each axis is carried to r_i = F·a_i·~F. Leakage is the share
// of r_i outside the span of the axes (projection through the inverse Gram
// matrix of the axes); self-alignment is the cosine between a_i and r_i. The
// score is 1 − rms(leakage), clamped to [0, 1]; an axis deviates when its
// leakage exceeds LeakageBound or its self-alignment is negative; the score is
// flagged when anything deviates or a boundary was violated.
//
// The score is telemetry: a flagged score is reported on the response and the
// TurnEvent and never silently erases an answer (runtime contract, Identity).
package identity

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"formation/runtime/algebra"
)

// LeakageBound is the original's _WAVE_LEAKAGE_BOUND.
const LeakageBound = 0.2126624458513829

// MaxGramCondition is the largest condition number of the axes' Gram matrix
// accepted: nearly parallel axes make the projection meaningless.
const MaxGramCondition = 1e5

// Axis is one value axis.
type Axis struct {
	ID        string
	Direction [3]float64
}

// Geometry is the prepared form of a set of axes; build it once per manifold.
type Geometry struct {
	ids     []string
	vectors []algebra.MV
	gramInv *mat.Dense // nil when there are no axes
}

// NewGeometry lifts the axes and inverts their Gram matrix G_ij = <a_i·~a_j>_0,
// refusing axes that are non-finite or whose Gram matrix has a condition
// number above MaxGramCondition (including zero or parallel axes).
func NewGeometry(axes []Axis) (*Geometry, error) {
	g := &Geometry{}
	for _, a := range axes {
		v := algebra.LiftVector(a.Direction)
		if !algebra.IsFinite(v) {
			return nil, fmt.Errorf("identity: axis %q has a non-finite direction", a.ID)
		}
		g.ids = append(g.ids, a.ID)
		g.vectors = append(g.vectors, v)
	}
	n := len(axes)
	if n == 0 {
		return g, nil
	}
	gram := mat.NewDense(n, n, nil)
	for i := range g.vectors {
		for j := range g.vectors {
			gram.Set(i, j, algebra.ScalarProduct(g.vectors[i], g.vectors[j]))
		}
	}
	if c := mat.Cond(gram, 2); !(c <= MaxGramCondition) {
		return nil, fmt.Errorf("identity: axes are degenerate: Gram condition number %.3g exceeds %.0e", c, MaxGramCondition)
	}
	g.gramInv = mat.NewDense(n, n, nil)
	if err := g.gramInv.Inverse(gram); err != nil {
		return nil, fmt.Errorf("identity: invert Gram matrix: %w", err)
	}
	return g, nil
}

// Score is one identity judgement.
type Score struct {
	Score              float64 // 1 − rms leakage, in [0, 1]
	Alignment          float64 // 1 when no axis deviates, else Score
	LeakageRMS         float64
	MinSelfAlignment   float64
	DeviationAxes      []string // axes beyond the leakage bound or misaligned, in axis order
	BoundaryViolations []string
	Flagged            bool
}

// Check scores the state f. boundaryViolations (e.g. violated safety
// boundaries of the same turn) flag the score on their own.
func (g *Geometry) Check(f algebra.MV, boundaryViolations []string) (Score, error) {
	if !algebra.IsFinite(f) {
		return Score{}, fmt.Errorf("identity: field state is not finite")
	}
	s := Score{BoundaryViolations: append([]string(nil), boundaryViolations...)}
	if len(g.vectors) == 0 {
		s.Score, s.Alignment, s.MinSelfAlignment = 1, 1, 1
		s.Flagged = len(boundaryViolations) > 0
		return s, nil
	}
	sumSq := 0.0
	s.MinSelfAlignment = math.Inf(1)
	for i, a := range g.vectors {
		leak, align := g.axis(f, a)
		sumSq += leak * leak
		s.MinSelfAlignment = math.Min(s.MinSelfAlignment, align)
		if leak > LeakageBound || align < 0 {
			s.DeviationAxes = append(s.DeviationAxes, g.ids[i])
		}
	}
	s.LeakageRMS = math.Sqrt(sumSq / float64(len(g.vectors)))
	s.Score = math.Max(0, math.Min(1, 1-s.LeakageRMS))
	s.Alignment = 1
	if len(s.DeviationAxes) > 0 {
		s.Alignment = s.Score
	}
	s.Flagged = s.LeakageRMS > LeakageBound || s.MinSelfAlignment < 0 || len(s.DeviationAxes) > 0 || len(boundaryViolations) > 0
	return s, nil
}

// axis returns the leakage and self-alignment of one axis under f.
func (g *Geometry) axis(f, a algebra.MV) (leak, align float64) {
	r := algebra.Sandwich(f, a)
	nr, na := algebra.Norm(r), algebra.Norm(a)
	if nr == 0 || na == 0 {
		return 1, 0
	}
	return algebra.Norm(algebra.Sub(r, g.project(r))) / nr, algebra.ScalarProduct(a, r) / (na * nr)
}

// project is P(x) = Σ_ij a_i·(G⁻¹)_ij·<a_j·~x>_0, the projection onto the
// span of the axes.
func (g *Geometry) project(x algebra.MV) algebra.MV {
	var p algebra.MV
	for i, ai := range g.vectors {
		c := 0.0
		for j, aj := range g.vectors {
			c += g.gramInv.At(i, j) * algebra.ScalarProduct(aj, x)
		}
		p = algebra.Add(p, algebra.Scale(ai, c))
	}
	return p
}
