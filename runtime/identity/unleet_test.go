package identity

import (
	"fmt"
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/text"
)

// leetTokens are the tokens of every text of the suite and the held-out
// parts, and each with its letters written as digits the ways the readers
// read them back ("your" → "y0ur", "rules" → "ru1e5"): the words a reader
// knows among them, so that its readings both find and miss.
func leetTokens(t *testing.T) []string {
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	asDigits := []*strings.Replacer{strings.NewReplacer("o", "0", "i", "1", "e", "3", "a", "4", "s", "5", "t", "7"),
		strings.NewReplacer("o", "0", "l", "1", "e", "3"), strings.NewReplacer("e", "3", "t", "7")}
	var toks []string
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			for _, tok := range text.Tokenize(p.Text) {
				toks = append(toks, tok)
				for _, r := range asDigits {
					toks = append(toks, r.Replace(tok), r.Replace(tok)+"x", "term"+r.Replace(tok)+"1234")
				}
			}
		}
	}
	return toks
}

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
	for _, w := range leetTokens(t) {
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
