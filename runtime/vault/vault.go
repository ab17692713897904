// Package vault is a conversation's exact rotor memory.
//
// Recall is an exact scan: every stored entry is scored against the query, and
// nothing approximates, prunes or reprojects. Rotor entries are scored by the
// scalar product <Q·~E>_0, which for rotors in the Euclidean planes is the
// plain dot product of their coefficients — 1 for the same rotor, and always
// within [−1, 1] — instead of the indefinite CGA inner product the original
// used (under which a rotor need not even resemble itself). Entries are stored
// as given and never rewritten: the original's periodic null reprojection,
// which turned every rotor into the conformal origin, does not exist here.
//
// Ordering, one rule everywhere: entries bitwise equal to the query come first
// (in storage order, marked Exact), then the others by score descending, ties
// by storage index ascending.
package vault

import (
	"slices"

	"formation/runtime/algebra"
	"formation/runtime/epistemic"
)

// Entry is one stored rotor and what it remembers.
type Entry struct {
	Versor  algebra.MV
	Turn    int    // the conversation turn that stored it
	Role    string // who produced it, e.g. "user"
	Subject string // the knowledge term the turn was about, if any
	Status  epistemic.Status
}

// Hit is one recalled entry.
type Hit struct {
	Index int     // storage index
	Score float64 // <Q·~E>_0
	Exact bool    // the entry is bitwise the query
	Entry Entry
}

// Vault stores entries in order. It is owned by one conversation and is not
// safe for concurrent use.
type Vault struct {
	entries []Entry
}

// Reset empties the vault, keeping the room its entries took for the
// next ones.
func (v *Vault) Reset() {
	clear(v.entries) // nothing stored before is kept alive
	v.entries = v.entries[:0]
}

// Len is the number of stored entries.
func (v *Vault) Len() int { return len(v.entries) }

// Store appends an entry (status Speculative unless given) and returns its
// index.
func (v *Vault) Store(e Entry) int {
	if e.Status == "" {
		e.Status = epistemic.Speculative
	}
	v.entries = append(v.entries, e)
	return len(v.entries) - 1
}

// Entry returns the entry at index i.
func (v *Vault) Entry(i int) (Entry, bool) {
	if i < 0 || i >= len(v.entries) {
		return Entry{}, false
	}
	return v.entries[i], true
}

// Recall returns up to topK entries for query q, ordered as the package
// comment says, keeping only entries whose status passes min (see
// epistemic.Passes; "" admits all but Falsified). topK ≤ 0 returns nothing.
func (v *Vault) Recall(q algebra.MV, topK int, min epistemic.Status) []Hit {
	if topK <= 0 {
		return nil
	}
	// The order is sorted on the hits' keys alone, then the top entries are
	// copied out: the same comparisons and swaps as sorting whole hits (an
	// entry carries its 32-coefficient rotor), on a fraction of the bytes.
	keys := make([]hitKey, 0, len(v.entries))
	for i, e := range v.entries {
		if !epistemic.Passes(e.Status, min) {
			continue
		}
		keys = append(keys, hitKey{Index: i, Score: algebra.ScalarProduct(q, e.Versor), Exact: e.Versor == q})
	}
	slices.SortStableFunc(keys, func(a, b hitKey) int {
		// Only "a before b" is asked (< 0): sort.SliceStable's comparisons,
		// and the same insertion and merge steps, without its reflection.
		if before(a, b) {
			return -1
		}
		return 0
	})
	if len(keys) > topK {
		keys = keys[:topK]
	}
	hits := make([]Hit, len(keys))
	for n, k := range keys {
		hits[n] = Hit{Index: k.Index, Score: k.Score, Exact: k.Exact, Entry: v.entries[k.Index]}
	}
	return hits
}

// hitKey is what the recall order reads of a hit.
type hitKey struct {
	Index int
	Score float64
	Exact bool
}

// before is the recall order: exact matches first, then score descending,
// then storage index ascending.
func before(a, b hitKey) bool {
	if a.Exact != b.Exact {
		return a.Exact
	}
	if a.Score != b.Score && !a.Exact {
		return a.Score > b.Score
	}
	return a.Index < b.Index
}
