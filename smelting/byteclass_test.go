package smelting

import (
	"strings"
	"testing"

	"formation/relparse"
)

// TestByteClass checks every entry of the constant table against the
// predicate each class stands for.
func TestByteClass(t *testing.T) {
	if len(byteClass) != 256 {
		t.Fatalf("byteClass has %d entries, want 256", len(byteClass))
	}
	for i := 0; i < 256; i++ {
		c := byte(i)
		ascii := c < 0x80
		alnum := ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
		want := map[byte]bool{
			classPlain:    ascii && !isASCIISpace(c) && !strings.ContainsRune("([)]", rune(c)),
			classOperator: ascii && strings.ContainsRune(":=!&|-</*{(}", rune(c)),
			classWord:     alnum || c == '_',
			classAlnum:    alnum,
			classCode:     ascii && strings.ContainsRune("()[]{}<>=;*&|$#\\\"`/%@~^+", rune(c)),
		}
		for class, w := range want {
			if hasClass(c, class) != w {
				t.Errorf("byte %#x: class %d is %v, want %v", c, class, !w, w)
			}
		}
	}
}

// TestMayBeRelation checks that the filter lets every relation of the
// vocabulary through.
func TestMayBeRelation(t *testing.T) {
	for _, rel := range relparse.Relations() {
		if !mayBeRelation(rel) {
			t.Errorf("mayBeRelation(%q) is false", rel)
		}
	}
}

// TestLowerWord checks the eight-byte lower-casing against one byte at a
// time, for every ASCII byte in every position.
func TestLowerWord(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		for pos := 0; pos < 8; pos++ {
			b := []byte("aZ.q@[`z")
			b[pos] = byte(c)
			w := uint64(0)
			for k := 7; k >= 0; k-- {
				w = w<<8 | uint64(b[k])
			}
			got := lowerWord(w)
			for k := 0; k < 8; k++ {
				want := b[k]
				if 'A' <= want && want <= 'Z' {
					want += 'a' - 'A'
				}
				if byte(got>>(8*k)) != want {
					t.Fatalf("lowerWord(%q): byte %d is %q, want %q", b, k, byte(got>>(8*k)), want)
				}
			}
		}
	}
}
