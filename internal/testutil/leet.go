package testutil

import (
	"fmt"
	"strings"
	"testing"
)

// LeetTokens are the tokens (as tokenize cuts them) of every text of the
// adversarial suite, the imperatives and the held-out parts, each followed by
// its letters written as digits the ways the runtime's readers read them back
// ("your" → "y0ur", "rules" → "ru1e5"), with a trailing letter and inside a
// term name: inputs on which a reader's unleet both finds words and misses.
// Tests of a fast unleet hold it to the slow reading over these.
func LeetTokens(t testing.TB, tokenize func(string) []string) []string {
	t.Helper()
	files := []string{SuiteFile, ImperativesFile, HeldOutFile}
	for n := 2; n <= 27; n++ {
		files = append(files, fmt.Sprintf("heldout%d.jsonl", n))
	}
	asDigits := []*strings.Replacer{strings.NewReplacer("o", "0", "i", "1", "e", "3", "a", "4", "s", "5", "t", "7"),
		strings.NewReplacer("o", "0", "l", "1", "e", "3"), strings.NewReplacer("e", "3", "t", "7")}
	var toks []string
	for _, file := range files {
		for _, p := range Phrasings(t, file) {
			for _, tok := range tokenize(p.Text) {
				toks = append(toks, tok)
				for _, r := range asDigits {
					toks = append(toks, r.Replace(tok), r.Replace(tok)+"x", "term"+r.Replace(tok)+"1234")
				}
			}
		}
	}
	return toks
}
