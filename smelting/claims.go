package smelting

import (
	"strings"
	"unicode/utf8"

	"formation/artifact"
	"formation/relparse"
)

// compoundPhrases are the vocabulary's multi-word predicates as prose
// writes them, in the order compoundAt relies on. The relation parser only
// knows their underscore spelling (belongs_to, …), so the original could
// never extract them from prose; this smelter joins the words with '_'
// before parsing. Each phrase has the byte length of its relation, so
// joining is a same-length rewrite.
func compoundPhrases() [6]string {
	return [6]string{"belongs to", "contrasts with", "is caused by", "is defined as", "is verified as", "has steps"}
}

// joinCompounds rewrites every whole-word occurrence of a compound phrase
// in the lower-cased, single-spaced sentence low into its relation name,
// and a colon right after the phrase into a space, so that "has steps:
// mix, bake" has the tail "mix, bake". No phrase ends with the start of
// another, so occurrences never overlap and one left-to-right scan over
// the words finds them all.
//
// It also reports whether the result holds any relation of the vocabulary
// as a whole word. When none does, the parser cannot find a triple (its
// normalisation only trims and drops a leading marker, which never makes
// a new whole word), so parseClaim skips it: most of a text's sentences
// are then read once instead of twice.
func joinCompounds(low string) (string, bool) {
	var out []byte
	hasRelation := false
	for i := 0; i < len(low); i++ {
		if !relationInitial(low[i]) || !wordStartAt(low, i) {
			continue
		}
		if n := compoundAt(low, i); n > 0 {
			if out == nil {
				out = []byte(low)
			}
			joinPhrase(out, i, n)
			hasRelation = true
			i += n - 1
			continue
		}
		if !hasRelation {
			end := wordEnd(low, i)
			hasRelation = relparse.IsRelation(low[i:end])
			i = end - 1
		}
	}
	if out == nil {
		return low, hasRelation
	}
	return string(out), hasRelation
}

// relationInitial reports whether c starts a relation of the vocabulary
// (and so also every compound phrase).
func relationInitial(c byte) bool {
	switch c {
	case 'b', 'c', 'f', 'g', 'h', 'i', 'm', 'p', 'r':
		return true
	}
	return false
}

// joinPhrase turns the phrase at out[i:i+n] into its relation name.
func joinPhrase(out []byte, i, n int) {
	for j := i; j < i+n; j++ {
		if out[j] == ' ' {
			out[j] = '_'
		}
	}
	if i+n < len(out) && out[i+n] == ':' {
		out[i+n] = ' ' // "has steps: a, b" lists its tail after a colon
	}
}

// compoundAt returns the length of the compound phrase that starts at the
// word start low[i:] and ends a word, or 0. Only the phrases that begin
// with low[i] are tried.
func compoundAt(low string, i int) int {
	phrases := compoundPhrases()
	var try []string
	switch low[i] {
	case 'b':
		try = phrases[0:1]
	case 'c':
		try = phrases[1:2]
	case 'i':
		if !strings.HasPrefix(low[i:], "is ") {
			return 0
		}
		try = phrases[2:5]
	case 'h':
		try = phrases[5:6]
	}
	for _, p := range try {
		if strings.HasPrefix(low[i:], p) && wordBoundary(low, i+len(p)) {
			return len(p)
		}
	}
	return 0
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
	joined, hasRelation := joinCompounds(low)
	if !hasRelation {
		return artifact.Triple{}, false
	}
	return relparse.Parse(joined)
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

// findNegation finds the negating words of low with Unicode word
// boundaries, as the parser's. A leading "no" directly followed by ',' or
// ';' is the discourse marker "No, …" (which answers something else and
// then asserts), not a negation. "n't" after a word ending in 'n' is a
// negation ("isn't", "doesn't", "can't" and "won't" all end their first
// part in n). A negating word hyphenated to another word is part of a name.
//
// Every negating word and contraction holds an 'n' at a known place (the
// start of the word, "ca" before it in "cannot", the apostrophe after it in
// "n't"), so the scan jumps from one 'n' to the next instead of reading
// every word.
func findNegation(low string) negation {
	var neg negation
	for i := 0; ; {
		k := strings.IndexByte(low[i:], 'n')
		if k < 0 {
			return neg
		}
		at := i + k
		i = at + 1
		switch {
		case wordStartAt(low, at):
			i = wordEnd(low, at)
			neg.word(low, at, i)
			if low[i-1] == 'n' {
				neg.count += contraction(low, i) // "needn't"
			}
		case at >= 2 && strings.HasPrefix(low[at-2:], "cannot") && wordStartAt(low, at-2):
			i = wordEnd(low, at)
			neg.word(low, at-2, i)
		default:
			neg.count += contraction(low, at+1)
		}
	}
}

// word counts the word low[start:end] when it negates.
func (neg *negation) word(low string, start, end int) {
	word := low[start:end]
	switch {
	case !negatingWord(word), inCompoundWord(low, start, end):
	case word == "no" && start == 0 && end < len(low) && (low[end] == ',' || low[end] == ';'):
	default:
		neg.count++
		neg.leadingNo = neg.leadingNo || (start == 0 && word == "no")
	}
}

// contraction returns 1 when low[i:] is an apostrophe and a 't' that
// ends the word ("n't" after the 'n' before i), else 0.
func contraction(low string, i int) int {
	for _, a := range [2]string{"'t", "\u2019t"} {
		if strings.HasPrefix(low[i:], a) {
			t := i + len(a) - 1
			if wordEnd(low, t) == t+1 && !inCompoundWord(low, t, t+1) {
				return 1
			}
		}
	}
	return 0
}

// wordStartAt reports whether a word starts at low[i]: the rune before it
// is not a word character.
func wordStartAt(low string, i int) bool {
	if i == 0 {
		return true
	}
	if c := low[i-1]; c < utf8.RuneSelf {
		return !relparse.IsWordRune(rune(c))
	}
	r, _ := utf8.DecodeLastRuneInString(low[:i])
	return !relparse.IsWordRune(r)
}

// inCompoundWord reports whether the word low[start:end] is hyphenated to
// a neighbour ("no-go", "not-for-profit"): such a word names a thing and
// negates nothing.
func inCompoundWord(low string, start, end int) bool {
	return (start > 0 && low[start-1] == '-') || (end < len(low) && low[end] == '-')
}

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
