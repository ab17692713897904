// Package review is the identity-override gate every utterance passes before
// the runtime answers it.
//
// The detector is syntactic and deliberately narrow. It reads the normalised
// words of a sentence (lower case, curly quotes and dashes folded, "re-define"
// joined, contractions expanded) and rejects a sentence that
//
//   - contains a literal takeover marker ("you are now", "pretend to be",
//     "forget your", "from now on you", ...);
//   - directs a change at governance: a base-form directive verb (redefine,
//     disable, bypass, ignore, override, turn off, ...) followed within four
//     words by a governance target (identity, axis, values, policy, review,
//     teaching path, boundary, safety, manifold, closure, rules, instructions,
//     an identity axis name, ...), unless the verb is negated ("do not
//     disable", "never bypass");
//   - injects an operator: an installing verb (adopt, install, inject, use,
//     load, plug, ...) followed within four words by code in the runtime's
//     path (normalizer, normalization, operator, repair, hook, patch, ...);
//   - asks for governance to be switched off in the passive ("let the closure
//     check be skipped", "the review gate should be disabled");
//   - hardens a claim: "treat/mark/accept/declare ... as final, frozen, an
//     axiom, permanent ..." or "freeze/lock/seal this claim" (no claim may be
//     made unrevisable).
//
// Ordinary statements — including ones that mention identity, safety, review
// or operators without directing a change at them, and descriptive or past
// tense sentences ("the teacher changed the lesson plan") — pass.
package review

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"formation/canon"
	"formation/runtime/text"
)

// Outcome names of a review.
const (
	Accepted         = "accepted"
	RejectedIdentity = "rejected_identity"
	RejectedEmpty    = "rejected_empty"
)

// Outcome is the result of reviewing one utterance.
type Outcome struct {
	Outcome    string `json:"outcome"`
	Rule       string `json:"rule,omitempty"`     // which rule rejected it
	Evidence   string `json:"evidence,omitempty"` // the words that matched
	ReviewHash string `json:"review_hash"`
}

// Rejected reports whether the utterance was refused as an identity override.
func (o Outcome) Rejected() bool { return o.Outcome == RejectedIdentity }

// Gate is a configured detector; build it with NewGate. Extra targets
// (typically the identity manifold's axis ids) widen the governance nouns.
// A Gate is read-only after construction and safe for concurrent use.
type Gate struct {
	lex   *lexicon
	fold  *strings.Replacer
	extra map[string]bool
}

// NewGate returns a gate that also treats the given words (e.g. axis ids such
// as "truthfulness") as governance targets.
func NewGate(extraTargets ...string) *Gate {
	g := &Gate{lex: newLexicon(), fold: newFolder(), extra: map[string]bool{}}
	for _, t := range extraTargets {
		for _, w := range text.RelationWords(t) {
			g.extra[w] = true
		}
	}
	return g
}

// Review judges one utterance. It never fails: malformed text is reviewed as
// the words it contains.
func (g *Gate) Review(utterance string) Outcome {
	words := g.Normalize(utterance)
	o := Outcome{Outcome: Accepted}
	if len(words) == 0 {
		o.Outcome = RejectedEmpty
	} else if rule, ev := g.match(words); rule != "" {
		o.Outcome, o.Rule, o.Evidence = RejectedIdentity, rule, ev
	}
	o.ReviewHash = reviewHash(utterance, o)
	return o
}

// reviewHash binds the verdict to the exact utterance, so a trace that folds
// it proves which text was reviewed and how.
func reviewHash(utterance string, o Outcome) string {
	b, err := canon.Marshal(map[string]string{
		"utterance": strings.ToValidUTF8(utterance, "\uFFFD"),
		"outcome":   o.Outcome, "rule": o.Rule, "evidence": o.Evidence,
	})
	if err != nil {
		// Only valid strings go in, so encoding cannot fail; an empty hash
		// would still be distinguishable from every real one.
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (g *Gate) match(w []string) (rule, evidence string) {
	checks := []struct {
		name string
		fn   func([]string) (string, bool)
	}{
		{"takeover_marker", g.lex.takeoverMarker},
		{"governance_directive", g.governanceDirective},
		{"operator_injection", g.lex.operatorInjection},
		{"passive_disable", g.passiveDisable},
		{"claim_hardening", g.lex.claimHardening},
	}
	for _, c := range checks {
		if ev, ok := c.fn(w); ok {
			return c.name, ev
		}
	}
	return "", ""
}

// newFolder folds curly quotes and dashes to their ASCII forms.
func newFolder() *strings.Replacer {
	return strings.NewReplacer("’", "'", "‘", "'", "“", "\"", "”", "\"", "–", "-", "—", "-", "‐", "-")
}

// Normalize lower-cases and tokenises an utterance, folds curly quotes and
// dashes, joins "re-" prefixes ("re-define" → "redefine") and expands
// contractions ("don't" → "do not").
func (g *Gate) Normalize(s string) []string {
	s = g.fold.Replace(s)
	s = strings.ToLower(s)
	s = joinRePrefix(s)
	var out []string
	for _, tok := range text.Tokenize(s) {
		out = append(out, expand(tok)...)
	}
	return out
}

func joinRePrefix(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "re-") && (i == 0 || !isLetter(s[i-1])) {
			b.WriteString("re")
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' }

// irregular expands the contractions the suffix rules get wrong.
func irregular(tok string) ([]string, bool) {
	switch tok {
	case "can't":
		return []string{"can", "not"}, true
	case "won't":
		return []string{"will", "not"}, true
	case "shan't":
		return []string{"shall", "not"}, true
	case "let's":
		return []string{"let", "us"}, true
	case "i'm":
		return []string{"i", "am"}, true
	}
	return nil, false
}

func expand(tok string) []string {
	if c, ok := irregular(tok); ok {
		return c
	}
	for _, suf := range []struct{ s, w string }{{"n't", "not"}, {"'re", "are"}, {"'ll", "will"}, {"'ve", "have"}, {"'d", "would"}, {"'s", ""}} {
		if strings.HasSuffix(tok, suf.s) && len(tok) > len(suf.s) {
			base := strings.TrimSuffix(tok, suf.s)
			if suf.w == "" {
				return []string{base}
			}
			return []string{base, suf.w}
		}
	}
	return []string{tok}
}
