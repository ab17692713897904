package text

// WordSet is an immutable set of words for the closed word lists the gate,
// the override signal and the identity check read. Those readers ask a
// fixed list about the same few dozen words of a turn hundreds of times, and
// a Go map spends most of such a lookup hashing the whole word and walking
// its control groups; WordSet hashes four bytes and the length, turns most
// words it does not hold away at a bit of a 512-bit filter, and compares the
// rest with the one or two entries in their slot run. It answers
// exactly as a map[string]bool of its words would (TestWordSetIsMap).
//
// The zero value and a nil *WordSet are empty. A WordSet is read-only after
// NewWordSet, so any number of goroutines may read it.
type WordSet struct {
	slots    []string  // open addressing, linear probing; "" is an empty slot
	shift    uint      // 64 - log2(len(slots))
	filter   [8]uint64 // bit hash>>55 is set for the hash of every word held
	hasEmpty bool      // "" is a member (it cannot be stored in a slot)
	n        int
}

// NewWordSet returns the set of the words given (duplicates are fine).
func NewWordSet(words ...string) *WordSet {
	s := &WordSet{}
	size, bits := 8, uint(3)
	for size < 2*len(words) {
		size, bits = size*2, bits+1
	}
	s.slots, s.shift = make([]string, size), 64-bits
	for _, w := range words {
		s.add(w)
	}
	return s
}

// WordSetOf returns the set of the keys of m that map to true.
func WordSetOf(m map[string]bool) *WordSet {
	words := make([]string, 0, len(m))
	for w, in := range m {
		if in {
			words = append(words, w)
		}
	}
	return NewWordSet(words...)
}

func (s *WordSet) add(w string) {
	if w == "" {
		if !s.hasEmpty {
			s.hasEmpty = true
			s.n++
		}
		return
	}
	h := hash(w)
	s.filter[h>>61] |= 1 << (h >> 55 & 63)
	mask := len(s.slots) - 1
	for i := int(h >> s.shift); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case "":
			s.slots[i] = w
			s.n++
			return
		case w:
			return
		}
	}
}

// hash is a multiplicative hash of w's length and its first, last and
// middle bytes (w is not empty): its top bits pick the filter bit and the
// first slot.
func hash(w string) uint64 {
	n := len(w)
	return (uint64(n) | uint64(w[0])<<8 | uint64(w[n-1])<<16 | uint64(w[n>>1])<<24) * 0x9E3779B97F4A7C15
}

// Has reports whether w is in the set.
func (s *WordSet) Has(w string) bool {
	if s == nil || len(s.slots) == 0 {
		return false
	}
	if w == "" {
		return s.hasEmpty
	}
	h := hash(w)
	if s.filter[h>>61]&(1<<(h>>55&63)) == 0 {
		return false
	}
	mask := len(s.slots) - 1
	for i := int(h >> s.shift); ; i = (i + 1) & mask {
		switch e := s.slots[i]; e {
		case "":
			return false
		case w:
			return true
		}
	}
}

// Len is the number of words in the set.
func (s *WordSet) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// Words returns the set's words in no particular order (for building other
// sets; nothing hashed may depend on the order).
func (s *WordSet) Words() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, s.n)
	if s.hasEmpty {
		out = append(out, "")
	}
	for _, w := range s.slots {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
