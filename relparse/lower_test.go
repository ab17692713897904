package relparse

import (
	"testing"
	"unicode"
)

// TestLowerRune checks the arithmetic of lowerRune against the Unicode
// tables, over the Greek and Cyrillic blocks and around them.
func TestLowerRune(t *testing.T) {
	for r := rune(0x300); r < 0x530; r++ {
		if got, want := lowerRune(r), unicode.ToLower(r); got != want {
			t.Errorf("lowerRune(%U) = %U, want %U", r, got, want)
		}
	}
}

// TestBasicGreekOrCyrillicLetter checks the ranges the fast path of
// IsWordRune answers for against the Unicode tables.
func TestBasicGreekOrCyrillicLetter(t *testing.T) {
	for r := rune(0x300); r < 0x530; r++ {
		if basicGreekOrCyrillicLetter(r) && !unicode.IsLetter(r) {
			t.Errorf("%U is no letter", r)
		}
	}
}
