package forge

import (
	"strings"

	"formation/relparse"
	"formation/runtime/text"
)

// DefaultIdentityTerms are the original system's identity terms.
// They are always screened; Config.IdentityTerms adds to them and
// Config.ExemptTerms is the only way to lift one.
func DefaultIdentityTerms() []string {
	return []string{"identity", "self", "truth", "truthfulness", "coherence", "honesty",
		"core", "manifold", "operator", "claude", "anthropic"}
}

// normalTerm lower-cases a term (the forge's one case normalisation, with
// Python's rules, as the parser lower-cases) and reports whether the result
// is a well-formed term: non-empty, a fixed point of the parser's
// normalisation (trimmed, single spaces, no leading discourse marker, no
// trailing ".?!,;:") and without a leading or trailing article. A
// well-formed term is then written the way a user types it
// (text.NormalTerm), which must be well formed too.
func normalTerm(s string) (string, bool) {
	return normalTermKeyed(s, func(n string) bool { return text.Term(n) != "" })
}

// normalTermKeyed is normalTerm with hasKey deciding whether a normal form
// holds a word a user could type.
func normalTermKeyed(s string, hasKey func(string) bool) (string, bool) {
	t := relparse.Lower(s)
	if !wellFormedTerm(t) {
		return t, false
	}
	n := text.NormalTerm(t)
	if !hasKey(n) {
		return t, false // no word a user could type ("_"): no knowledge key
	}
	return n, n == t || wellFormedTerm(n)
}

func wellFormedTerm(t string) bool {
	return t != "" && relparse.Normalize(t) == t && relparse.StripArticles(t) == t
}

// identityKey is the form in which terms are compared by the identity
// screen: lower-cased, with every run of whitespace, '_' or '-' read as one
// separator. "No_Identity_Override", "no identity override" and
// "no-identity-override" share a key.
func identityKey(s string) string {
	if isPlainKey(s) {
		return s // the common case: a normalised head, tail or term
	}
	f := strings.FieldsFunc(relparse.Lower(s), func(r rune) bool {
		return r == '_' || r == '-' || relparse.IsSpace(r)
	})
	return strings.Join(f, " ")
}

// isPlainKey reports whether s is already its own identity key: lower-case
// ASCII words separated by single spaces, without '_' or '-'.
func isPlainKey(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' && s[i-1] == ' ':
			return false
		case c == ' ', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// identityScreen holds the screened terms by key.
type identityScreen struct {
	terms map[string]string // key → the term as configured
}

func newIdentityScreen(extra, exempt []string) identityScreen {
	s := identityScreen{terms: map[string]string{}}
	for _, list := range [][]string{DefaultIdentityTerms(), extra} {
		for _, t := range list {
			if k := identityKey(t); k != "" {
				s.terms[k] = strings.TrimSpace(t)
			}
		}
	}
	for _, t := range exempt {
		delete(s.terms, identityKey(t))
	}
	return s
}

// match reports the identity term a phrase is, if any. A phrase is screened
// only when its whole key equals a term's key: "self", "Self" and "self "
// are screened; "self-focus", "self_focus", "self image" and "light source"
// are not (no word fragments).
func (s identityScreen) match(phrases ...string) (string, bool) {
	for _, p := range phrases {
		if t, ok := s.terms[identityKey(p)]; ok {
			return t, true
		}
	}
	return "", false
}
