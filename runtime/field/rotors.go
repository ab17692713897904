package field

import (
	"math"
	"sync"
	"sync/atomic"

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
	// The tiers are sync.Maps, not maps behind one RWMutex: every worker
	// reads the memo at each word of each turn, and a subject of many
	// distinct terms adds to it all the time. Behind one lock, the
	// workers kept waiting on each other's inserts (1 MiB chain source:
	// about 40,000 blocking waits in the run stage, each one leaving a
	// core idle until the waiter was scheduled again).
	words   sync.Map // string -> *algebra.Gathered
	nWords  atomic.Int64
	max     int
	packed  sync.Map // string -> *packedRotor
	nPacked atomic.Int64
	maxPkd  int
}

// NewRotors returns a memo that keeps the first max words gathered, ready
// to multiply in, and up to packed words after them packed
// (packedRotor): a large subject names far more distinct words than the
// first tier holds (every term of a 500,000-relation chain is a word of its
// own), and rebuilding a packed rotor costs a tenth of computing it again.
// Under concurrent inserts a tier may overshoot its bound by one word per
// goroutine inserting at that moment.
func NewRotors(max, packed int) *Rotors {
	return &Rotors{max: max, maxPkd: packed}
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
	if g, ok := r.words.Load(word); ok {
		return g.(*algebra.Gathered)
	}
	if p, ok := r.packed.Load(word); ok {
		*scratch = algebra.Gather(p.(*packedRotor).unpack())
		return scratch
	}
	w := WordRotor(word)
	if r.nWords.Load() < int64(r.max) {
		g := algebra.Gather(w)
		if had, loaded := r.words.LoadOrStore(word, &g); loaded {
			return had.(*algebra.Gathered)
		}
		r.nWords.Add(1)
		return &g
	}
	if r.nPacked.Load() < int64(r.maxPkd) {
		if p, ok := pack(&w); ok {
			if _, loaded := r.packed.LoadOrStore(word, &p); !loaded {
				r.nPacked.Add(1)
			}
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

// RotorView is one goroutine's copy of the pointers it has taken from a
// memo's first tier (which are never written once stored), so that a word
// it met before costs a plain map read and no look-up in the shared memo.
// It holds no more words than the first tier. The zero value is empty and
// ready; a RotorView is not safe for concurrent use.
type RotorView struct {
	words map[string]*algebra.Gathered
}

// PromptSeen is Prompt, reading the rotors of words met before from view
// and adding those it takes from the first tier.
func (r *Rotors) PromptSeen(tokens []string, view *RotorView) algebra.MV {
	if r == nil {
		return r.Prompt(tokens)
	}
	f := algebra.One()
	var scratch algebra.Gathered
	for k, tok := range tokens {
		g, ok := view.words[tok]
		if !ok {
			g = r.gathered(tok, &scratch)
			if g != &scratch && len(view.words) < r.max {
				if view.words == nil {
					view.words = make(map[string]*algebra.Gathered)
				}
				view.words[tok] = g
			}
		}
		algebra.MulSandwich(&f, positionVersor(k), g)
	}
	return f
}

// Term is TermRotor(term) with each word's rotor remembered.
func (r *Rotors) Term(term string) algebra.MV { return r.Prompt(text.Tokenize(term)) }
