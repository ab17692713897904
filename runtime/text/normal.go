package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NormalTerm is the one normal form of a term as a user's sentence gives it:
// the form the turn parser reads a subject or an object in, and the form the
// forge writes every validated head, tail and term in, so that what was
// validated is exactly what a user who types it reaches. It is:
//
//  1. the words of s (Words): lower-cased, split at white space, each
//     without the punctuation around it (a closing bracket that closes one
//     opened inside the word stays: "a[x]", "f(x)"; so does a name's
//     trailing "+" or "#"), with contractions and possessives expanded
//     ("doesn't" → "does not", "go's" → "go");
//  2. without its leading articles and wh-words ("the", "a", "an", "what",
//     "who", "which", "where", "when", "why", "how"): a question's wh-word
//     is never part of what it asks about, and a statement that opens with
//     one is read as a question;
//  3. joined by single spaces.
//
// Punctuation inside a word ("node.js", "a[x]", "self-focus"), a name's
// trailing "+" or "#" ("c++", "c#") and underscores ("no_identity_override")
// are kept: they are part of the name. NormalTerm is idempotent, and Term(NormalTerm(s)) is the knowledge
// key of the term.
func NormalTerm(s string) string {
	if plainTerm(s) {
		return s // the common case: already a fixed point
	}
	words := Words(s)
	for len(words) > 0 && leadingFiller(words[0]) {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// plainTerm reports whether s is lower-case ASCII letters and digits in
// words joined by single spaces, not opening with an article or a wh-word:
// NormalTerm leaves such a term as it is.
func plainTerm(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == ' ' && s[i-1] != ' ':
		default:
			return false
		}
	}
	first, _, _ := strings.Cut(s, " ")
	return !leadingFiller(first)
}

// leadingFiller reports whether w is an article or a wh-word, which
// NormalTerm drops from the start of a term.
func leadingFiller(w string) bool {
	switch w {
	case "a", "an", "the", "what", "who", "which", "where", "when", "why", "how":
		return true
	}
	return false
}

// Words are the words of s as a reader takes them (steps 1 of NormalTerm):
// lower-cased, split at white space, trimmed of surrounding punctuation, with
// contractions and possessives expanded. Words(strings.Join(Words(s), " "))
// is Words(s).
func Words(s string) []string {
	var out []string
	if IsASCII(s) {
		// isSeparator holds for exactly these ASCII bytes: the controls and
		// the space.
		var room [16]string // the fields of a short text, on the stack
		fields := AppendFields(room[:0], strings.ToLower(s), &wordSeparators)
		out = make([]string, 0, len(fields)+2) // room for a contraction or two spelled out
		for _, f := range fields {
			out = appendWord(out, f)
		}
		if len(out) == 0 {
			return nil // no words: nil, as when out grew word by word
		}
		return out
	}
	for _, f := range strings.FieldsFunc(strings.ToLower(s), isSeparator) {
		out = appendWord(out, f)
	}
	return out
}

// asciiSeparators are the ASCII runes isSeparator holds for.
const asciiSeparators = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f \x7f"

// wordSeparators is asciiSeparators as a set, built once.
var wordSeparators = NewByteSet(asciiSeparators)

// isSeparator: white space and control characters separate words.
func isSeparator(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// appendWord trims w and appends its expansion, itself normalised, so that
// a second pass finds nothing left to do ("x's's" → "x", "x.'s" → "x").
func appendWord(out []string, w string) []string {
	if strings.IndexByte(w, "’"[0]) >= 0 { // the curly apostrophe's first byte: most words have none
		w = strings.ReplaceAll(w, "’", "'")
	}
	w = trimWord(w)
	if w == "" {
		return out
	}
	parts, ok := expandWord(w)
	if !ok {
		return append(out, w)
	}
	for _, p := range parts {
		out = appendWord(out, p)
	}
	return out
}

// expandWord splits a contraction or drops a possessive: the irregular
// contractions first, then "n't" → "not", then a trailing "'s". ok is false
// when w is neither.
func expandWord(w string) ([]string, bool) {
	switch w {
	case "can't":
		return []string{"can", "not"}, true
	case "won't":
		return []string{"will", "not"}, true
	case "what's":
		return []string{"what", "is"}, true
	case "who's":
		return []string{"who", "is"}, true
	case "it's":
		return []string{"it", "is"}, true
	case "that's":
		return []string{"that", "is"}, true
	case "let's":
		return []string{"let", "us"}, true
	}
	switch {
	case strings.HasSuffix(w, "n't") && len(w) > 3:
		return []string{strings.TrimSuffix(w, "n't"), "not"}, true
	case strings.HasSuffix(w, "'s") && len(w) > 2:
		return []string{strings.TrimSuffix(w, "'s")}, true
	}
	return nil, false
}

// trimWord removes the punctuation around a word: every leading rune that is
// not a word character, and every trailing one except a closing bracket
// that closes a bracket opened inside the word, and a run of '+' or '#'
// right after the last word character (the names "c++", "c#").
func trimWord(w string) string {
	if w != "" && asciiWordByte(w[0]) && asciiWordByte(w[len(w)-1]) {
		return w // a word character at each end (an ASCII byte is a whole rune): nothing to trim
	}
	w = strings.TrimLeftFunc(w, func(r rune) bool { return !isWordRune(r) })
	for w != "" {
		r, n := utf8.DecodeLastRuneInString(w)
		if isWordRune(r) || closesInside(w, r) || nameSuffix(w) {
			break
		}
		w = w[:len(w)-n]
	}
	return w
}

// nameSuffix reports whether w ends in a run of '+' or '#' that follows a
// word character.
func nameSuffix(w string) bool {
	rest := strings.TrimRight(w, "+#")
	if rest == w || rest == "" {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(rest)
	return isWordRune(r)
}

// closesInside reports whether r, the last rune of w, is a closing bracket
// that balances the brackets of its kind in w.
func closesInside(w string, r rune) bool {
	var open rune
	switch r {
	case ')':
		open = '('
	case ']':
		open = '['
	case '}':
		open = '{'
	default:
		return false
	}
	depth := 0
	for _, c := range w {
		switch c {
		case open:
			depth++
		case r:
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// expandTokens applies the word expansion of Words to tokens that are
// already lower-case word runs (Term's tokens).
func expandTokens(toks []string) []string {
	if len(toks) == 0 {
		return nil
	}
	out := make([]string, 0, len(toks)+2) // room for a contraction or two spelled out
	for _, t := range toks {
		out = appendWord(out, t)
	}
	if len(out) == 0 {
		return nil // no words: nil, as when out grew word by word
	}
	return out
}
