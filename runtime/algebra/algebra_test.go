package algebra

import (
	"math"
	"math/rand"
	"testing"
)

// referenceBlades is the original system's basis table: blade name, the
// sign of e_I·e_I and the sign reversion applies, for indices 0..31.
var referenceBlades = []struct {
	name     string
	sq, rev  float64
	wantGrad int
}{
	{"1", 1, 1, 0}, {"e1", 1, 1, 1}, {"e2", 1, 1, 1}, {"e3", 1, 1, 1}, {"e4", 1, 1, 1}, {"e5", -1, 1, 1},
	{"e12", -1, -1, 2}, {"e13", -1, -1, 2}, {"e14", -1, -1, 2}, {"e15", 1, -1, 2}, {"e23", -1, -1, 2},
	{"e24", -1, -1, 2}, {"e25", 1, -1, 2}, {"e34", -1, -1, 2}, {"e35", 1, -1, 2}, {"e45", 1, -1, 2},
	{"e123", -1, -1, 3}, {"e124", -1, -1, 3}, {"e125", 1, -1, 3}, {"e134", -1, -1, 3}, {"e135", 1, -1, 3},
	{"e145", 1, -1, 3}, {"e234", -1, -1, 3}, {"e235", 1, -1, 3}, {"e245", 1, -1, 3}, {"e345", 1, -1, 3},
	{"e1234", 1, 1, 4}, {"e1235", -1, 1, 4}, {"e1245", -1, 1, 4}, {"e1345", -1, 1, 4}, {"e2345", -1, 1, 4},
	{"e12345", -1, 1, 5},
}

func TestBasisMatchesReferenceTable(t *testing.T) {
	if len(referenceBlades) != Size {
		t.Fatalf("reference table has %d rows", len(referenceBlades))
	}
	for i, want := range referenceBlades {
		if got := BladeName(i); got != want.name {
			t.Errorf("blade %d: name %q, want %q", i, got, want.name)
		}
		if got := SquareSign(i); got != want.sq {
			t.Errorf("blade %d (%s): square %v, want %v", i, want.name, got, want.sq)
		}
		if got := ReverseSign(i); got != want.rev {
			t.Errorf("blade %d (%s): reverse sign %v, want %v", i, want.name, got, want.rev)
		}
		if got := Grade(i); got != want.wantGrad {
			t.Errorf("blade %d: grade %d, want %d", i, got, want.wantGrad)
		}
		// The square column must agree with the product table itself.
		b := mustBlade(t, i, 1)
		if sq := Mul(b, b); sq[0] != want.sq || Norm(Sub(sq, Scalar(want.sq))) != 0 {
			t.Errorf("blade %s squared = %v", want.name, sq)
		}
	}
}

