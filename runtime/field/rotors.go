package field

import (
	"hash/maphash"
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
	// The memo is split into shards, each a pair of plain maps behind its
	// own mutex, chosen by a hash of the word. Behind one RWMutex, the
	// workers kept waiting on each other's inserts (1 MiB chain source:
	// about 40,000 blocking waits in the run stage, each leaving a core
	// idle until the waiter was scheduled again); sync.Maps removed the
	// waits but held the 100,000-relation run stage's peak about 50 MB
	// higher. Across shards two workers seldom meet, and a rotor is
	// computed outside any lock.
	shards  [rotorShards]rotorShard
	seed    maphash.Seed
	nWords  atomic.Int64
	max     int
	nPacked atomic.Int64
	maxPkd  int
}

// rotorShards is the number of shards of a memo.
const rotorShards = 64

type rotorShard struct {
	mu     sync.Mutex
	words  map[string]*algebra.Gathered
	packed map[string]packedRotor
}

// NewRotors returns a memo that keeps the first max words gathered, ready
// to multiply in, and up to packed words after them packed
// (packedRotor): a large subject names far more distinct words than the
// first tier holds (every term of a 500,000-relation chain is a word of its
// own), and rebuilding a packed rotor costs a tenth of computing it again.
// Under concurrent inserts a tier may overshoot its bound by one word per
// goroutine inserting at that moment.
func NewRotors(max, packed int) *Rotors {
	r := &Rotors{max: max, maxPkd: packed, seed: maphash.MakeSeed()}
	for i := range r.shards {
		r.shards[i].words = make(map[string]*algebra.Gathered)
		r.shards[i].packed = make(map[string]packedRotor)
	}
	return r
}

// shard is word's shard. The seed differs from one memo to the next; a
// shard only decides which lock a word is kept behind, never a result.
func (r *Rotors) shard(word string) *rotorShard {
	return &r.shards[maphash.String(r.seed, word)%rotorShards]
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
	sh := r.shard(word)
	sh.mu.Lock()
	g, ok := sh.words[word]
	var p packedRotor
	var isPacked bool
	if !ok {
		p, isPacked = sh.packed[word]
	}
	sh.mu.Unlock()
	switch {
	case ok:
		return g
	case isPacked:
		*scratch = algebra.Gather(p.unpack())
		return scratch
	}
	w := WordRotor(word)
	if r.nWords.Load() < int64(r.max) {
		fresh := algebra.Gather(w)
		sh.mu.Lock()
		defer sh.mu.Unlock()
		if had, ok := sh.words[word]; ok {
			return had
		}
		sh.words[word] = &fresh
		r.nWords.Add(1)
		return &fresh
	}
	if r.nPacked.Load() < int64(r.maxPkd) {
		if p, ok := pack(&w); ok {
			sh.mu.Lock()
			if _, had := sh.packed[word]; !had {
				sh.packed[word] = p
				r.nPacked.Add(1)
			}
			sh.mu.Unlock()
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
	// scratch takes a rotor that is not kept. It lives here rather than on
	// PromptSeen's stack: a pointer that may be stored in words escapes,
	// and the stack copy cost an 850-byte allocation every turn.
	scratch algebra.Gathered
}

// PromptSeen is Prompt, reading the rotors of words met before from view
// and adding those it takes from the first tier.
func (r *Rotors) PromptSeen(tokens []string, view *RotorView) algebra.MV {
	if r == nil {
		return r.Prompt(tokens)
	}
	f := algebra.One()
	for k, tok := range tokens {
		g, ok := view.words[tok]
		if !ok {
			g = r.gathered(tok, &view.scratch)
			if g != &view.scratch && len(view.words) < r.max {
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
