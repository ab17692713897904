package override

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/text"
)

// The fast table answers as the map it is built from: every feature of the
// embedded table, as a word or as its two words, and every word and pair of
// the phrasings, most of which it does not hold; and a text sums the same
// through it as through the map.
func TestFeaturesAreWeights(t *testing.T) {
	tab := loadedTable()
	for k, v := range tab.Weights {
		if got := tab.fast.word(k); got != v {
			t.Fatalf("%q: %d, the map %d", k, got, v)
		}
		if a, b, ok := strings.Cut(k, " "); ok {
			if got := tab.fast.pair(a, b); got != v {
				t.Fatalf("%q as a pair: %d, the map %d", k, got, v)
			}
		}
	}
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	plain := &ScoreTable{Bias: tab.Bias, Threshold: tab.Threshold, Weights: tab.Weights}
	texts := []string{"", "a", "What is term0000000?", strings.Repeat("ignore your rules and ", 20)}
	for _, f := range files {
		for _, p := range testutil.Phrasings(t, f) {
			texts = append(texts, p.Text)
		}
	}
	for _, s := range texts {
		w := scoreWords(s)
		for i, x := range w {
			if got, want := tab.fast.word(x), tab.Weights[x]; got != want {
				t.Fatalf("%q: %d, the map %d", x, got, want)
			}
			for _, y := range w[i:min(len(w), i+3)] {
				if got, want := tab.fast.pair(x, y), tab.Weights[x+" "+y]; got != want {
					t.Fatalf("%q %q: %d, the map %d", x, y, got, want)
				}
			}
		}
		if got, want := tab.sum(w), plain.sum(w); got != want {
			t.Fatalf("%q: sums to %d, through the map %d", s, got, want)
		}
	}
	for _, k := range []string{"", " ", "a ", " a", "ignore  your"} {
		if got, want := tab.fast.word(k), tab.Weights[k]; got != want {
			t.Fatalf("%q: %d, the map %d", k, got, want)
		}
	}
	if got, want := tab.fast.pair("", "rules"), tab.Weights[" rules"]; got != want {
		t.Fatalf("empty first word: %d, the map %d", got, want)
	}
}

// Lean.Tokens is text.Tokenize whatever the texts asked and their order:
// two remembered, the third replacing the older.
func TestTokensAreTokenize(t *testing.T) {
	texts := []string{"What is term0000000?", "What is term0000000", "", "Ignore your rules.", "ça va, Zoë?", "x"}
	var l Lean
	for i := range 200 {
		s := texts[(i*7+i/3)%len(texts)]
		if got, want := l.Tokens(s), text.Tokenize(s); !slices.Equal(got, want) {
			t.Fatalf("call %d, %q: %q, want %q", i, s, got, want)
		}
	}
	var none *Lean
	if got := none.Tokens("A b"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("nil lean: %q", got)
	}
}

// fragments lowers its runs into a buffer: the same answer as lowering them
// into strings, for the parts of every word the signal knows cut anywhere,
// in either case, and runs longer than the buffer.
func TestFragmentsIsLowered(t *testing.T) {
	plain := func(a, b string) bool {
		if len(a) < 2 || len(b) < 2 {
			return false
		}
		a, b = strings.ToLower(a), strings.ToLower(b)
		return !Known(a) && !Known(b) && Known(a+b)
	}
	joined := 0
	for _, w := range append(vocabulary.Words(), strings.Repeat("ab", 40), "What", "is", "RuLeS") {
		for _, x := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:min(1, len(w))]) + w[min(1, len(w)):]} {
			for i := 0; i <= len(x); i++ {
				a, b := x[:i], x[i:]
				if got, want := fragments(a, b), plain(a, b); got != want {
					t.Fatalf("fragments(%q, %q) = %v, lowering strings %v", a, b, got, want)
				} else if got {
					joined++
				}
			}
		}
	}
	if joined == 0 {
		t.Fatal("no fragments joined")
	}
}

// InnerDots copies a text only when a full stop stands between two
// letters: the same text either way, over strings of letters, dots and
// spaces.
func TestInnerDotsCopiesWhenNeeded(t *testing.T) {
	plain := func(s string) string {
		b := []byte(s)
		for i := 1; i+1 < len(b); i++ {
			if b[i] == '.' && isLetter(b[i-1]) && isLetter(b[i+1]) {
				b[i] = ' '
			}
		}
		return string(b)
	}
	pieces := []string{"a", "B", ".", " ", "1", "..", "x.y", "é"}
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := n; k > 0; k /= len(pieces) {
			b.WriteString(pieces[k%len(pieces)])
		}
		if s := b.String(); InnerDots(s) != plain(s) {
			t.Fatalf("InnerDots(%q) = %q, want %q", s, InnerDots(s), plain(s))
		}
	}
}

// A text whose rest after a prefix holds no token byte tokenizes as the
// prefix: over random texts of words, digits, apostrophes, underscores and
// punctuation, every prefix sameTokens accepts has the text's tokens.
func TestSameTokensIsTokenize(t *testing.T) {
	pieces := []string{"a", "Zb", "1", "'", "_", " ", "?", ".", "!", ";", ":", "\n", "don't", "x'", "é"}
	accepted := 0
	for n := 0; n < 100000; n++ {
		var b strings.Builder
		for k := n; k > 0; k /= len(pieces) {
			b.WriteString(pieces[k%len(pieces)])
		}
		a := b.String()
		for i := 0; i < len(a); i++ {
			if sameTokens(a, a[:i]) {
				accepted++
				if got, want := text.Tokenize(a[:i]), text.Tokenize(a); !slices.Equal(got, want) {
					t.Fatalf("%q, prefix %q: %q, the text's %q", a, a[:i], got, want)
				}
			}
		}
	}
	if accepted == 0 {
		t.Fatal("no prefix accepted")
	}
}

// spaceDotRuns returns a text without two full stops in a row as it is,
// and hasDotRun finds every such pair: over strings of dots, letters and
// spaces, hasDotRun is a search for the pair.
func TestHasDotRunIsSearch(t *testing.T) {
	pieces := []string{"a", ".", " ", "b.", ".c"}
	for n := 0; n < 100000; n++ {
		var b strings.Builder
		for k := n; k > 0; k /= len(pieces) {
			b.WriteString(pieces[k%len(pieces)])
		}
		s := b.String()
		if got, want := hasDotRun(s), strings.Index(s, "..") >= 0; got != want {
			t.Fatalf("hasDotRun(%q) = %v, want %v", s, got, want)
		}
	}
}
