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
type Rotors struct {
	mu    sync.RWMutex
	words map[string]algebra.MV
	max   int
}

// NewRotors returns a memo of at most max words.
func NewRotors(max int) *Rotors {
	return &Rotors{words: make(map[string]algebra.MV), max: max}
}

// Word is WordRotor(word), remembered.
func (r *Rotors) Word(word string) algebra.MV {
	if r == nil {
		return WordRotor(word)
	}
	r.mu.RLock()
	m, ok := r.words[word]
	r.mu.RUnlock()
	if ok {
		return m
	}
	m = WordRotor(word)
	r.mu.Lock()
	if len(r.words) < r.max {
		r.words[word] = m
	}
	r.mu.Unlock()
	return m
}

// Prompt is EncodePrompt(tokens) with each word's rotor remembered.
func (r *Rotors) Prompt(tokens []string) algebra.MV {
	f := algebra.One()
	for k, tok := range tokens {
		p := positionRotor(k)
		f = algebra.Mul(f, algebra.Sandwich(p, r.Word(tok)))
	}
	return f
}

// Term is TermRotor(term) with each word's rotor remembered.
func (r *Rotors) Term(term string) algebra.MV { return r.Prompt(text.Tokenize(term)) }
