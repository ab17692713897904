// Package field turns text into exact unit rotors of Cl(4,1) and carries one
// conversation's field state from turn to turn.
//
// Embedding. Every word maps to a rotor built as a product of six factors
// cos θ + sin θ·e_B, one per Euclidean rotation plane B (e12, e13, e14, e23,
// e24, e34), with the six angles read from the SHA-256 of the word. Each
// factor is an exact unit rotor and so is their product, so no word ever needs
// unitising, and any text can be embedded (there are no unknown words). A
// prompt is encoded as the ordered product of its words' rotors, each twisted
// by a position rotor (the original's holonomy encoding, restricted to the
// Euclidean planes so that it stays exact). Rotors act by sandwich
// (V·F·~V) and carry half angles: cos θ + sin θ·e_B rotates by 2θ.
//
// Field. A Field holds the committed state of one conversation, starting at
// the identity rotor. Each turn the prompt rotor conjugates the previous state
// (F' = P·F·~P; the first state is the prompt rotor itself, see Conjugate), the
// hemisphere is fixed against the
// anchor (the first committed state), and the result is committed only if it
// is closed: versor_condition < algebra.ClosureBound (1e-6). A state at or
// above the bound is never
// normalised, projected or replaced; Advance returns a *ClosureError, commits
// nothing, and the field stays halted from then on. The operator that composes
// prompt and state is the production conjugation unless a test installs
// another one (Config.Operator), which is how a drifting operator is injected.
package field
