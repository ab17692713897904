package algebra

import "math/bits"

// Size is the number of coefficients of a Cl(4,1) multivector.
const Size = 32

// basis holds the per-blade facts and the product table. It is filled by
// buildBasis once and only read afterwards.
type basis struct {
	mask    [Size]uint8       // bit g set ⇔ generator e_{g+1} is in the blade
	index   [Size]uint8       // blade index of a mask (masks are 0..31)
	grade   [Size]uint8       // grade of blade i
	square  [Size]float64     // scalar of e_I e_I: ±1
	rev     [Size]float64     // sign reversion applies to blade i: ±1
	product [Size][Size]uint8 // index of e_I e_J
	sign    [Size][Size]float64
	// start[k] is the index of the first blade of grade k; start[6] = Size.
	start [7]int
}

var tables = buildBasis()

// buildBasis enumerates the blades in the original's order (grade by grade,
// k-subsets in lexicographic order) and derives every sign from the two rules
// of the algebra: reordering generators flips the sign once per transposition,
// and a repeated generator contributes its square.
func buildBasis() *basis {
	b := &basis{}
	i := 0
	for k := 0; k <= 5; k++ {
		for _, m := range subsets(5, k) {
			b.mask[i] = m
			b.index[m] = uint8(i)
			b.grade[i] = uint8(k)
			i++
		}
	}
	for k := 0; k <= 5; k++ {
		b.start[k+1] = b.start[k] + len(subsets(5, k))
	}
	for i := 0; i < Size; i++ {
		k := int(b.grade[i])
		b.rev[i] = 1
		if (k*(k-1)/2)%2 == 1 {
			b.rev[i] = -1
		}
		b.square[i] = bladeSign(b.mask[i], b.mask[i])
	}
	for i := 0; i < Size; i++ {
		for j := 0; j < Size; j++ {
			b.product[i][j] = b.index[b.mask[i]^b.mask[j]]
			b.sign[i][j] = bladeSign(b.mask[i], b.mask[j])
		}
	}
	return b
}

// subsets lists the k-subsets of {0..n-1} as bit masks, in lexicographic order
// of their sorted element lists (the order of Python's itertools.combinations).
func subsets(n, k int) []uint8 {
	var out []uint8
	var rec func(start int, mask uint8, left int)
	rec = func(start int, mask uint8, left int) {
		if left == 0 {
			out = append(out, mask)
			return
		}
		for g := start; g <= n-left; g++ {
			rec(g+1, mask|1<<g, left-1)
		}
	}
	rec(0, 0, k)
	return out
}

// bladeSign is the sign of e_A e_B relative to the blade e_{A xor B}: the
// parity of the transpositions needed to sort the generators, times the square
// of every shared generator (only e5, bit 4, squares to -1).
func bladeSign(a, b uint8) float64 {
	swaps := 0
	for x := 0; x < 5; x++ {
		if a&(1<<x) != 0 {
			swaps += bits.OnesCount8(b & (1<<x - 1))
		}
	}
	s := 1.0
	if swaps%2 == 1 {
		s = -1
	}
	if a&b&(1<<4) != 0 {
		s = -s
	}
	return s
}
