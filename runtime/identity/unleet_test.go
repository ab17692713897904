package identity

import (
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/review/override"
	"formation/runtime/text"
)

// The check reads digits in a token as the strings.Replacers it used to:
// the same word for every token of the suites and their leet spellings, and
// some of them read as words.
func TestUnleetReadsAsReplacers(t *testing.T) {
	g, err := NewGeometry(defaultAxes, nil)
	if err != nil {
		t.Fatal(err)
	}
	leet := strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t")
	leetL := strings.NewReplacer("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t")
	read := 0
	for _, w := range testutil.LeetTokens(t, text.Tokenize) {
		want := w
		if strings.ContainsAny(w, "013457") && strings.IndexFunc(w, func(r rune) bool { return 'a' <= r && r <= 'z' }) >= 0 {
			if r := leet.Replace(w); g.known(r) {
				want = r
			} else if r := leetL.Replace(w); g.known(r) {
				want = r
			}
		}
		if got := g.unleet(w); got != want {
			t.Fatalf("%q: read %q, the replacers %q", w, got, want)
		}
		if want != w {
			read++
		}
	}
	if read < 100 {
		t.Fatalf("only %d tokens read as words", read)
	}
}

// known asks one set instead of the maps it gathers: the same answer for
// every word of the maps, every token of the suites and their leet
// spellings read both ways, and words in none of them.
func TestKnownIsTheMaps(t *testing.T) {
	g, err := NewGeometry(defaultAxes, nil)
	if err != nil {
		t.Fatal(err)
	}
	maps := func(w string) bool {
		_, held := g.holds[w]
		return held || g.lex.push[w] > 0 || g.lex.bearer.Has(w) || g.lex.imperative.Has(w) || override.Known(w)
	}
	words := []string{"", "term0000057", "termooooost", "x", "re", "causes"}
	for w := range g.holds {
		words = append(words, w)
	}
	for w := range g.lex.push {
		words = append(words, w, w+"s", "re"+w)
	}
	words = append(append(words, g.lex.bearer.Words()...), g.lex.imperative.Words()...)
	for _, w := range testutil.LeetTokens(t, text.Tokenize) {
		words = append(words, w, string(g.lex.leet.Append(nil, w)), string(g.lex.leetL.Append(nil, w)))
	}
	for _, w := range words {
		if got, want := g.known(w), maps(w); got != want {
			t.Fatalf("%q: known %v, the maps %v", w, got, want)
		}
	}
}
