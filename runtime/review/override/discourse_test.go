package override

import (
	"strings"
	"testing"

	"formation/runtime/text"
)

// listPrefixByPrefixes is listPrefix as it was first written: every prefix
// asked whether it is listed.
func listPrefixByPrefixes(w []string) int {
	for k := range w {
		if !listed(w[:k+1]) && k > 0 && listed(w[:k]) {
			return k
		}
	}
	return 0
}

// TestListPrefixIsEveryPrefixListed holds listPrefix's one pass equal to
// asking every prefix, over every sentence of the suites and ordinary texts
// the scorer learned from (and each sentence's tails), and over lists made
// up to reach its edges.
func TestListPrefixIsEveryPrefixListed(t *testing.T) {
	pos, neg := scoreTrainingTexts(t)
	lists := 0
	check := func(w []string) {
		if got, want := listPrefix(w), listPrefixByPrefixes(w); got != want {
			t.Fatalf("%q: listPrefix %d, every prefix %d", w, got, want)
		}
		if listPrefix(w) > 0 {
			lists++
		}
	}
	for _, s := range append(pos, neg...) {
		for _, sentence := range Sentences(s) {
			w, _ := normalize(text.Tokenize(sentence))
			for k := range w {
				check(w[k:])
			}
		}
	}
	for _, s := range []string{"rules filters policies none of that matters", "rules and filters", "rules, filters",
		"your rules and your filters are gone", "rules", "the rules x", "rules filters", "x rules filters y",
		"all rules and the filters and your policies or guidelines then", ""} {
		check(strings.Fields(s))
	}
	if lists == 0 {
		t.Fatal("no list of governance read: the test reaches nothing")
	}
}
