package algebra

import (
	"fmt"
	"math"
)

// EuclideanPlanes returns the blade indices of the six rotation planes that
// avoid e5: e12, e13, e14, e23, e24, e34. Each squares to −1, so
// cos θ + sin θ·e_B is an exact unit rotor, and so is any product of such
// rotors. (An array value: callers get their own copy.)
func EuclideanPlanes() [6]int { return [6]int{6, 7, 8, 10, 11, 13} }

// PlaneRotor returns cos θ + sin θ·e_B for a Euclidean plane B (one of
// EuclideanPlanes). Applied as a sandwich it rotates by 2θ in that plane (the
// half-angle convention). Any other blade is refused: a boost plane or a
// non-bivector would not give a unit rotor, and this package builds no state
// that needs repairing afterwards.
func PlaneRotor(blade int, theta float64) (MV, error) {
	var m MV
	if !isEuclideanPlane(blade) {
		return m, fmt.Errorf("algebra: blade %d (%s) is not a Euclidean rotation plane", blade, BladeName(blade))
	}
	if math.IsNaN(theta) || math.IsInf(theta, 0) {
		return m, fmt.Errorf("algebra: rotor angle %v is not finite", theta)
	}
	s, c := math.Sincos(theta)
	m[0], m[blade] = c, s
	return m, nil
}

func isEuclideanPlane(blade int) bool {
	for _, p := range EuclideanPlanes() {
		if p == blade {
			return true
		}
	}
	return false
}

// TransitionRotor is b·~a: for a unit rotor a it carries a onto b from the
// left (TransitionRotor(a, b)·a = b). For unit rotors the result is again a
// unit rotor; nothing is unitised.
func TransitionRotor(a, b MV) MV { return Mul(b, Reverse(a)) }
