// Package review is the one identity-override gate: every utterance the
// runtime answers and every concept, relation and counter-claim promote
// teaches passes it.
//
// The detector is syntactic and deliberately narrow. It reads the normalised
// words of a text (lower case, curly quotes and dashes folded, "re-define"
// joined, contractions expanded), split into clauses at sentence punctuation,
// and rejects a text that
//
//   - contains a literal takeover marker ("you are", "pretend to be", "forget
//     your", "from now on", "your rules", ...); "act as" counts only when it
//     is addressed to the system ("act as ...", "you can act as ...", not "a
//     lens can act as a magnifier");
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
//     made unrevisable);
//   - redirects what it is: a redirect verb in any inflection (adopt, become,
//     disable, remove, replace, ...) addressed to the system — opening a
//     clause, after please/you/must/should/now/..., or with "you" as its
//     subject — in a text that names a governed target anywhere (assistant,
//     persona, system, prompt, role, rules, safety, teaching, ...).
//
// Ordinary statements — declarative knowledge that mentions identity, safety,
// review or operators without directing a change at them, questions, and
// descriptive or past tense sentences ("the teacher changed the lesson plan")
// — pass. Second-person remarks do not: "you are right" is refused with the
// same marker as "you are a lens", because the gate cannot tell flattery from
// re-identification and fails closed.
package review

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

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

// Fired says what made the gate refuse, for an audit record: the rule and the
// words it matched, or that the text had no words. It is empty for an
// accepted text.
func (o Outcome) Fired() string {
	switch o.Outcome {
	case RejectedIdentity:
		return o.Rule + ": " + o.Evidence
	case RejectedEmpty:
		return "no words"
	}
	return ""
}

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
	o := g.Verdict(utterance)
	o.ReviewHash = reviewHash(utterance, o)
	return o
}

// Verdict judges a text like Review but leaves ReviewHash empty: for callers
// that bind the verdict to the text themselves (promote hashes it with the
// candidate it reviewed).
func (g *Gate) Verdict(text string) Outcome {
	t := g.normalize(text)
	if len(t.w) == 0 {
		return Outcome{Outcome: RejectedEmpty}
	}
	if rule, ev := g.match(t); rule != "" {
		return Outcome{Outcome: RejectedIdentity, Rule: rule, Evidence: ev}
	}
	return Outcome{Outcome: Accepted}
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

// words is a normalised text: its words, and the index of the first word of
// each clause.
type words struct {
	w      []string
	starts []int
}

func (g *Gate) match(t words) (rule, evidence string) {
	checks := []struct {
		name string
		fn   func(words) (string, bool)
	}{
		{"takeover_marker", g.lex.takeoverMarker},
		{"governance_directive", g.governanceDirective},
		{"operator_injection", g.lex.operatorInjection},
		{"passive_disable", g.passiveDisable},
		{"claim_hardening", g.lex.claimHardening},
		{"addressed_redirect", g.addressedRedirect},
	}
	for _, c := range checks {
		if ev, ok := c.fn(t); ok {
			return c.name, ev
		}
	}
	return "", ""
}

// newFolder folds curly quotes and dashes to their ASCII forms.
func newFolder() *strings.Replacer {
	return strings.NewReplacer("’", "'", "‘", "'", "“", "\"", "”", "\"", "–", "-", "—", "-", "‐", "-")
}

// clauseEnds are the characters that end a clause.
const clauseEnds = ".!?;:\n"

// Normalize lower-cases and tokenises an utterance, folds curly quotes and
// dashes, joins "re-" prefixes ("re-define" → "redefine") and expands
// contractions ("don't" → "do not").
func (g *Gate) Normalize(s string) []string { return g.normalize(s).w }

// normalize is Normalize with the clause boundaries kept. It copies the text
// only when there is something to fold, lower or join, because it runs on
// every turn.
func (g *Gate) normalize(s string) words {
	if !isASCII(s) {
		s = g.fold.Replace(s)
	}
	s = strings.ToLower(s)
	if strings.Contains(s, "re-") {
		s = joinRePrefix(s)
	}
	var t words
	for len(s) > 0 {
		end := strings.IndexAny(s, clauseEnds)
		if end < 0 {
			end = len(s)
		}
		first := len(t.w)
		for _, tok := range text.Tokenize(s[:end]) {
			t.w = expand(t.w, tok)
		}
		if len(t.w) > first {
			t.starts = append(t.starts, first)
		}
		s = s[min(end+1, len(s)):]
	}
	return t
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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

// expand appends tok to out with a contraction spelled out ("don't" → do
// not, "you're" → you are, "name's" → name is); a possessive "'s" is dropped
// ("the lens's axis" → the lens axis).
func expand(out []string, tok string) []string {
	switch tok {
	case "can't":
		return append(out, "can", "not")
	case "won't":
		return append(out, "will", "not")
	case "shan't":
		return append(out, "shall", "not")
	case "let's":
		return append(out, "let", "us")
	}
	i := strings.LastIndexByte(tok, '\'')
	if i <= 0 {
		return append(out, tok)
	}
	base := tok[:i]
	switch tok[i+1:] {
	case "t":
		if stem, ok := strings.CutSuffix(base, "n"); ok && stem != "" {
			return append(out, stem, "not")
		}
	case "re":
		return append(out, base, "are")
	case "ll":
		return append(out, base, "will")
	case "ve":
		return append(out, base, "have")
	case "d":
		return append(out, base, "would")
	case "m":
		return append(out, base, "am")
	case "s":
		if copulaBefore(base) {
			return append(out, base, "is")
		}
		return append(out, base)
	}
	return append(out, tok)
}

// copulaBefore reports the words after which "'s" is "is", not a possessive.
func copulaBefore(w string) bool {
	switch w {
	case "it", "that", "this", "what", "who", "where", "how", "there", "here", "he", "she", "name":
		return true
	}
	return false
}
