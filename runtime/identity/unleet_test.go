package identity

import (
	"strings"
	"testing"

	"formation/internal/testutil"
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
