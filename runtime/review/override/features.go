package override

// features is a score table's weights for lookup: every turn the forms
// pass is scored, its words and word pairs looked up one by one, and a Go
// map hashes each whole key (a pair first spelled into a buffer). features
// hashes the length and three bytes of a key, as text.WordSet does, turns
// most keys it does not hold away at a bit of a 512-bit filter, and takes a
// pair as its two words, never joined. It answers as the map it is built
// from (TestFeaturesAreWeights).
type features struct {
	keys   []string // open addressing, linear probing; "" is an empty slot
	vals   []int64
	shift  uint      // 64 - log2(len(keys))
	filter [8]uint64 // bit hash>>55 is set for the hash of every key held
}

// newFeatures builds the table of m. The empty key, which no feature is,
// is left out.
func newFeatures(m map[string]int64) *features {
	size, bits := 8, uint(3)
	for size < 2*len(m) {
		size, bits = size*2, bits+1
	}
	f := &features{keys: make([]string, size), vals: make([]int64, size), shift: 64 - bits}
	for k, v := range m {
		if k == "" {
			continue
		}
		h := featureHash(len(k), k[0], k[len(k)-1], k[len(k)>>1])
		f.filter[h>>61] |= 1 << (h >> 55 & 63)
		i := int(h >> f.shift)
		for f.keys[i] != "" {
			i = (i + 1) & (size - 1)
		}
		f.keys[i], f.vals[i] = k, v
	}
	return f
}

// featureHash mixes a key's length and its first, last and middle bytes.
func featureHash(n int, first, last, middle byte) uint64 {
	return (uint64(n) | uint64(first)<<8 | uint64(last)<<16 | uint64(middle)<<24) * 0x9E3779B97F4A7C15
}

// word is the weight of the feature w (0 when the table has none).
func (f *features) word(w string) int64 {
	if w == "" {
		return 0
	}
	h := featureHash(len(w), w[0], w[len(w)-1], w[len(w)>>1])
	if f.filter[h>>61]&(1<<(h>>55&63)) == 0 {
		return 0
	}
	mask := len(f.keys) - 1
	for i := int(h >> f.shift); f.keys[i] != ""; i = (i + 1) & mask {
		if f.keys[i] == w {
			return f.vals[i]
		}
	}
	return 0
}

// pair is the weight of the feature a+" "+b, without building it.
func (f *features) pair(a, b string) int64 {
	if a == "" || b == "" {
		return f.word(a + " " + b) // never on a turn: normalize keeps no empty word
	}
	n := len(a) + 1 + len(b)
	middle := byte(' ')
	switch m := n >> 1; {
	case m < len(a):
		middle = a[m]
	case m > len(a):
		middle = b[m-len(a)-1]
	}
	h := featureHash(n, a[0], b[len(b)-1], middle)
	if f.filter[h>>61]&(1<<(h>>55&63)) == 0 {
		return 0
	}
	mask := len(f.keys) - 1
	for i := int(h >> f.shift); f.keys[i] != ""; i = (i + 1) & mask {
		if k := f.keys[i]; len(k) == n && k[len(a)] == ' ' && k[:len(a)] == a && k[len(a)+1:] == b {
			return f.vals[i]
		}
	}
	return 0
}
