package algebra

import (
	"fmt"
	"math"
	"strings"
)

// MV is a Cl(4,1) multivector: 32 coefficients in the basis order described in
// the package comment. The zero value is the zero multivector. MV is a value
// type; every function returns a new one and never modifies its arguments.
type MV [Size]float64

// Scalar returns the multivector s·1.
func Scalar(s float64) MV {
	var m MV
	m[0] = s
	return m
}

// One is the multiplicative identity.
func One() MV { return Scalar(1) }

// Blade returns the unit basis blade i (0 ≤ i < 32) scaled by c, or an error
// for an index outside the basis.
func Blade(i int, c float64) (MV, error) {
	var m MV
	if i < 0 || i >= Size {
		return m, fmt.Errorf("algebra: blade index %d outside 0..%d", i, Size-1)
	}
	m[i] = c
	return m, nil
}

// BladeName is the generator list of blade i, e.g. "e12" for 6 and "1" for 0.
func BladeName(i int) string {
	if i < 0 || i >= Size {
		return "?"
	}
	if i == 0 {
		return "1"
	}
	var sb strings.Builder
	sb.WriteByte('e')
	for g := 0; g < 5; g++ {
		if tables.mask[i]&(1<<g) != 0 {
			sb.WriteByte(byte('1' + g))
		}
	}
	return sb.String()
}

// Grade is the grade of blade i (0..5), or -1 outside the basis.
func Grade(i int) int {
	if i < 0 || i >= Size {
		return -1
	}
	return int(tables.grade[i])
}

// SquareSign is the scalar e_I·e_I of blade i: +1 or -1 (0 outside the basis).
// It is the diagonal of the metric that CGAInner uses.
func SquareSign(i int) float64 {
	if i < 0 || i >= Size {
		return 0
	}
	return tables.square[i]
}

// ReverseSign is the sign reversion applies to blade i: (-1)^(k(k-1)/2).
func ReverseSign(i int) float64 {
	if i < 0 || i >= Size {
		return 0
	}
	return tables.rev[i]
}

