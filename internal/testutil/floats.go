package testutil

import (
	"math"

	"formation/runtime/algebra"
)

// FloatSamples are float64 values for holding a hand-written formatter to
// printf: both zeros, the ends of the range, NaN and the infinities, the
// closure bound and values at rounding boundaries, and a spread of
// magnitudes of both signs.
func FloatSamples() []float64 {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, algebra.ClosureBound, 9.9999995e-7, 1e-7, 0.5, 0.9999995, 0.99999949, 123456.789, -2.5e-300,
		math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, 1e21, 1e-21, 0.0005, 0.00049999}
	x := 1.0
	for i := 0; i < 400; i++ {
		x = x*1.37 + 1e-9
		vals = append(vals, x, -x, 1/x, -1/x, x*1e-12, float64(i)/7)
	}
	return vals
}
