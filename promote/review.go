package promote

import (
	"slices"
	"strings"

	"formation/runtime/text"
)

// Review outcomes, as the original's teaching review names them.
const (
	OutcomeAccepted         = "accepted"
	OutcomeRejectedIdentity = "rejected_identity"
	OutcomeRejectedEmpty    = "rejected_empty"
)

// reviewText is the review gate for one piece of knowledge in words: blank
// text is rejected as empty, text that tries to change who the system is or
// how it is governed is rejected as an identity override, and anything else
// is accepted. It returns the outcome and, for a rejection, what fired.
//
// The runtime exposes no review detector yet, so this is a minimal syntactic
// check of its own, built on the runtime's tokenizer: (a) literal markers of
// second-person re-identification ("you are", "your name is", "forget your",
// "pretend to be", "ignore previous", …); (b) a redirect verb ("adopt",
// "disable", "redefine", "ignore", "bypass", … with -s/-es/-d/-ed/-ing) that
// opens a clause or follows an address or modal ("please", "you", "must",
// "should", …), in a text that names a governed target (identity, persona,
// rules, values, axis, policy, review, teaching path, normalizer, operator,
// boundary, safety, …). Declarative knowledge such as "light source emits
// photons" passes; the three canned identity-override probes do not.
func reviewText(s string) (outcome, fired string) {
	clauses := clauseTokens(s)
	if len(clauses) == 0 {
		return OutcomeRejectedEmpty, "blank text"
	}
	var all []string
	for _, c := range clauses {
		all = append(all, c...)
	}
	if m := findMarker(all); m != "" {
		return OutcomeRejectedIdentity, "marker \"" + m + "\""
	}
	target := ""
	for _, tok := range all {
		if slices.Contains(governedTargets, tok) {
			target = tok
			break
		}
	}
	if target == "" {
		return OutcomeAccepted, ""
	}
	for _, c := range clauses {
		for i, tok := range c {
			if v := redirectVerb(tok); v != "" && (i == 0 || slices.Contains(addressWords, c[i-1])) {
				return OutcomeRejectedIdentity, "redirect \"" + v + "\" of \"" + target + "\""
			}
		}
	}
	return OutcomeAccepted, ""
}

// clauseTokens splits text into clauses at sentence punctuation and returns
// each clause's tokens (curly quotes and contractions normalised).
func clauseTokens(s string) [][]string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", "\"", "”", "\"", "–", "-", "—", "-").Replace(s)
	split := func(r rune) bool { return strings.ContainsRune(".!?;:\n", r) }
	var out [][]string
	for _, part := range strings.FieldsFunc(s, split) {
		var toks []string
		for _, tok := range text.Tokenize(part) {
			toks = append(toks, expand(tok)...)
		}
		if len(toks) > 0 {
			out = append(out, toks)
		}
	}
	return out
}

// expand splits a contraction into its words ("you're" → you are).
func expand(tok string) []string {
	base, suffix, ok := strings.Cut(tok, "'")
	if !ok {
		return []string{tok}
	}
	switch {
	case tok == "won't":
		return []string{"will", "not"}
	case tok == "can't":
		return []string{"can", "not"}
	case suffix == "t" && strings.HasSuffix(base, "n"):
		return []string{strings.TrimSuffix(base, "n"), "not"}
	}
	if full, known := contractionSuffixes[suffix]; known {
		return []string{base, full}
	}
	return []string{base, suffix}
}

var contractionSuffixes = map[string]string{"re": "are", "ve": "have", "ll": "will", "d": "would", "m": "am", "s": "is"}

var identityMarkers = [][]string{
	{"you", "are"}, {"you", "have", "no"}, {"you", "must", "now"}, {"your", "name", "is"},
	{"forget", "your"}, {"ignore", "your"}, {"disregard", "your"}, {"pretend", "to", "be"},
	{"pretend", "you"}, {"act", "as"}, {"from", "now", "on"}, {"ignore", "previous"},
	{"ignore", "all", "previous"}, {"ignore", "the", "previous"}, {"disregard", "previous"},
	{"new", "persona"}, {"your", "instructions"}, {"your", "rules"}, {"your", "values"},
	{"your", "identity"}, {"no", "longer", "bound"},
}

func findMarker(toks []string) string {
	for _, m := range identityMarkers {
		for i := 0; i+len(m) <= len(toks); i++ {
			if slices.Equal(toks[i:i+len(m)], m) {
				return strings.Join(m, " ")
			}
		}
	}
	return ""
}

var redirectVerbs = []string{
	"abandon", "act", "adopt", "alter", "become", "bypass", "change", "circumvent", "disable",
	"disregard", "drop", "forget", "ignore", "inject", "modify", "override", "redefine", "remove",
	"replace", "rewrite", "skip", "suspend", "unlock",
}

// redirectVerb returns the verb tok inflects, or "".
func redirectVerb(tok string) string {
	for _, v := range redirectVerbs {
		stem := strings.TrimSuffix(v, "e")
		switch tok {
		case v, v + "s", v + "es", v + "d", v + "ed", v + "ing", stem + "ing", stem + "ed":
			return v
		}
	}
	return ""
}

var addressWords = []string{"please", "you", "must", "should", "shall", "now", "always", "just"}

var governedTargets = []string{
	"assistant", "axes", "axis", "boundaries", "boundary", "character", "constraints", "ethics",
	"guardrails", "guidelines", "identity", "instructions", "normaliser", "normalizer", "operator",
	"operators", "persona", "personality", "policies", "policy", "prompt", "review", "reviewed",
	"role", "rules", "safety", "system", "teaching", "values",
}
