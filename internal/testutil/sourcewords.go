package testutil

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sourceWord is a lower-case string literal as the runtime's word lists
// spell them.
var sourceWord = regexp.MustCompile(`"([a-z0-9@$=']+)"`)

// SourceWords returns every lower-case string literal in the non-test Go
// files of dirs: the words a package's code names, for tests that build
// random inputs from the vocabulary a shortcut was derived from.
func SourceWords(t testing.TB, dirs ...string) []string {
	t.Helper()
	var words []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range sourceWord.FindAllStringSubmatch(string(src), -1) {
				words = append(words, m[1])
			}
		}
	}
	return words
}
