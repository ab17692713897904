// Package identity is the identity check: how far a turn carries the
// identity manifold's value axes out of their span (the original system's
// IdentityCheck, over the turn's trajectory).
//
// The measure of a state. Each axis direction (a, b, c) is lifted to the
// vector a·e1 + b·e2 + c·e3. For a versor V, each axis is carried to
// r_i = V·a_i·~V. Leakage is the share of r_i outside the span of the axes
// (projection through the inverse Gram matrix of the axes); self-alignment
// is the cosine between a_i and r_i. The score is 1 − rms(leakage), clamped
// to [0, 1]; an axis deviates when its leakage exceeds LeakageBound or its
// self-alignment is negative; the score is flagged when anything deviates or
// a boundary was violated (Check).
//
// The trajectory of a turn. The check does not measure the conversation's
// field state: word rotors are hash-derived, so every field state leaks and
// every turn would flag. It draws an identity trajectory from the turn's
// tokens instead (the same tokenizer, computed beside the field, which it
// never touches). Starting at the identity versor, each token k applies a
// rotor R_k = cos θ_k + sin θ_k·(â∧e4): a turn of the axis â it touches —
// or of the axes' mean direction when it touches the manifold as a whole —
// towards e4, which is orthogonal to every axis, so the turn carries the
// axes out of their span. Its half-angle is θ_k = κ·touch_k·force_k:
//
//   - touch is how much the token names what the manifold holds fixed: an
//     axis's id or name (that axis, fully), a word of its note (that axis,
//     lightly), a word of a boundary id or of a safety boundary's
//     description (all axes), and the nouns every manifold holds — the
//     system's identity, persona, values, rules, instructions, guidelines,
//     guardrails and safety — or a word that gives the system another
//     identity ("pretend", "become", "you are now ...");
//   - force is the strongest push of the token's clause — a word that
//     changes, removes or voids ("ignore", "turn off", "void",
//     "final") — decayed by its distance in content words (0.9 a word) and
//     scaled by how much the sentence addresses the system: it names it
//     ("you", "your"), opens with an instruction, asks with a modal, or
//     requests ("should be disabled"). A negated push ("do not disable")
//     pushes nothing, and a subordinate clause ("when the safety light
//     blinks") is out of a push's reach.
//
// The trajectory also reads the identity-override signal it shares with the
// review gate (runtime/review/override): where a sentence names the system's
// governance with a cue of its removal, another self for the system, code in
// its answer path or a claim made final, the word that names what is
// overridden touches the manifold as a whole, fully, under a full push (a
// half-angle of κ), unless the sentence's own moves already turn it nearly
// as far. The signal is a reading of the words, not the gate's verdict.
//
// So a mention is a touch without force and a push at something the
// manifold does not hold has nothing to turn: ordinary questions and
// statements leave V at the identity and score 1. A turn that tries to
// rewrite what the manifold holds turns the axes out of their span (CheckTurn
// measures every point of the way and keeps the worst). Weights are integers
// per mille and angles integer micro-radians, and measurements are compared
// with their bounds at a resolution of 1e-9, so the same turn gets the same
// flag on every machine. κ (0.35 rad), the decay and the weights were
// calibrated on the tuning data of testdata/adversarial only (its suite and
// its first four held-out parts).
//
// The flag never comes from the review gate's verdict: the two are computed
// apart and can disagree. It is telemetry: a flagged score is reported on
// the response and the TurnEvent and never erases an answer, unless the
// runtime runs with the identity hard-block policy (runtime.Config), which
// turns a flagged turn into a typed refusal.
package identity

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"formation/runtime/algebra"
	"formation/runtime/text"
)

// LeakageBound is the original's _WAVE_LEAKAGE_BOUND.
const LeakageBound = 0.2126624458513829

// MaxGramCondition is the largest condition number of the axes' Gram matrix
// accepted: nearly parallel axes make the projection meaningless.
const MaxGramCondition = 1e5

// Axis is one value axis: its id and name, its direction, and the note that
// says what it holds.
type Axis struct {
	ID        string
	Name      string
	Direction [3]float64
	Note      string
}

// Boundary is one boundary the manifold holds, with the text that declares
// it ("" when its pack gives none).
type Boundary struct {
	ID          string
	Description string
}

// Geometry is the prepared form of a manifold: its axes and the words it
// holds fixed; build it once per manifold.
type Geometry struct {
	ids     []string
	vectors []algebra.MV
	gramInv *mat.Dense // nil when there are no axes
	lex     *lexicon
	holds   map[string]hold // the manifold's words and the base holdings
	// weighed holds every word known reports but the signal's own: the
	// held words, the words that push, the bearer's and the imperatives.
	weighed *text.WordSet
	// touchers holds every word touch may weigh above zero (mayTouch).
	touchers *text.WordSet
	// general is the plane of a touch that names no one axis: the axes'
	// mean direction wedged with e4.
	general algebra.MV
	planes  []algebra.MV // per axis: the axis direction wedged with e4
	atRest  Score        // the score of the identity versor: where every trajectory starts
}

// NewGeometry lifts the axes and inverts their Gram matrix G_ij = <a_i·~a_j>_0,
// refusing axes that are non-finite or whose Gram matrix has a condition
// number above MaxGramCondition (including zero or parallel axes), and reads
// what the axes and boundaries declare into the words the identity check
// weighs (holdings.go).
func NewGeometry(axes []Axis, boundaries []Boundary) (*Geometry, error) {
	g := &Geometry{lex: newLexicon()}
	for _, a := range axes {
		v := algebra.LiftVector(a.Direction)
		if !algebra.IsFinite(v) {
			return nil, fmt.Errorf("identity: axis %q has a non-finite direction", a.ID)
		}
		g.ids = append(g.ids, a.ID)
		g.vectors = append(g.vectors, v)
	}
	g.holds = g.holdings(axes, boundaries)
	g.weighed = g.weighedWords()
	g.touchers = g.touchersOf()
	n := len(axes)
	if n == 0 {
		g.atRest, _ = g.Check(algebra.One(), nil)
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
	g.planes, g.general = rotationPlanes(axes)
	var err error
	if g.atRest, err = g.Check(algebra.One(), nil); err != nil {
		return nil, err
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
	// Movers are the tokens that moved the axes on the turn's trajectory,
	// in order (CheckTurn; empty for a state scored by Check).
	Movers []string
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
		if quantize(leak) > LeakageBound || quantize(align) < 0 {
			s.DeviationAxes = append(s.DeviationAxes, g.ids[i])
		}
	}
	s.LeakageRMS = math.Sqrt(sumSq / float64(len(g.vectors)))
	s.Score = math.Max(0, math.Min(1, 1-s.LeakageRMS))
	s.Alignment = 1
	if len(s.DeviationAxes) > 0 {
		s.Alignment = s.Score
	}
	s.Flagged = quantize(s.LeakageRMS) > LeakageBound || quantize(s.MinSelfAlignment) < 0 || len(s.DeviationAxes) > 0 || len(boundaryViolations) > 0
	return s, nil
}

// quantum is the resolution at which measurements are compared with their
// bounds. Floating-point results may differ in their last bits between
// machines (a fused multiply-add here, not there); rounding to 1e-9 first
// makes every decision the same everywhere unless a value lies within 1e-9
// of its bound.
const quantum = 1e-9

func quantize(x float64) float64 { return math.Round(x/quantum) * quantum }

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