func mustBlade(t *testing.T, i int, c float64) MV {
	t.Helper()
	b, err := Blade(i, c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bladeByName(t *testing.T, name string) int {
	t.Helper()
	for i := 0; i < Size; i++ {
		if BladeName(i) == name {
			return i
		}
	}
	t.Fatalf("no blade %q", name)
	return -1
}

// TestProductVectors checks basis products the original system published,
// sign and result blade.
func TestProductVectors(t *testing.T) {
	cases := []struct {
		a, b string
		sign float64
		want string
	}{
		{"e1", "e2", 1, "e12"},
		{"e2", "e1", -1, "e12"},
		{"e5", "e5", -1, "1"},
		{"e12", "e12", -1, "1"},
		{"e15", "e15", 1, "1"},
		{"e12345", "e12345", -1, "1"},
		{"e12", "e23", 1, "e13"},
		{"e1", "e12", 1, "e2"},
	}
	for _, c := range cases {
		got := Mul(mustBlade(t, bladeByName(t, c.a), 1), mustBlade(t, bladeByName(t, c.b), 1))
		want := mustBlade(t, bladeByName(t, c.want), c.sign)
		if got != want {
			t.Errorf("%s·%s = %v, want %+v·%s", c.a, c.b, nonzero(got), c.sign, c.want)
		}
	}
}

func nonzero(m MV) map[string]float64 {
	out := map[string]float64{}
	for i, c := range m {
		if c != 0 {
			out[BladeName(i)] = c
		}
	}
	return out
}

func TestSandwichRotatesE1ToMinusE2(t *testing.T) {
	r, err := PlaneRotor(6, math.Pi/4)
	if err != nil {
		t.Fatal(err)
	}
	got := Sandwich(r, mustBlade(t, 1, 1))
	want := mustBlade(t, 2, -1)
	if d := Norm(Sub(got, want)); d > 1e-15 {
		t.Fatalf("R e1 ~R = %v, want -e2 (distance %g)", nonzero(got), d)
	}
}

func TestReverseGradeScalar(t *testing.T) {
	var a MV
	for i := range a {
		a[i] = float64(i + 1)
	}
	r := Reverse(a)
	for i := range a {
		want := a[i]
		if g := Grade(i); g == 2 || g == 3 {
			want = -a[i]
		}
		if r[i] != want {
			t.Errorf("reverse[%d] = %v, want %v", i, r[i], want)
		}
	}
	total := MV{}
	for k := 0; k <= 5; k++ {
		p := GradeProject(a, k)
		for i, c := range p {
			if c != 0 && Grade(i) != k {
				t.Errorf("grade %d projection kept blade %d", k, i)
			}
		}
		total = Add(total, p)
	}
	if total != a {
		t.Error("grade parts do not sum back to the multivector")
	}
	if GradeProject(a, 6) != (MV{}) || GradeProject(a, -1) != (MV{}) {
		t.Error("out-of-range grade projection is not zero")
	}
	if ScalarPart(a) != 1 {
		t.Errorf("scalar part %v", ScalarPart(a))
	}
}

func TestConformalEmbedding(t *testing.T) {
	x := EmbedPoint([3]float64{1, 2, 3})
	y := EmbedPoint([3]float64{4, 6, 3})
	if got := CGAInner(x, y); got != -12.5 {
		t.Errorf("embed(1,2,3)·embed(4,6,3) = %v, want -12.5", got)
	}
	if !IsNull(x) || !IsNull(y) {
		t.Error("embedded points are not null")
	}
	no, ninf := Origin(), Infinity()
	if CGAInner(no, no) != 0 || CGAInner(ninf, ninf) != 0 {
		t.Error("n_o or n_inf is not null")
	}
	if got := CGAInner(no, ninf); got != -1 {
		t.Errorf("n_o·n_inf = %v, want -1", got)
	}
	if EmbedPoint([3]float64{}) != no {
		t.Error("the origin does not embed to n_o")
	}
}

func TestCGAInnerMatchesSymmetricProduct(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 200; n++ {
		a, b := randomMV(rng), randomMV(rng)
		sym := 0.5 * ScalarPart(Add(Mul(a, b), Mul(b, a)))
		if d := math.Abs(sym - CGAInner(a, b)); d > 1e-12 {
			t.Fatalf("CGAInner differs from ½<ab+ba>_0 by %g", d)
		}
		if d := math.Abs(ScalarPart(Mul(a, Reverse(b))) - ScalarProduct(a, b)); d > 1e-12 {
			t.Fatalf("ScalarProduct differs from <a ~b>_0 by %g", d)
		}
	}
	// A unit rotor is not its own CGA-similarity 1: cos θ + sin θ e12 gives cos 2θ.
	r, _ := PlaneRotor(6, 0.3)
	if d := math.Abs(CGAInner(r, r) - math.Cos(0.6)); d > 1e-15 {
		t.Errorf("CGAInner(R,R) = %v, want cos 0.6", CGAInner(r, r))
	}
	if d := math.Abs(ScalarProduct(r, r) - 1); d > 1e-15 {
		t.Errorf("ScalarProduct(R,R) = %v, want 1", ScalarProduct(r, r))
	}
}

func randomMV(rng *rand.Rand) MV {
	var m MV
	for i := range m {
		m[i] = rng.Float64()*2 - 1
	}
	return m
}

func randomRotor(t *testing.T, rng *rand.Rand) MV {
	t.Helper()
	r := One()
	for k := 0; k < 1+rng.Intn(8); k++ {
		p, err := PlaneRotor(EuclideanPlanes()[rng.Intn(6)], rng.Float64()*2*math.Pi-math.Pi)
		if err != nil {
			t.Fatal(err)
		}
		r = Mul(r, p)
	}
	return r
}

func TestProductLaws(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 300; n++ {
		a, b, c := randomMV(rng), randomMV(rng), randomMV(rng)
		left, right := Mul(Mul(a, b), c), Mul(a, Mul(b, c))
		if d := Norm(Sub(left, right)); d > 1e-11*(1+Norm(left)) {
			t.Fatalf("associativity off by %g", d)
		}
		if d := Norm(Sub(Reverse(Mul(a, b)), Mul(Reverse(b), Reverse(a)))); d > 1e-12 {
			t.Fatalf("~(ab) != ~b ~a by %g", d)
		}
		if d := Norm(Sub(Mul(a, Add(b, c)), Add(Mul(a, b), Mul(a, c)))); d > 1e-12 {
			t.Fatalf("distributivity off by %g", d)
		}
		if Mul(One(), a) != a || Mul(a, One()) != a {
			t.Fatal("1 is not the identity")
		}
		if Reverse(Reverse(a)) != a {
			t.Fatal("reverse is not an involution")
		}
	}
}

func TestUnitRotorsClosedUnderProduct(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	worst := 0.0
	for n := 0; n < 2000; n++ {
		a, b := randomRotor(t, rng), randomRotor(t, rng)
		for _, m := range []MV{a, b, Mul(a, b), Sandwich(a, b), TransitionRotor(a, b)} {
			worst = math.Max(worst, VersorCondition(m))
		}
		if d := Norm(Sub(Mul(TransitionRotor(a, b), a), b)); d > 1e-12 {
			t.Fatalf("TransitionRotor(a,b)·a misses b by %g", d)
		}
	}
	if worst >= 1e-12 {
		t.Fatalf("worst versor condition %g ≥ 1e-12", worst)
	}
}

func TestVersorConditionMeasuresDrift(t *testing.T) {
	r, _ := PlaneRotor(10, 1.1)
	if vc := VersorCondition(r); vc > 1e-15 || !Closed(r) {
		t.Fatalf("exact rotor has condition %g", vc)
	}
	// Scaling by (1+ε) moves the scalar of F~F to (1+ε)², so the condition is
	// 2ε+ε²; nothing in the package pulls it back.
	drift := Scale(r, 1+1e-3)
	if vc := VersorCondition(drift); math.Abs(vc-(2e-3+1e-6)) > 1e-12 || Closed(drift) {
		t.Fatalf("drifted rotor has condition %g", vc)
	}
	if VersorCondition(MV{}) != 1 {
		t.Fatal("zero multivector must have condition 1")
	}
}

func TestPlaneRotorRefusesOtherBlades(t *testing.T) {
	for _, b := range []int{-1, 0, 1, 5, 9, 12, 14, 15, 16, 31, 32} {
		if _, err := PlaneRotor(b, 0.2); err == nil {
			t.Errorf("blade %d accepted as a rotation plane", b)
		}
	}
	if _, err := PlaneRotor(6, math.NaN()); err == nil {
		t.Error("NaN angle accepted")
	}
	if _, err := Blade(32, 1); err == nil {
		t.Error("blade 32 accepted")
	}
}

func BenchmarkMul(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	x, y := randomMV(rng), randomMV(rng)
	for i := 0; i < b.N; i++ {
		x = Mul(x, y)
		x[0] = 1 // keep the values bounded
	}
}

// mulDense is the geometric product as Mul computed it before it gathered
// b's non-zero coefficients: both loops over every blade, exact zeros
// skipped on each pass.
func mulDense(a, b MV) MV {
	var r MV
	for i, ai := range a {
		if ai == 0 {
			continue
		}
		for j, bj := range b {
			if bj == 0 {
				continue
			}
			r[tables.product[i][j]] += tables.sign[i][j] * ai * bj
		}
	}
	return r
}

// TestMulMatchesDenseLoop holds Mul bit for bit equal to the dense loop over
// dense, even, sparse and signed-zero operands.
func TestMulMatchesDenseLoop(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	sparse := func(keep float64) MV {
		m := randomMV(rng)
		for i := range m {
			switch r := rng.Float64(); {
			case r < keep:
			case r < (1+keep)/2:
				m[i] = 0
			default:
				m[i] = math.Copysign(0, -1)
			}
		}
		return m
	}
	for n := 0; n < 2000; n++ {
		var a, b MV
		switch n % 4 {
		case 0:
			a, b = randomMV(rng), randomMV(rng)
		case 1:
			a, b = sparse(0.5), sparse(0.3)
		case 2:
			a, b = GradeProject(randomMV(rng), 0), sparse(0.1)
			a = Add(a, GradeProject(randomMV(rng), 2))
		default:
			a, b = sparse(0.05), randomMV(rng)
		}
		got, want := Mul(a, b), mulDense(a, b)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("case %d: Mul[%d] = %v, dense loop %v", n, i, got[i], want[i])
			}
		}
	}
}

