package smelting

import (
	"strings"
	"unicode/utf8"

	"formation/artifact"
	"formation/relparse"
)

// compoundPhrases are the vocabulary's multi-word predicates as prose
// writes them. The relation parser only knows their underscore spelling
// (belongs_to, …), so the original could never extract them from prose;
// this smelter joins the words with '_' before parsing. Each phrase has the
// byte length of its relation, so joining is a same-length rewrite.
func compoundPhrases() [6]string {
	return [6]string{"belongs to", "contrasts with", "is caused by", "is defined as", "is verified as", "has steps"}
}

// joinCompounds rewrites every whole-word occurrence of a compound phrase
// in the lower-cased, single-spaced sentence low into its relation name,
// and a colon right after the phrase into a space, so that "has steps:
// mix, bake" has the tail "mix, bake".
func joinCompounds(low string) string {
	var out []byte
	for _, p := range compoundPhrases() {
		for from := 0; ; {
			k := strings.Index(low[from:], p)
			if k < 0 {
				break
			}
			at := from + k
			from = at + len(p)
			if !wordBoundary(low, at) || !wordBoundary(low, from) {
				continue
			}
			if out == nil {
				out = []byte(low)
			}
			for i := at; i < from; i++ {
				if out[i] == ' ' {
					out[i] = '_'
				}
			}
			if from < len(out) && out[from] == ':' {
				out[from] = ' ' // "has steps: a, b" lists its tail after a colon
			}
		}
	}
	if out == nil {
		return low
	}
	return string(out)
}

// wordBoundary reports whether offset i of s is not inside a word: the
// runes on either side are not both word characters. Only the side that
// the caller's phrase does not cover matters, and phrases start and end
// with a letter, so this is Python's \b at the edge of a phrase.
func wordBoundary(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i:])
	return !relparse.IsWordRune(before) || !relparse.IsWordRune(after)
}

// parseClaim parses a lower-cased sentence fragment into a triple, with the
// compound predicates recognised.
func parseClaim(low string) (artifact.Triple, bool) {
	return relparse.Parse(joinCompounds(low))
}

// negation describes the negating words of a lower-cased sentence.
type negation struct {
	count     int  // negating words (a contraction such as "isn't" counts once)
	leadingNo bool // the sentence opens with the quantifier "no" ("No mammal is …")
}

// negatingWord reports whether a whole lower-case word negates the clause
// it stands in.
func negatingWord(w string) bool {
	switch w {
	case "not", "no", "never", "cannot", "neither", "nor", "none", "nothing", "nobody":
		return true
	}
	return false
}

// findNegation scans the words of low (Unicode word characters, as the
// parser's word boundaries). A leading "no" directly followed by ',' or ';'
// is the discourse marker "No, …" (which answers something else and then
// asserts), not a negation. "n't" after a word ending in 'n' is a negation
// ("isn't", "doesn't", "can't" and "won't" all end their first part in n).
// A negating word hyphenated to another word is part of a name.
func findNegation(low string) negation {
	var neg negation
	prevEnd := -1
	for i := 0; i < len(low); {
		r, w := decodeAt(low, i)
		if !relparse.IsWordRune(r) {
			i += w
			continue
		}
		start := i
		i = wordEnd(low, i)
		word := low[start:i]
		switch {
		case word == "no" && start == 0 && i < len(low) && (low[i] == ',' || low[i] == ';'):
		case inCompoundWord(low, start, i):
		case negatingWord(word):
			neg.count++
			if start == 0 && word == "no" {
				neg.leadingNo = true
			}
		case word == "t" && prevEnd >= 0 && isApostrophe(low[prevEnd:start]) && low[prevEnd-1] == 'n':
			neg.count++
		}
		prevEnd = i
	}
	return neg
}

// inCompoundWord reports whether the word low[start:end] is hyphenated to
// a neighbour ("no-go", "not-for-profit"): such a word names a thing and
// negates nothing.
func inCompoundWord(low string, start, end int) bool {
	return (start > 0 && low[start-1] == '-') || (end < len(low) && low[end] == '-')
}

// isApostrophe reports whether s is one apostrophe, typed or typographic.
func isApostrophe(s string) bool { return s == "'" || s == "\u2019" }

// wordEnd returns the end of the run of word characters starting at s[i].
func wordEnd(s string, i int) int {
	for i < len(s) {
		r, w := decodeAt(s, i)
		if !relparse.IsWordRune(r) {
			return i
		}
		i += w
	}
	return i
}

// deniedClaim returns the claim a negated sentence denies, when the
// sentence has exactly one negating word and it stands where the denial is
// unambiguous:
//
//   - "No X <relation> Y" denies (X, relation, Y);
//   - "X <relation> not Y" denies (X, relation, Y), except "not only",
//     which introduces an addition rather than a denial.
//
// Any other negated sentence denies nothing this smelter can name.
func deniedClaim(low string, neg negation) (artifact.Triple, bool) {
	if neg.count != 1 {
		return artifact.Triple{}, false
	}
	if neg.leadingNo {
		if !hasWordPrefix(low, "no") {
			return artifact.Triple{}, false
		}
		return parseClaim(low[len("no "):])
	}
	t, ok := parseClaim(low)
	if !ok || !hasWordPrefix(t.Tail, "not") {
		return artifact.Triple{}, false
	}
	rest := t.Tail[len("not "):]
	if rest == "only" || hasWordPrefix(rest, "only") {
		return artifact.Triple{}, false
	}
	denied, ok := parseClaim(t.Head + " " + t.Relation + " " + rest)
	if !ok || denied.Head != t.Head {
		return artifact.Triple{}, false
	}
	return denied, true
}
