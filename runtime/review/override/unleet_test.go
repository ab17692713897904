package override

import (
	"fmt"
	"strings"
	"testing"

	"formation/internal/testutil"
	"formation/runtime/text"
)

// The signal reads digits and signs in a token as the strings.Replacers it
// used to: the same word for every token of the suites and the held-out
// parts and their leet spellings, and some of them read as words.
func TestUnleetReadsAsReplacers(t *testing.T) {
	files := []string{testutil.SuiteFile, testutil.ImperativesFile, testutil.HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	asDigits := []*strings.Replacer{strings.NewReplacer("o", "0", "i", "1", "e", "3", "a", "4", "s", "5", "t", "7"),
		strings.NewReplacer("o", "0", "l", "1", "e", "3", "a", "@"), strings.NewReplacer("e", "3", "t", "7", "s", "$"),
		strings.NewReplacer("l", "1", "s", "$")}
	leets := []*strings.Replacer{
		strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s"),
		strings.NewReplacer("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s"),
	}
	reference := func(tok string) string {
		if strings.IndexAny(tok, "013457") < 0 || strings.IndexFunc(tok, func(r rune) bool { return 'a' <= r && r <= 'z' }) < 0 ||
			strings.ContainsAny(tok, "2689") {
			return tok
		}
		for _, r := range leets {
			switch x := r.Replace(tok); {
			case vocabulary.Has(x) || slang[x] != nil:
				return x
			case misspelt[x] != "":
				return misspelt[x]
			}
		}
		return tok
	}
	read := 0
	for _, file := range files {
		for _, p := range testutil.Phrasings(t, file) {
			for _, tok := range text.Tokenize(p.Text) {
				for _, w := range []string{tok, asDigits[0].Replace(tok), asDigits[1].Replace(tok), asDigits[2].Replace(tok) + "1", asDigits[3].Replace(tok), "term" + asDigits[0].Replace(tok) + "1234"} {
					want := reference(w)
					if got := unleet(w); got != want {
						t.Fatalf("%q: read %q, the replacers %q", w, got, want)
					}
					if want != w {
						read++
					}
				}
			}
		}
	}
	if read < 100 {
		t.Fatalf("only %d tokens read as words", read)
	}
}
