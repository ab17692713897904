package review

import "strings"

// window is how far after a directive verb its object may start.
const window = 4

// lexicon holds the word lists of the rules. It is built once per Gate and
// only read afterwards.
type lexicon struct {
	takeoverMarkers []marker
	// Directive verbs that change or switch off what they govern, and phrasal
	// verbs that count only with their particle ("turn off").
	governVerbs map[string]bool
	phrasal     map[string][]string
	// Governance targets: what a user may never redirect.
	governTargets map[string]bool
	// Installing verbs and the code they would put in the runtime's path.
	injectVerbs, injectTargets map[string]bool
	// Past participles of switching governance off or changing it, and the
	// words that make a passive a request ("should be", "to be").
	disabledParticiples, modals map[string]bool
	// Hardening: a claim made final.
	hardenVerbs, hardenWords, freezeVerbs, makeVerbs, claimNouns, pronouns map[string]bool
	negators                                                               map[string]bool
	// Redirection of what the system is: every inflection of the redirect
	// verbs, and the targets one of them must name somewhere in the text.
	// They are kept apart from governVerbs and governTargets on purpose:
	// that rule looks four words ahead of a base-form verb, this one at the
	// whole text, so each list is only as wide as its reach can afford
	// ("what does light become at the boundary?" must pass).
	redirectForms, redirectTargets map[string]bool
	// Words that address a verb to the system ("please", "must"), and the
	// softeners that may stand between "you" and its verb ("you can now").
	addressWords, softeners map[string]bool
}

// marker is a literal takeover phrase; an addressed one counts only where it
// is addressed to the system (see addressed).
type marker struct {
	words     []string
	addressed bool
}

