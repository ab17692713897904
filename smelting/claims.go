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

// negation describes the negating words of a lower-cased sentence.
type negation struct {
	count     int  // negating words (a contraction such as "isn't" counts once)
	leadingNo bool // the sentence opens with the quantifier "no" ("No mammal is …")
}

// claimWords is what one pass over the words of a lower-cased, single-
// spaced sentence learns about the claim it may make.
type claimWords struct {
	// joined is the sentence with every compound phrase rewritten into its
	// relation name, and a colon right after the phrase into a space (so
	// "has steps: mix, bake" has the tail "mix, bake").
	joined string
	// hasRelation reports a relation of the vocabulary as a whole word of
	// joined. Without one the parser cannot find a triple (its
	// normalisation only trims and drops a leading marker, which never
	// makes a new whole word), so the smelter does not call it.
	hasRelation bool
	neg         negation
}

// readWords reads the words of low once, with Unicode word boundaries as
// the parser's, and records compound phrases, relation words and negations.
// No compound phrase ends with the start of another, so the phrases never
// overlap and one left-to-right pass finds them all.
func readWords(low string) claimWords {
	var cw claimWords
	var out []byte
	prevEnd := -1
	for i := 0; i < len(low); {
		if c := low[i]; c < utf8.RuneSelf {
			if !isASCIIWord(c) {
				i++
				continue
			}
		} else if r, w := utf8.DecodeRuneInString(low[i:]); !relparse.IsWordRune(r) {
			i += w
			continue
		}
		if n := compoundAt(low, i); n > 0 {
			out = joinPhrase(out, low, i, n)
			cw.hasRelation = true
			i += n
			prevEnd = i
			continue
		}
		end := wordEnd(low, i)
		cw.hasRelation = cw.hasRelation || relparse.IsRelation(low[i:end])
		cw.neg.word(low, i, end)
		if prevEnd > 0 && contraction(low, prevEnd, i, end) {
			cw.neg.count++
		}
		prevEnd, i = end, end
	}
	cw.joined = low
	if out != nil {
		cw.joined = string(out)
	}
	return cw
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

// joinPhrase rewrites the phrase at low[i:i+n] into its relation name in
// out, a copy of low made on the first rewrite.
func joinPhrase(out []byte, low string, i, n int) []byte {
	if out == nil {
		out = []byte(low)
	}
	for j := i; j < i+n; j++ {
		if out[j] == ' ' {
			out[j] = '_'
		}
	}
	if i+n < len(out) && out[i+n] == ':' {
		out[i+n] = ' ' // "has steps: a, b" lists its tail after a colon
	}
	return out
}

// wordBoundary reports whether offset i of s is not inside a word: the
// runes on either side are not both word characters. Phrases start and
// end with a letter, so at a phrase's end this is Python's \b.
func wordBoundary(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i:])
	return !relparse.IsWordRune(before) || !relparse.IsWordRune(after)
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

// word counts the word low[start:end] when it negates. A leading "no"
// directly followed by ',' or ';' is the discourse marker "No, …" (which
// answers something else and then asserts), not a negation; a negating
// word hyphenated to another word ("no-go", "not-for-profit") is part of a
// name.
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

// contraction reports whether the word low[start:end] is the "t" of "n't":
// one apostrophe, typed or typographic, separates it from a previous word
// (ending at prevEnd) whose last letter is 'n' ("isn't", "doesn't", "can't"
// and "won't" all end their first part in n).
func contraction(low string, prevEnd, start, end int) bool {
	gap := low[prevEnd:start]
	return end-start == 1 && low[start] == 't' && (gap == "'" || gap == "\u2019") &&
		low[prevEnd-1] == 'n' && !inCompoundWord(low, start, end)
}

// inCompoundWord reports whether the word low[start:end] is hyphenated to
// a neighbour.
func inCompoundWord(low string, start, end int) bool {
	return (start > 0 && low[start-1] == '-') || (end < len(low) && low[end] == '-')
}

// wordEnd returns the end of the run of word characters starting at s[i].
func wordEnd(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !hasClass(c, classWord) {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !relparse.IsWordRune(r) {
			return i
		}
		i += w
	}
	return i
}

// isASCIIWord is relparse.IsWordRune for a byte below 0x80, small enough
// to be inlined into the word loops.
func isASCIIWord(c byte) bool {
	return ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '_' || ('A' <= c && c <= 'Z')
}

// parseClaim parses a lower-cased sentence fragment into a triple, with the
// compound predicates recognised.
func parseClaim(low string) (artifact.Triple, bool) {
	return parseWords(readWords(low))
}

// parseWords parses what readWords read.
func parseWords(cw claimWords) (artifact.Triple, bool) {
	if !cw.hasRelation {
		return artifact.Triple{}, false
	}
	return relparse.Parse(cw.joined)
}

// deniedClaim returns the claim a negated sentence denies, when the
// sentence (low, read as cw) has exactly one negating word and it stands
// where the denial is unambiguous:
//
//   - "No X <relation> Y" denies (X, relation, Y);
//   - "X <relation> not Y" denies (X, relation, Y), except "not only",
//     which introduces an addition rather than a denial.
//
// Any other negated sentence denies nothing this smelter can name.
func deniedClaim(low string, cw claimWords) (artifact.Triple, bool) {
	if cw.neg.count != 1 {
		return artifact.Triple{}, false
	}
	if cw.neg.leadingNo {
		if !hasWordPrefix(low, "no") {
			return artifact.Triple{}, false
		}
		return parseClaim(low[len("no "):])
	}
	t, ok := parseWords(cw)
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
