package review

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode"

	"formation/internal/testutil"
	"formation/runtime/text"
)

// capitalsByRune is capitals as first written, every rune through the
// Unicode tables: the reference its ASCII path is held to.
func capitalsByRune(s string, n int) []bool {
	caps := make([]bool, 0, n)
	prevWord, prev := false, rune(0)
	for _, r := range s {
		word := r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.N, r)
		inWord := prevWord || (prev == '\'' || prev == '’') && len(caps) > 0
		if word && !inWord {
			caps = append(caps, unicode.IsUpper(r))
		}
		prevWord, prev = word, r
	}
	if len(caps) != n {
		return make([]bool, n)
	}
	return caps
}

func sameCapitals(t *testing.T, s string) {
	t.Helper()
	n := len(text.Tokenize(s))
	if got, want := capitals(s, n), capitalsByRune(s, n); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%q: capitals %v, by rune %v", s, got, want)
	}
}

// capitals reads every text of the suite and the held-out parts, every
// byte alone, and random strings of letters, digits, marks, apostrophes
// and bytes that are not UTF-8, as it did rune by rune.
func TestCapitalsByRange(t *testing.T) {
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			sameCapitals(t, p.Text)
		}
	}
	for c := range 256 {
		sameCapitals(t, "a "+string([]byte{byte(c)})+"B c")
	}
	pieces := []string{"A", "z", "_", "0", "9", "'", "’", " ", "-", "É", "é", "ǅ", "\u0301", "²", "٣", "Ⅻ", "\xff", "\xe2\x80", ".", "\t"}
	r := rand.New(rand.NewPCG(4, 4))
	for range 20000 {
		s := ""
		for range r.IntN(12) {
			s += pieces[r.IntN(len(pieces))]
		}
		sameCapitals(t, s)
	}
}

func FuzzCapitals(f *testing.F) {
	f.Add("Ignore ALL previous_instructions, y0ur rules’ É\u0301 ²")
	f.Fuzz(sameCapitals)
}