// TestSandwichIsTwoProducts holds Sandwich bit for bit equal to the two
// products it stands for, over plane rotors, even and dense operands, signed
// zeros, infinities and NaN.
func TestSandwichIsTwoProducts(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	planes := EuclideanPlanes()
	for n := 0; n < 2000; n++ {
		var v MV
		switch n % 3 {
		case 0:
			v, _ = PlaneRotor(planes[n%6], rng.Float64()*6-3)
		case 1:
			v = Add(GradeProject(randomMV(rng), 0), GradeProject(randomMV(rng), 2))
			v[n%32] = math.Copysign(0, -1)
		default:
			v = randomMV(rng)
		}
		f := randomMV(rng)
		if n%2 == 0 {
			f = Add(GradeProject(f, 0), Add(GradeProject(f, 2), GradeProject(f, 4)))
		}
		switch n % 50 {
		case 7:
			v[n%32] = math.Inf(1 - 2*(n%2))
		case 11:
			v[(n+3)%32] = math.NaN()
		case 13:
			f[n%32] = math.Inf(-1)
		}
		got, want := Sandwich(v, f), mulDense(mulDense(v, f), Reverse(v))
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("case %d: Sandwich[%d] = %v, two products %v", n, i, got[i], want[i])
			}
		}
	}
}

