// Package text holds the runtime's word-level text rules: one tokenizer and
// the normal forms of knowledge terms and relation names, shared by the
// embedding, the knowledge store and the turn parser so that all three see
// the same words. NormalTerm, the form a user's sentence gives a term, is
// also the forge's: what is validated is written the way it is asked.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenize splits text into lower-cased word tokens: maximal runs of Unicode
// letters, digits, marks and underscores (the original's \w+). An apostrophe
// between word characters stays inside the token ("doesn't" is one token,
// "don’t" becomes "don't"), so contractions survive for the parser.
func Tokenize(s string) []string {
	if IsASCII(s) {
		return tokenizeASCII(s)
	}
	return tokenizeRunes(s)
}

// tokenizeASCII is Tokenize for ASCII text, where a word character is a
// letter, a digit or '_' and a token is a run of them (with inner
// apostrophes) lower-cased: a lower-case token is a substring of s, not a
// copy, as strings.ToLower would return it, but without ToLower's second
// pass over it. It runs several times on every turn, so a text of up to
// shortText tokens is read once, its tokens gathered on the stack and
// copied into a slice of their number; a longer one is counted first.
func tokenizeASCII(s string) []string {
	var buf [shortText]string
	n := 0
	long := scanASCIITokens(s, func(tok string) bool {
		if n == len(buf) {
			return false
		}
		buf[n] = tok
		n++
		return true
	})
	if long {
		return tokenizeASCIICounted(s)
	}
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	copy(out, buf[:n])
	return out
}

// shortText is how many tokens tokenizeASCII gathers on the stack.
const shortText = 16

// tokenizeASCIICounted is tokenizeASCII for any length: the tokens counted
// first, one allocation, not one per doubling.
func tokenizeASCIICounted(s string) []string {
	n := countASCIITokens(s)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	scanASCIITokens(s, func(tok string) bool {
		out = append(out, tok)
		return true
	})
	return out
}

// scanASCIITokens calls take with each token of the ASCII text s, in
// order, until take returns false; it reports whether it stopped so.
func scanASCIITokens(s string, take func(string) bool) (stopped bool) {
	start := -1
	upper := false // the token has a capital: only then is it lower-cased, the rest being their own lower case
	for i := 0; i <= len(s); i++ {
		if i < len(s) && asciiWordByte(s[i]) {
			if start < 0 {
				start, upper = i, false
			}
			upper = upper || 'A' <= s[i] && s[i] <= 'Z'
			continue
		}
		if i+1 < len(s) && s[i] == '\'' && start >= 0 && asciiWordByte(s[i+1]) {
			continue
		}
		if start >= 0 {
			tok := s[start:i]
			if upper {
				tok = strings.ToLower(tok)
			}
			if !take(tok) {
				return true
			}
			start = -1
		}
	}
	return false
}

// countASCIITokens is the number of tokens tokenizeASCII finds in s: the
// runs of word bytes, an apostrophe between two of them joining its run to
// the next.
func countASCIITokens(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); i++ {
		switch {
		case asciiWordByte(s[i]):
			if !in {
				n++
			}
			in = true
		case s[i] == '\'' && in && i+1 < len(s) && asciiWordByte(s[i+1]):
		default:
			in = false
		}
	}
	return n
}

func asciiWordByte(c byte) bool { return isASCIIAlnum(c) || c == '_' }

// IsASCII reports whether s is ASCII only: the checks take their fast
// paths on such text.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// tokenizeRunes is Tokenize for any text.
func tokenizeRunes(s string) []string {
	var out []string
	var cur strings.Builder
	runes := []rune(s)
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, strings.ToLower(cur.String()))
			cur.Reset()
		}
	}
	for i, r := range runes {
		switch {
		case isWordRune(r):
			cur.WriteRune(r)
		case isApostrophe(r) && cur.Len() > 0 && i+1 < len(runes) && isWordRune(runes[i+1]):
			cur.WriteRune('\'')
		default:
			flush()
		}
	}
	flush()
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.N, r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// Term is the key of a knowledge term: its tokens, with underscores
// separating words and contractions and possessives expanded as Words
// expands them, joined by single spaces ("  Focal_Point " → "focal point",
// "Go's scheduler" → "go scheduler"). It is idempotent. The knowledge files
// every term under it and looks every term up by it; the turn parser reads
// a term in NormalTerm's form, whose Term is that same key.
func Term(s string) string {
	if normalKey(s) {
		return s // already a key: the knowledge looks its own terms up many times a turn
	}
	return strings.Join(expandTokens(RelationWords(s)), " ")
}

