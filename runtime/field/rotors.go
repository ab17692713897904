package field

import (
	"math"
	"sync"

	"formation/runtime/algebra"
	"formation/runtime/text"
)

// Rotors remembers the word rotors one runtime has computed, for every
// session over it. A word rotor costs a SHA-256 and six geometric products,
// and the same words recur in every prompt and in every term a walk weighs,
// so a run of many turns spends much of its embedding time recomputing
// them. A rotor is a pure function of its word, so the memo changes no
// result. It holds at most its bound of words (the first ones met); past
// it, words are computed as if there were no memo, so memory stays bounded
// whatever the input.
//
// A nil *Rotors is valid and remembers nothing. Rotors is safe for
// concurrent use.
//
// Words are remembered gathered (algebra.Gathered), the form a prompt
// multiplies them in.
type Rotors struct {
	mu     sync.RWMutex
	words  map[string]*algebra.Gathered
	max    int
	packed map[string]packedRotor
	maxPkd int
}

// NewRotors returns a memo that keeps the first max words gathered, ready
// to multiply in, and up to packed words after them packed
// (packedRotor): a large subject names far more distinct words than the
// first tier holds (every term of a 500,000-relation chain is a word of its
// own), and rebuilding a packed rotor costs a tenth of computing it again.
func NewRotors(max, packed int) *Rotors {
	return &Rotors{words: make(map[string]*algebra.Gathered), max: max,
		packed: make(map[string]packedRotor), maxPkd: packed}
}

// Word is WordRotor(word), remembered.
func (r *Rotors) Word(word string) algebra.MV {
	var scratch algebra.Gathered
	return r.gathered(word, &scratch).MV()
}

// gathered is Gather(WordRotor(word)), remembered: a pointer into the memo,
// whose first-tier entries are never written after they are stored (so a
// reader may keep it), or scratch filled in.
func (r *Rotors) gathered(word string, scratch *algebra.Gathered) *algebra.Gathered {
	if r == nil {
		*scratch = algebra.Gather(WordRotor(word))
		return scratch
	}
	r.mu.RLock()
	m, ok := r.words[word]
	var p packedRotor
	var isPacked bool
	if !ok {
		p, isPacked = r.packed[word]
	}
	r.mu.RUnlock()
	switch {
	case ok:
		return m
	case isPacked:
		*scratch = algebra.Gather(p.unpack())
		return scratch
	}
	w := WordRotor(word)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.words) < r.max {
		g := algebra.Gather(w)
		r.words[word] = &g
		return &g
	}
	if len(r.packed) < r.maxPkd {
		if p, ok := pack(&w); ok {
			r.packed[word] = p
		}
	}
	*scratch = algebra.Gather(w)
	return scratch
}

// packedTerms is how many coefficients a packed rotor holds. A word rotor
// is a product of rotors in the six Euclidean planes, so it lives in their
// even subalgebra: at most eight coefficients are ever set.
const packedTerms = 8

// packedRotor is a word rotor's coefficients whose bits are not all zero
// (a negative zero is kept), with their blade indices: 80 bytes where the
// gathered form takes 850.
type packedRotor struct {
	n    uint8
	idx  [packedTerms]uint8
	vals [packedTerms]float64
}

// pack packs m exactly, or reports false when it has more coefficients
// than a packed rotor holds (then the word is simply not remembered).
func pack(m *algebra.MV) (packedRotor, bool) {
	var p packedRotor
	for i, v := range m {
		if math.Float64bits(v) == 0 {
			continue
		}
		if int(p.n) == packedTerms {
			return packedRotor{}, false
		}
		p.idx[p.n], p.vals[p.n] = uint8(i), v
		p.n++
	}
	return p, true
}

// unpack is the multivector p was packed from, bit for bit.
func (p *packedRotor) unpack() algebra.MV {
	var m algebra.MV
	for i := range p.n {
		m[p.idx[i]] = p.vals[i]
	}
	return m
}

// Prompt is EncodePrompt(tokens) with each word's rotor remembered: the
// product over tokens k of p_k·w_k·~p_k, each factor multiplied in by
// algebra.MulSandwich, which is Mul(f, Sandwich(p_k, w_k)) bit for bit.
func (r *Rotors) Prompt(tokens []string) algebra.MV {
	f := algebra.One()
	var scratch algebra.Gathered
	for k, tok := range tokens {
		algebra.MulSandwich(&f, positionVersor(k), r.gathered(tok, &scratch))
	}
	return f
}

// Term is TermRotor(term) with each word's rotor remembered.
func (r *Rotors) Term(term string) algebra.MV { return r.Prompt(text.Tokenize(term)) }
