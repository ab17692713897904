// Package algebra is the conformal geometric algebra Cl(4,1) the runtime's
// field lives in.
//
// A multivector is a flat array of 32 float64 coefficients (MV). Component i
// names the basis blade obtained by listing, for grade k = 0..5, every k-subset
// of the generators {e1..e5} in lexicographic order, so grade 0 sits at [0],
// grade 1 at [1..5], grade 2 at [6..15], grade 3 at [16..25], grade 4 at
// [26..30] and the pseudoscalar e12345 at [31]. The signature is (+,+,+,+,-):
// e1..e4 square to +1 and e5 squares to -1. This order and signature are the
// original system's, so blade indices the original quotes (for example the
// Euclidean rotation planes 6,7,8,10,11,13) mean the same blades here.
//
// Every operation is a pure function of its arguments. The geometric product
// uses a 32x32 table of result index and sign computed once, by a pure
// function, when the package is initialised; the table is never written again.
//
// The package measures closure (VersorCondition) but never repairs it: there is
// no normalisation, projection or replacement of a state anywhere in here. The
// only rotor constructors build exact unit rotors in the Euclidean planes, so a
// drifting state can only come from a caller's operator, and the caller is the
// one that must refuse it.
package algebra