// normalKey reports s made of lower-case ASCII letters and digits in words
// separated by single spaces, which Term returns unchanged.
func normalKey(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == ' ' && i > 0 && i+1 < len(s) && s[i+1] != ' ':
		default:
			return false
		}
	}
	return true
}

// Relation is the normal form of a relation name: its tokens joined by
// underscores ("is caused by" and "Is_Caused_By" → "is_caused_by").
func Relation(s string) string {
	if plainRelation(s) {
		return rejoined(s, '_')
	}
	return strings.Join(RelationWords(s), "_")
}

// plainRelation reports a relation name whose words are plain: runs of
// lower-case ASCII letters and digits, one underscore or space between two
// runs. RelationWords reads such a name back as its runs, so it is
// rejoined as it is written instead of tokenized, split and joined again
// (FuzzFastPaths, TestRelationFastPathIsTokenized).
func plainRelation(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '_' || c == ' ') && i > 0 && i+1 < len(s) && s[i+1] != '_' && s[i+1] != ' ':
		default:
			return false
		}
	}
	return true
}

// rejoined is a plain relation name with sep between its runs: s itself
// when that is how it is written.
func rejoined(s string, sep byte) string {
	other := byte(' ')
	if sep == ' ' {
		other = '_'
	}
	if strings.IndexByte(s, other) < 0 {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == other {
			b[i] = sep
		}
	}
	return string(b)
}

// RelationWords are the words of s with underscores as separators: the words
// a relation name is written with in running text ("belongs_to" is written
// "belongs to").
func RelationWords(s string) []string {
	toks := Tokenize(s)
	out := make([]string, 0, len(toks))
	for _, tok := range toks {
		if strings.IndexByte(tok, '_') < 0 {
			out = append(out, tok) // nothing to split: the token is the word
			continue
		}
		for _, w := range strings.Split(tok, "_") {
			if w != "" {
				out = append(out, w)
			}
		}
	}
	if len(out) == 0 {
		return nil // no words: nil, as before the words were counted
	}
	return out
}

// Spaced writes a relation name as text: underscores become spaces.
func Spaced(relation string) string {
	if plainRelation(relation) {
		return rejoined(relation, ' ')
	}
	return strings.Join(RelationWords(relation), " ")
}

// FieldsAt is strings.FieldsFunc(s, f) for an f that holds exactly for the
// runes of seps, all ASCII: s is cut at those bytes directly, since no
// encoded rune other than them holds one (TestFieldsAtIsFieldsFunc). Like
// FieldsFunc it never returns nil.
func FieldsAt(s, seps string) []string {
	set := NewByteSet(seps)
	return FieldsIn(s, &set)
}

// ByteSet is a set of bytes, for a caller that cuts text at the same
// separators on every turn (FieldsIn) without building the set each time:
// one flag a byte, so that asking is one load.
type ByteSet [256]bool

// NewByteSet is the set of the bytes of chars.
func NewByteSet(chars string) ByteSet {
	var set ByteSet
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

// Has reports whether c is in the set.
func (b *ByteSet) Has(c byte) bool { return b[c] }

// AppendFields appends the fields FieldsIn(s, seps) returns to dst, in one
// pass, for a caller with a buffer of its own (a turn's few sentences).
func AppendFields(dst []string, s string, seps *ByteSet) []string {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !seps.Has(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = append(dst, s[start:i])
			start = -1
		}
	}
	return dst
}

// FieldsIn is FieldsAt(s, seps) with the separators' set built by the
// caller: seps must hold ASCII bytes only.
func FieldsIn(s string, seps *ByteSet) []string {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		sep := seps.Has(s[i])
		if !sep && !in {
			n++
		}
		in = !sep
	}
	return AppendFields(make([]string, 0, n), s, seps)
}