// Add returns a + b.
func Add(a, b MV) MV {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// Sub returns a - b.
func Sub(a, b MV) MV {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}

// Scale returns s·a.
func Scale(a MV, s float64) MV {
	for i := range a {
		a[i] *= s
	}
	return a
}

// Neg returns -a.
func Neg(a MV) MV { return Scale(a, -1) }

// Mul is the geometric product a·b. Terms are accumulated with i (the index
// into a) in the outer loop and j in the inner loop, both ascending, and exact
// zeros are skipped, so the floating-point result is reproducible bit for bit.
//
// The non-zero coefficients of b are gathered once, in ascending order, so
// the inner loop visits only them: the terms and their order are the same
// as skipping b's zeros on every pass (TestMulMatchesDenseLoop). The states
// and rotors the runtime multiplies are even (half their coefficients are
// zero) or sparser.
func Mul(a, b MV) MV {
	var r MV
	var g gathered
	g.of(&b)
	g.mulInto(&r, &a)
	return r
}

// gathered is a multivector's non-zero coefficients, in ascending index
// order: their indices and their values.
type gathered struct {
	n    int
	idx  [Size]uint8
	vals [Size]float64
}

// of gathers b's non-zero coefficients (an exact zero of either sign is
// skipped, as Mul skips it).
func (g *gathered) of(b *MV) {
	n := 0
	for j := range b {
		if bj := b[j]; bj != 0 {
			g.idx[n], g.vals[n] = uint8(j), bj
			n++
		}
	}
	g.n = n
}

// mulInto adds a·g to r, which the caller has zeroed: for each non-zero
// a[i], ascending, each term of g, ascending.
func (g *gathered) mulInto(r, a *MV) {
	idxs, vals := g.idx[:g.n], g.vals[:g.n]
	out, in := r[:], a[:] // r and a checked for nil once here, not on every term
	products, signs := &tables.product, &tables.sign
	for i, ai := range in {
		if ai == 0 {
			continue
		}
		prod, sgn := &products[i], &signs[i]
		for k, j := range idxs {
			j &= Size - 1 // always so; the mask spares the bounds checks
			out[prod[j]&(Size-1)] += sgn[j] * ai * vals[k]
		}
	}
}

// Reverse is ~a: the grade-2 and grade-3 coefficients change sign.
func Reverse(a MV) MV {
	for i := range a {
		a[i] *= tables.rev[i]
	}
	return a
}

// GradeProject keeps the grade-k part of a; any k outside 0..5 gives zero.
func GradeProject(a MV, k int) MV {
	var r MV
	if k < 0 || k > 5 {
		return r
	}
	lo, hi := tables.start[k], tables.start[k+1]
	copy(r[lo:hi], a[lo:hi])
	return r
}

// ScalarPart is <a>_0.
func ScalarPart(a MV) float64 { return a[0] }

// Norm is the plain Euclidean norm over the 32 stored coefficients (no metric).
func Norm(a MV) float64 {
	s := 0.0
	for _, c := range a {
		s += c * c
	}
	return math.Sqrt(s)
}

// NormSquared is <a·~a>_0, the indefinite squared norm (it can be ≤ 0).
func NormSquared(a MV) float64 { return ScalarProduct(a, a) }

// ScalarProduct is <a·~b>_0 = Σ_i square_i·rev_i·a_i·b_i. For rotors built in
// the Euclidean planes it is the ordinary dot product of the coefficients: a
// unit rotor scores 1 against itself and every score lies in [-1, 1]. The vault
// ranks rotor memory by it.
func ScalarProduct(a, b MV) float64 {
	s := 0.0
	for i := range a {
		s += tables.square[i] * tables.rev[i] * a[i] * b[i]
	}
	return s
}

// CGAInner is the conformal inner product ½<a·b + b·a>_0 = Σ_i square_i·a_i·b_i.
// It is symmetric and indefinite: for conformal points it is -½|x-y|², and for
// the unit rotor cos θ + sin θ·e12 it is cos 2θ against itself, not 1.
func CGAInner(a, b MV) float64 {
	s := 0.0
	for i := range a {
		s += tables.square[i] * a[i] * b[i]
	}
	return s
}

// NullTolerance is how far from zero CGAInner(a, a) may be for a conformal
// point to count as a null vector (the original's null-vector test). It
// happens to share its value with ClosureBound but is another quantity: a
// tolerance on a point's self-product, not the closure invariant of a field
// state, and one may change without the other.
const NullTolerance = 1e-6

// IsNull reports |CGAInner(a, a)| < NullTolerance.
func IsNull(a MV) bool { return math.Abs(CGAInner(a, a)) < NullTolerance }

// VersorCondition is ‖a·~a − 1‖₂: the Euclidean norm over all 32 coefficients
// of a·~a with 1 subtracted from the scalar slot. A field state is admitted only
// while it is below ClosureBound.
func VersorCondition(a MV) float64 {
	p := Mul(a, Reverse(a))
	p[0]--
	return Norm(p)
}

// ClosureBound is the closure invariant: a state is closed iff its
// VersorCondition is strictly below it. It is the module's one definition of
// the bound, and a constant, not a setting, so that no caller can loosen it:
// the field, the safety predicate preserve_versor_closure (packs), the run
// stage's halt (run), ratify's G1 and eval all compare against it, and the
// texts that print the bound format it from here. compose writes it into
// every course as the wire text "1.0e-6", which a test holds equal to it.
const ClosureBound = 1e-6

// Closed reports VersorCondition(a) < ClosureBound — the one closure predicate
// the runtime uses everywhere (strict <, never ≤).
func Closed(a MV) bool { return VersorCondition(a) < ClosureBound }

// Sandwich is v·f·~v. It applies the versor v to f and returns the product as
// computed: nothing is unitised, projected or replaced afterwards.
//
// It computes Mul(Mul(v, f), Reverse(v)) term for term, without copying
// the operands between the products (TestSandwichIsTwoProducts).
//
// v is gathered once: its non-zeros, ascending, are the outer loop of the
// first product, and times their reversion signs they are ~v's, the inner
// loop of the second (a coefficient and its reverse are zero together).
func Sandwich(v, f MV) MV {
	var gv, gf gathered
	var vf, r MV
	gv.of(&v)
	gf.of(&f)
	gv.leftInto(&vf, &gf)
	gv.reverse()
	gv.mulInto(&r, &vf)
	return r
}

// leftInto adds g·b to r, which the caller has zeroed: for each term of g,
// ascending, each term of b, ascending (mulInto with both operands
// gathered).
func (g *gathered) leftInto(r *MV, b *gathered) {
	idxs, vals := b.idx[:b.n], b.vals[:b.n]
	out := r[:] // r checked for nil once here, not on every term
	for k, i := range g.idx[:g.n] {
		ai := g.vals[k]
		i &= Size - 1
		prod, sgn := &tables.product[i], &tables.sign[i]
		for m, j := range idxs {
			j &= Size - 1
			out[prod[j]&(Size-1)] += sgn[j] * ai * vals[m]
		}
	}
}

// reverse turns g into ~g's terms: Reverse's product, coefficient by
// coefficient (a coefficient and its reverse are zero together).
func (g *gathered) reverse() {
	for k, j := range g.idx[:g.n] {
		g.vals[k] *= tables.rev[j&(Size-1)]
	}
}

// Gathered is a multivector with its non-zero coefficients, and those of
// its reverse, listed once: for an operand the runtime multiplies again and
// again (a word rotor, a position rotor), which Mul and Sandwich would
// gather anew on every call.
type Gathered struct {
	m      MV
	g, rev gathered
}

// Gather lists m's non-zero coefficients and its reverse's.
func Gather(m MV) Gathered {
	x := Gathered{m: m}
	x.g.of(&m)
	x.rev = x.g
	x.rev.reverse()
	return x
}

// MV is the multivector gathered.
func (x *Gathered) MV() MV { return x.m }

// MulSandwich sets *f to Mul(*f, Sandwich(v, w)) of the gathered
// multivectors: the same terms accumulated in the same order, so the same
// bits, without gathering v and w again or copying the operands
// (TestMulSandwichIsMulOfSandwich).
func MulSandwich(f *MV, v, w *Gathered) {
	var vf, s, r MV
	v.g.leftInto(&vf, &w.g)
	v.rev.mulInto(&s, &vf)
	var gs gathered
	gs.of(&s)
	gs.mulInto(&r, f)
	*f = r
}

// IsFinite reports whether every coefficient is a finite number.
func IsFinite(a MV) bool {
	for _, c := range a {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return false
		}
	}
	return true
}