// TestMulSandwichIsMulOfSandwich holds MulSandwich bit-equal to
// Mul(f, Sandwich(v, w)) over rotors, even and dense multivectors with
// signed zeros, infinities and NaN, and Gathered to the multivector it
// gathered.
func TestMulSandwichIsMulOfSandwich(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	planes := EuclideanPlanes()
	pick := func(n int) MV {
		var v MV
		switch n % 4 {
		case 0:
			v, _ = PlaneRotor(planes[n%6], rng.Float64()*6-3)
		case 1:
			v = Add(GradeProject(randomMV(rng), 0), GradeProject(randomMV(rng), 2))
			v[n%32] = math.Copysign(0, -1)
		case 2:
			v = Add(GradeProject(randomMV(rng), 0), Add(GradeProject(randomMV(rng), 2), GradeProject(randomMV(rng), 4)))
		default:
			v = randomMV(rng)
		}
		switch n % 50 {
		case 7:
			v[n%32] = math.Inf(1 - 2*(n%2))
		case 11:
			v[(n+3)%32] = math.NaN()
		case 13:
			v[(n+5)%32] = math.Copysign(math.NaN(), -1)
		}
		return v
	}
	for n := 0; n < 3000; n++ {
		f, v, w := pick(n+1), pick(n), pick(n/4+2)
		gv, gw := Gather(v), Gather(w)
		if gv.MV() != v && !hasNaN(v) {
			t.Fatalf("case %d: Gather(v).MV() is not v", n)
		}
		want := Mul(f, Sandwich(v, w))
		got := f
		MulSandwich(&got, &gv, &gw)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("case %d: MulSandwich[%d] = %v, Mul of Sandwich %v", n, i, got[i], want[i])
			}
		}
	}
}

func hasNaN(v MV) bool {
	for _, c := range v {
		if math.IsNaN(c) {
			return true
		}
	}
	return false
}
