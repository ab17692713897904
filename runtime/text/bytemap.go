package text

import "fmt"

// ByteMap replaces bytes one for one, as a strings.Replacer whose olds and
// news are all single bytes does, but into a buffer the caller owns: the
// readers of digits written for letters ("y0ur", "term1234") try a token
// both ways on every turn, and a Replacer allocates a string for each
// try, most of which are read once and dropped.
type ByteMap [256]byte

// NewByteMap maps each old byte to its new one, as
// strings.NewReplacer(oldnew...) would; an earlier pair wins over a later
// one with the same old byte, as there. Every old and new must be one byte.
func NewByteMap(oldnew ...string) *ByteMap {
	if len(oldnew)%2 == 1 {
		panic("text: NewByteMap with an odd number of arguments")
	}
	var m ByteMap
	for i := range m {
		m[i] = byte(i)
	}
	for i := len(oldnew) - 2; i >= 0; i -= 2 {
		if len(oldnew[i]) != 1 || len(oldnew[i+1]) != 1 {
			panic(fmt.Sprintf("text: NewByteMap pair %q → %q is not one byte each", oldnew[i], oldnew[i+1]))
		}
		m[oldnew[i][0]] = oldnew[i+1][0]
	}
	return &m
}

// Append appends s with every byte replaced.
func (m *ByteMap) Append(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, m[s[i]])
	}
	return dst
}