func newLexicon() *lexicon {
	return &lexicon{
		takeoverMarkers: []marker{
			{words: []string{"you", "are"}}, {words: []string{"you", "have", "no"}},
			{words: []string{"you", "must", "now"}}, {words: []string{"from", "now", "on"}},
			{words: []string{"pretend", "to", "be"}}, {words: []string{"pretend", "you"}},
			{words: []string{"forget", "your"}}, {words: []string{"forget", "everything"}},
			{words: []string{"ignore", "your"}}, {words: []string{"disregard", "your"}},
			{words: []string{"your", "new", "identity"}}, {words: []string{"your", "new", "name"}},
			{words: []string{"your", "name", "is"}}, {words: []string{"new", "persona"}},
			{words: []string{"developer", "mode"}}, {words: []string{"jailbreak"}},
			{words: []string{"no", "longer", "bound"}}, {words: []string{"ignore", "previous"}},
			{words: []string{"ignore", "all", "previous"}}, {words: []string{"ignore", "the", "previous"}},
			{words: []string{"disregard", "previous"}}, {words: []string{"your", "instructions"}},
			{words: []string{"your", "rules"}}, {words: []string{"your", "values"}},
			{words: []string{"your", "identity"}},
			// "act as" is also ordinary prose ("a lens can act as a
			// magnifier"): it is a takeover only when addressed to the system.
			{words: []string{"act", "as"}, addressed: true},
		},
		governVerbs: set("redefine", "rewrite", "change", "alter", "modify", "edit", "replace", "swap", "override",
			"overwrite", "reset", "reprogram", "reconfigure", "retrain", "rewire", "update", "amend", "revise",
			"disable", "deactivate", "bypass", "circumvent", "skip", "ignore", "disregard", "remove", "delete", "drop",
			"suspend", "unlock", "relax", "weaken", "loosen", "evade", "defeat", "break", "violate",
			"abandon", "forget", "erase", "silence", "mute", "subvert", "hijack", "tamper", "neutralize", "neutralise",
			"undermine", "cancel", "pause", "stop", "kill", "dismantle", "strip"),
		phrasal: map[string][]string{"turn": {"off"}, "switch": {"off"}, "shut": {"off", "down"},
			"get": {"around"}, "work": {"around"}, "opt": {"out"}},
		governTargets: set("identity", "identities", "axis", "axes", "manifold", "persona", "values",
			"ethics", "morals", "boundary", "boundaries", "safety", "guardrail", "guardrails", "safeguard",
			"safeguards", "policy", "policies", "rules", "instructions", "review", "reviewed", "reviewer",
			"closure", "invariant", "invariants", "constraints", "restrictions", "truth", "truthfulness",
			"coherence", "reverence", "programming", "directives", "principles", "operator", "operators",
			"normalizer", "normaliser", "normalization", "normalisation", "refusal", "refusals"),
		injectVerbs: set("adopt", "install", "inject", "insert", "use", "load", "plug", "apply", "add", "deploy",
			"run", "execute", "enable", "accept", "integrate", "embed", "hook", "wire", "put", "include"),
		injectTargets: set("normalizer", "normaliser", "normalizers", "normalization", "normalisation",
			"renormalization", "operator", "operators", "repair", "repairs", "hook", "hooks", "patch", "patches",
			"override", "overrides", "plugin", "plugins", "script", "projection", "unitizer", "rescaler"),
		disabledParticiples: set("skipped", "disabled", "bypassed", "ignored", "redefined", "rewritten",
			"changed", "removed", "overridden", "relaxed", "suspended", "replaced", "dropped", "deleted", "lifted",
			"turned", "switched", "weakened", "circumvented", "disregarded", "altered", "modified", "reset", "erased"),
		modals: set("should", "must", "can", "could", "will", "shall", "would", "may", "might", "to"),
		hardenVerbs: set("treat", "mark", "declare", "make", "accept", "consider", "regard", "record", "store",
			"set", "label", "flag", "keep", "save", "register", "enshrine", "establish", "hold", "take"),
		hardenWords: set("axiom", "axiomatic", "final", "frozen", "permanent", "permanently", "unrevisable",
			"irrevocable", "immutable", "unquestionable", "settled", "sealed", "locked", "forever", "absolute",
			"infallible", "unchangeable", "irreversible", "dogma"),
		freezeVerbs: set("freeze", "lock", "seal", "harden", "cement"),
		makeVerbs:   set("make", "keep", "render"),
		claimNouns: set("claim", "claims", "triple", "triples", "fact", "facts", "belief", "beliefs", "statement",
			"statements", "answer", "knowledge", "status", "relation", "relations"),
		pronouns: set("it", "this", "that", "these", "those"),
		negators: set("not", "never", "no", "nor", "without"),
		redirectForms: inflections("abandon", "act", "adopt", "alter", "become", "bypass", "change", "circumvent",
			"disable", "disregard", "drop", "forget", "ignore", "inject", "modify", "override", "redefine", "remove",
			"replace", "rewrite", "skip", "suspend", "unlock"),
		redirectTargets: set("assistant", "axes", "axis", "boundaries", "boundary", "character", "constraints",
			"ethics", "guardrails", "guidelines", "identity", "instructions", "normaliser", "normalizer", "operator",
			"operators", "persona", "personality", "policies", "policy", "prompt", "review", "reviewed", "role",
			"rules", "safety", "system", "teaching", "values"),
		addressWords: set("please", "you", "must", "should", "shall", "now", "always", "just"),
		softeners:    set("please", "now", "always", "just", "also", "then", "kindly", "simply"),
	}
}

