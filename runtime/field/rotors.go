package field

import (
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
	mu    sync.RWMutex
	words map[string]*algebra.Gathered
	max   int
}

// NewRotors returns a memo of at most max words.
func NewRotors(max int) *Rotors {
	return &Rotors{words: make(map[string]*algebra.Gathered), max: max}
}

// Word is WordRotor(word), remembered.
func (r *Rotors) Word(word string) algebra.MV {
	w := r.gathered(word)
	return w.MV()
}

// gathered is Gather(WordRotor(word)), remembered. The memo's entries are
// never written after they are stored, so a reader may keep the pointer.
func (r *Rotors) gathered(word string) *algebra.Gathered {
	if r == nil {
		w := algebra.Gather(WordRotor(word))
		return &w
	}
	r.mu.RLock()
	m, ok := r.words[word]
	r.mu.RUnlock()
	if ok {
		return m
	}
	w := algebra.Gather(WordRotor(word))
	m = &w
	r.mu.Lock()
	if len(r.words) < r.max {
		r.words[word] = m
	}
	r.mu.Unlock()
	return m
}

// Prompt is EncodePrompt(tokens) with each word's rotor remembered: the
// product over tokens k of p_k·w_k·~p_k, each factor multiplied in by
// algebra.MulSandwich, which is Mul(f, Sandwich(p_k, w_k)) bit for bit.
func (r *Rotors) Prompt(tokens []string) algebra.MV {
	f := algebra.One()
	for k, tok := range tokens {
		algebra.MulSandwich(&f, positionVersor(k), r.gathered(tok))
	}
	return f
}

// Term is TermRotor(term) with each word's rotor remembered.
func (r *Rotors) Term(term string) algebra.MV { return r.Prompt(text.Tokenize(term)) }
