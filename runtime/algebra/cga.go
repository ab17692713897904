package algebra

// Origin is the conformal origin n_o = ½(e5 − e4).
func Origin() MV {
	var m MV
	m[4], m[5] = -0.5, 0.5
	return m
}

// Infinity is the point at infinity n_inf = e4 + e5.
func Infinity() MV {
	var m MV
	m[4], m[5] = 1, 1
	return m
}

// EmbedPoint is the conformal up-projection of x ∈ R³:
// x1·e1 + x2·e2 + x3·e3 + ½(|x|²−1)·e4 + ½(|x|²+1)·e5, a null vector.
// CGAInner of two embedded points is −½|x−y|².
func EmbedPoint(x [3]float64) MV {
	var m MV
	n2 := x[0]*x[0] + x[1]*x[1] + x[2]*x[2]
	m[1], m[2], m[3] = x[0], x[1], x[2]
	m[4] = 0.5 * (n2 - 1)
	m[5] = 0.5 * (n2 + 1)
	return m
}

// LiftVector maps a direction (a, b, c) to the grade-1 vector a·e1 + b·e2 + c·e3,
// the form identity value axes take in the algebra.
func LiftVector(d [3]float64) MV {
	var m MV
	m[1], m[2], m[3] = d[0], d[1], d[2]
	return m
}