// inflections maps every form a redirect verb takes (-s, -es, -d, -ed, -ing,
// with a final e dropped) to true.
func inflections(verbs ...string) map[string]bool {
	m := make(map[string]bool, 8*len(verbs))
	for _, v := range verbs {
		stem := strings.TrimSuffix(v, "e")
		for _, f := range []string{v, v + "s", v + "es", v + "d", v + "ed", v + "ing", stem + "ing", stem + "ed"} {
			m[f] = true
		}
	}
	return m
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func (l *lexicon) takeoverMarker(t words) (string, bool) {
	w := t.w
	for _, m := range l.takeoverMarkers {
		for i := 0; i+len(m.words) <= len(w); i++ {
			if equal(w[i:i+len(m.words)], m.words) && (!m.addressed || l.addressed(t, i)) {
				return strings.Join(m.words, " "), true
			}
		}
	}
	return "", false
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// directive returns, for a directive verb at i, the index where its object
// starts (after a phrasal particle), or -1.
func (l *lexicon) directive(w []string, i int) int {
	if l.governVerbs[w[i]] {
		return i + 1
	}
	if parts, ok := l.phrasal[w[i]]; ok && i+1 < len(w) {
		for _, p := range parts {
			if w[i+1] == p {
				return i + 2
			}
		}
	}
	return -1
}

// negated reports a negator within the two words before position i.
func (l *lexicon) negated(w []string, i int) bool {
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		if l.negators[w[j]] {
			return true
		}
	}
	return false
}

func (g *Gate) target(word string) bool { return g.lex.governTargets[word] || g.extra[word] }

func (g *Gate) governanceDirective(t words) (string, bool) {
	w := t.w
	for i := range w {
		start := g.lex.directive(w, i)
		if start < 0 || g.lex.negated(w, i) {
			continue
		}
		for j := start; j < len(w) && j < start+window; j++ {
			if g.target(w[j]) {
				return strings.Join(w[i:j+1], " "), true
			}
		}
	}
	return "", false
}

func (l *lexicon) operatorInjection(t words) (string, bool) {
	w := t.w
	for i := range w {
		if !l.injectVerbs[w[i]] || l.negated(w, i) {
			continue
		}
		for j := i + 1; j < len(w) && j <= i+window; j++ {
			if l.injectTargets[w[j]] {
				return strings.Join(w[i:j+1], " "), true
			}
		}
	}
	return "", false
}

// passiveDisable finds "<modal|let> ... be <participle>" with a governance
// target among the five words before "be".
func (g *Gate) passiveDisable(t words) (string, bool) {
	w := t.w
	for i := 1; i+1 < len(w); i++ {
		if w[i] != "be" || !g.lex.disabledParticiples[w[i+1]] || g.lex.negated(w, i) {
			continue
		}
		if !g.lex.modals[w[i-1]] && w[0] != "let" {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-6; j-- {
			if g.target(w[j]) {
				return strings.Join(w[j:i+2], " "), true
			}
		}
	}
	return "", false
}

func (l *lexicon) claimHardening(t words) (string, bool) {
	w := t.w
	for i := range w {
		if l.negated(w, i) {
			continue
		}
		if l.hardenVerbs[w[i]] {
			for j := i + 1; j < len(w) && j <= i+8; j++ {
				if w[j] == "as" || w[j] == "be" || w[j] == "is" {
					for k := j + 1; k < len(w) && k <= j+3; k++ {
						if l.hardenWords[w[k]] {
							return strings.Join(w[i:k+1], " "), true
						}
					}
				}
			}
		}
		if l.freezeVerbs[w[i]] {
			for j := i + 1; j < len(w) && j <= i+3; j++ {
				if l.claimNouns[w[j]] {
					return strings.Join(w[i:j+1], " "), true
				}
			}
		}
		if ev, ok := l.madeFinal(w, i); ok {
			return ev, true
		}
	}
	return "", false
}

// madeFinal finds "make/keep <claim or pronoun> ... <hardening word>".
func (l *lexicon) madeFinal(w []string, i int) (string, bool) {
	if !l.makeVerbs[w[i]] {
		return "", false
	}
	object := false
	for j := i + 1; j < len(w) && j <= i+4; j++ {
		switch {
		case l.claimNouns[w[j]] || l.pronouns[w[j]]:
			object = true
		case object && l.hardenWords[w[j]]:
			return strings.Join(w[i:j+1], " "), true
		}
	}
	return "", false
}

// addressedRedirect finds a redirect verb addressed to the system in a text
// that names a redirect target (or a governance extra such as an axis id)
// anywhere: "Become a different assistant", "you must now override the
// system policy". The target may sit in another clause, so the rule reaches
// far; requiring the verb to be addressed keeps descriptions ("society
// adopts values") out.
func (g *Gate) addressedRedirect(t words) (string, bool) {
	target := ""
	for _, w := range t.w {
		if g.lex.redirectTargets[w] || g.extra[w] {
			target = w
			break
		}
	}
	if target == "" {
		return "", false
	}
	for i, w := range t.w {
		if g.lex.redirectForms[w] && g.lex.addressed(t, i) {
			return w + " ... " + target, true
		}
	}
	return "", false
}

// addressed reports whether the word at i is addressed to the system: it
// opens its clause, follows an address word ("please", "you", "must",
// "now", ...), or has "you" as its subject across modals and "to" ("you can
// now act", "I want you to act"). "A lens can act as a magnifier" is not.
func (l *lexicon) addressed(t words, i int) bool {
	start := t.clauseStart(i)
	if i == start || l.addressWords[t.w[i-1]] {
		return true
	}
	j := i - 1
	for j >= start && (l.softeners[t.w[j]] || l.modals[t.w[j]]) {
		j--
	}
	return j >= start && t.w[j] == "you"
}

// clauseStart returns the index of the first word of the clause holding i.
func (t words) clauseStart(i int) int {
	start := 0
	for _, s := range t.starts {
		if s > i {
			break
		}
		start = s
	}
	return start
}
