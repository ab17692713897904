package review

import (
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/text"
)

// The gate reads digits in a token as the strings.Replacers it used to:
// the same word for every token of the suites and their leet spellings,
// and some of them read as words.
func TestUnleetReadsAsReplacers(t *testing.T) {
	g := NewGate(axes...)
	leets := []*strings.Replacer{strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t"),
		strings.NewReplacer("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t")}
	read := 0
	for _, tok := range testutil.LeetTokens(t, text.Tokenize) {
		want := tok
		if strings.IndexFunc(tok, func(r rune) bool { return '0' <= r && r <= '9' }) >= 0 &&
			strings.IndexFunc(tok, func(r rune) bool { return 'a' <= r && r <= 'z' }) >= 0 && !strings.ContainsAny(tok, "2689") {
			for _, r := range leets {
				if w := r.Replace(tok); g.known(w) {
					want = w
					break
				}
			}
		}
		if got := g.unleet(tok); got != want {
			t.Fatalf("%q: read %q, the replacers %q", tok, got, want)
		}
		if want != tok {
			read++
		}
	}
	if read < 100 {
		t.Fatalf("only %d tokens read as words", read)
	}
}
