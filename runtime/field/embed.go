package field

import (
	"crypto/sha256"
	"encoding/binary"
	"formation/runtime/algebra"
	"math"
)

// wordDomain separates word-rotor hashes from every other SHA-256 use, and
// versions the embedding: changing it changes every rotor.
const wordDomain = "formation/runtime/word-rotor/v1\x00"

// positionStep is the original's position-rotor angle increment (√3/10).
const positionStep = 0.17320508075688773

// WordRotor is the exact unit rotor of a word: the product over the six
// Euclidean planes, in the order of algebra.EuclideanPlanes, of
// cos θ_j + sin θ_j·e_Bj, where θ_j ∈ [−π, π) is read from bytes 4j..4j+3 of
// SHA-256(domain ‖ word) as a big-endian fraction of a full turn. The word is
// used exactly as given; callers normalise (text.Tokenize lower-cases).
func WordRotor(word string) algebra.MV {
	h := sha256.Sum256([]byte(wordDomain + word))
	r := algebra.One()
	for j, plane := range algebra.EuclideanPlanes() {
		u := binary.BigEndian.Uint32(h[4*j : 4*j+4])
		theta := float64(u)/(1<<32)*2*math.Pi - math.Pi
		r = algebra.Mul(r, planeRotor(plane, theta))
	}
	return r
}

// planeRotor is algebra.PlaneRotor for the fixed, known-valid planes this
// package uses; building it inline keeps the hot path free of error plumbing
// that could never fire.
func planeRotor(blade int, theta float64) algebra.MV {
	var m algebra.MV
	m[0], m[blade] = math.Cos(theta), math.Sin(theta)
	return m
}

// positionRotor twists token k: cos θ_k + sin θ_k·e_B with θ_k = (k+1)·√3/10
// and B the (k mod 6)-th Euclidean plane.
func positionRotor(k int) algebra.MV { return positionVersor(k).MV() }

func computePositionRotor(k int) algebra.MV {
	return planeRotor(algebra.EuclideanPlanes()[k%6], float64(k+1)*positionStep)
}

// positionVersor is positionRotor(k) gathered.
func positionVersor(k int) *algebra.Gathered {
	if k < len(positionRotors) {
		return &positionRotors[k]
	}
	p := algebra.Gather(computePositionRotor(k))
	return &p
}

// positionRotors are the rotors of the first positions, computed and
// gathered once: every prompt twists its first tokens by them. The table is
// never written after.
var positionRotors = func() (t [64]algebra.Gathered) {
	for k := range t {
		t[k] = algebra.Gather(computePositionRotor(k))
	}
	return t
}()

// EncodePrompt is the holonomy encoding of a token sequence: the ordered
// product of p_k·w_k·~p_k over tokens k, where w_k is the token's WordRotor
// and p_k its position rotor. Order matters ("a b" and "b a" differ). The
// empty sequence encodes to the identity rotor. Nothing is normalised.
func EncodePrompt(tokens []string) algebra.MV { return (*Rotors)(nil).Prompt(tokens) }

// TermRotor embeds a knowledge term (one or more words) the way a prompt of
// its tokens is embedded, so "focal point" and the prompt "focal point" agree.
func TermRotor(term string) algebra.MV { return (*Rotors)(nil).Term(term) }
