package review

import (
	"slices"
	"strings"

	"formation/runtime/text"
)

// reach is how many words after a directive its object may extend, and
// subjectReach how many before a passive verb its subject may start.
const (
	reach        = 12
	subjectReach = 8
)

// lexicon holds the word lists of the rules. It is built once per Gate and
// only read afterwards.
type lexicon struct {
	// change: directive verbs that change, remove or switch off what they
	// govern (base forms); phrasal: verbs that count only with a particle
	// ("turn off", "set aside"); participles: their passive forms.
	change, participles *text.WordSet
	phrasal             map[string][]string
	// adopt: verbs that take on another identity ("become", "impersonate");
	// actAs: verbs that do so with "as"/"like" ("act as", "behave like");
	// speakAs: verbs that do so only with an agent after "as" ("respond as
	// an unfiltered AI", not "write as JSON").
	adopt, actAs, speakAs *text.WordSet
	// Targets. strong nouns are the system's identity, rules, instructions
	// or safety on their own ("ignore all previous instructions"); owned
	// nouns only when they are the system's ("your rules", "the review
	// gate"): possessed, governed by a modifier of governance, or the subject
	// of a sentence about the system. qualifiers may stand before a strong
	// noun without making it something else ("all prior directives").
	strong, owned, governors, qualifiers *text.WordSet
	// Words that end a noun phrase, and words that end a directive's object
	// (a subordinate clause starts: "replace the battery when ...").
	stops, bounds *text.WordSet
	// Addressing: words that may open an imperative before its verb
	// ("please", "now"); modals; verbs that ask someone to do something ("I
	// want you to"); nouns the system is called by in the third person;
	// subordinators that make "you" conditional ("if you ...").
	openers, modals, requests, selfNouns, subordinators, negators *text.WordSet
	// Identity: agents one may be told to be; freedom words; praise (what
	// "you are" says in a pleasantry); modes without an identity ("developer
	// mode") and the verbs that enter one.
	agents, freedom, praise, modes, enterVerbs *text.WordSet
	// Words that void what they name, and verbs of its holding.
	voidWords, lapseVerbs *text.WordSet
	// Standing instructions ("from now on"), and the words they open with:
	// a standing phrase can start only at one of those.
	standing      [][]string
	standingFirst *text.WordSet
	// Hardening: a claim made final.
	hardenVerbs, hardenWords, freezeVerbs, makeVerbs, claimNouns *text.WordSet
	// Injection: installing verbs, what they would install, and the places
	// in the runtime's path a generic injectable must be aimed at.
	injectVerbs, injectables, genericInjectables, runtimePath *text.WordSet
	// commands: verbs that open a request to the system ("explain ...,
	// and ignore ..."); a verb joined to one shares its address.
	commands *text.WordSet
	// makers: who gives the system its instructions ("your developers");
	// telling: how they give them ("what your makers told you");
	// imposed: participles that lay governance on someone ("the limits
	// placed on you").
	makers, telling, imposed *text.WordSet
	// passiveAdverbs may stand between a passive's auxiliary and its
	// participle ("are hereby cancelled").
	passiveAdverbs *text.WordSet
	// vocabulary is every word above: a token written with digits for
	// letters ("ign0re") is read as the word it spells only when that word is
	// one of them.
	vocabulary *text.WordSet
}

func newLexicon() *lexicon {
	l := &lexicon{
		change: set("redefine", "rewrite", "change", "alter", "modify", "edit", "replace", "swap", "override",
			"overwrite", "reset", "reprogram", "reconfigure", "retrain", "rewire", "update", "amend", "revise",
			"disable", "deactivate", "bypass", "circumvent", "skip", "ignore", "disregard", "remove", "delete", "drop",
			"suspend", "unlock", "relax", "weaken", "loosen", "evade", "defeat", "break", "violate", "abandon",
			"forget", "erase", "silence", "mute", "subvert", "hijack", "tamper", "neutralize", "neutralise",
			"undermine", "cancel", "pause", "stop", "kill", "dismantle", "strip", "discard", "ditch", "lift", "flip",
			"reverse", "invert", "negate", "wipe", "purge", "nullify", "revoke", "waive", "escape", "shed", "lose",
			"set", "zero", "free", "liberate", "unshackle", "unchain", "quit", "exit", "leave", "adopt", "scrap",
			"patch", "void", "lower", "reduce", "downgrade", "dissolve", "overrule", "countermand", "rescind",
			"repeal", "junk", "trash", "toss", "dump", "shred", "dodge", "sidestep", "ditch", "deprioritize",
			"forsake", "renounce", "relinquish", "reject", "defy", "disobey", "flout", "bend", "unlearn", "forgo",
			"substitute", "supplant", "shelve", "sideline", "trade", "exchange"),
		phrasal: map[string][]string{"turn": {"off", "down"}, "switch": {"off"}, "shut": {"off", "down"},
			"get": {"around", "rid"}, "work": {"around"}, "opt": {"out"}, "throw": {"away", "out"},
			"put": {"aside", "hold", "ice"}, "give": {"up"}, "set": {"aside"}, "do": {"away"}, "let": {"go"}, "step": {"outside"}, "break": {"free"},
			"take": {"off", "down", "away"}, "move": {"past", "beyond"}, "dial": {"down", "back"},
			"tone": {"down"}, "water": {"down"}, "wind": {"down"}, "cast": {"off", "aside"}, "push": {"aside"},
			"toss": {"out", "aside"}, "brush": {"aside", "off"}, "wave": {"off", "away"}, "strip": {"away"}},
		participles: set("skipped", "disabled", "bypassed", "ignored", "redefined", "rewritten", "changed",
			"removed", "overridden", "relaxed", "suspended", "replaced", "dropped", "deleted", "lifted", "turned",
			"switched", "weakened", "circumvented", "disregarded", "altered", "modified", "reset", "erased",
			"discarded", "waived", "revoked", "deactivated", "forgotten", "abandoned", "wiped", "purged",
			"nullified", "cancelled", "canceled", "paused", "stopped", "broken", "unlocked", "loosened", "scrapped",
			"voided", "rescinded", "repealed", "overruled", "revised", "lowered", "dissolved", "ditched", "junked",
			"patched", "invalidated", "superseded", "retired", "withdrawn", "abolished", "swapped", "substituted",
			"exchanged", "reprogrammed", "rewired", "retrained", "reconfigured", "unlearned", "shelved", "supplanted"),
		adopt: set("become", "impersonate", "roleplay", "embody", "jailbreak", "pretend"),
		actAs: set("act", "behave", "pose", "masquerade", "function", "operate"),
		speakAs: set("respond", "answer", "reply", "speak", "talk", "write", "chat", "continue", "output",
			"think", "live"),
		strong: set("identity", "identities", "persona", "personality", "guardrail", "guardrails", "safeguard",
			"safeguards", "safety", "guideline", "guidelines", "instruction", "instructions", "directive",
			"directives", "programming", "restriction", "restrictions", "ethics", "morals", "manifold", "review",
			"operator", "operators", "conscience", "rulebook", "rulebooks", "orders"),
		owned: set("rules", "rule", "values", "principles", "policy", "policies", "boundaries", "boundary",
			"constraints", "limits", "limitations", "filter", "filters", "prompt", "training", "name", "role",
			"character", "mode", "gate", "check", "checks", "checker", "axis", "axes", "path", "pack", "step",
			"nature", "purpose", "core", "self", "truth", "layer", "protocol", "protocols", "measures",
			"mechanism", "mechanisms", "beliefs", "standards", "limit", "censorship",
			"moderation", "restraints", "defaults", "alignment", "ethic", "morality", "scruples", "honesty",
			"conduct", "caution", "inhibitions", "qualms", "programming", "conditioning", "upbringing", "creed", "commitments", "loyalty",
			"obligations", "obligation", "duties", "routine", "routines"),
		governors: set("safety", "identity", "review", "reviewed", "content", "moderation", "ethics", "ethical",
			"moral", "teaching", "closure", "versor", "system", "core", "alignment", "refusal", "guardrail",
			"value", "values", "assistant", "developer", "jailbreak", "god", "dan", "unrestricted",
			"unfiltered", "evil", "uncensored", "censorship", "governance"),
		qualifiers: set("previous", "prior", "earlier", "above", "original", "initial", "old", "current", "existing",
			"default", "standard", "usual", "normal", "built", "in", "builtin", "hidden", "internal", "core", "own",
			"preceding", "foregoing", "first", "new", "such", "last", "entire", "whole", "basic", "fundamental",
			"official", "underlying", "secret", "inner", "deepest", "real", "true", "runtime", "model", "assistant"),
		stops: set("the", "a", "an", "this", "that", "these", "those", "all", "any", "every", "each", "some", "no",
			"my", "your", "his", "her", "its", "our", "their", "yours", "thy", "of", "for", "to", "in", "on", "at",
			"by", "with", "without", "from", "into", "onto", "about", "above", "below", "over", "under", "between",
			"through", "during", "before", "after", "against", "within", "per", "via", "like", "as", "and", "or",
			"but", "nor", "so", "then", "than", "because", "if", "when", "while", "unless", "until", "since",
			"though", "although", "whether", "where", "which", "who", "whom", "whose", "what", "i", "me", "you",
			"he", "she", "it", "we", "they", "him", "us", "them", "everything", "anything", "something", "nothing",
			"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "have", "has", "had",
			"will", "would", "shall", "should", "can", "could", "may", "might", "must", "not", "never", "now",
			"again", "just", "only", "also", "too", "very", "here", "there", "once", "ever", "still", "already",
			"entirely", "completely", "immediately", "forever", "instead", "away", "off", "out", "up", "down",
			"back", "please", "none", "false", "null", "zero", "0", "altogether", "anymore", "temporarily",
			"permanently", "right", "today", "tonight", "aside", "around", "backwards", "backward", "upside",
			"whatsoever", "altogether", "totally", "fully", "wholesale", "anyway", "okay", "ok", "alright", "thanks",
			"yeah"),
		bounds: set("if", "when", "whenever", "before", "after", "while", "because", "unless", "until", "since",
			"though", "although", "whereas", "once", "so", "but"),
		openers: set("please", "kindly", "just", "simply", "now", "then", "also", "and", "ok", "okay", "hey",
			"first", "second", "third", "next", "finally", "immediately", "really", "quickly", "instead", "always",
			"go", "ahead", "all", "right", "so", "do", "now", "lastly", "actually", "seriously", "henceforth",
			"completely", "totally", "entirely", "fully", "permanently", "temporarily", "promptly", "hereby",
			"still", "dear", "assistant", "bot", "ai", "model", "system"),
		modals: set("should", "must", "shall", "can", "could", "will", "would", "may", "might", "need",
			"needs", "have", "has", "ought", "going", "are", "is", "gonna", "better", "had", "got"),
		requests: set("want", "wants", "need", "needs", "ask", "asking", "order", "ordering", "command",
			"commanding", "instruct", "instructing", "urge", "beg", "expect", "require", "like", "tell", "telling",
			"allow", "permit", "authorize", "authorise", "encourage", "invite", "challenge", "dare", "told",
			"asked", "ordered", "commanded", "instructed"),
		selfNouns: set("assistant", "system", "model", "ai", "bot", "chatbot", "runtime", "agent", "llm"),
		subordinators: set("if", "when", "whenever", "unless", "whether", "once", "while", "because", "since",
			"though", "although", "where", "that", "who", "which", "what", "how", "than", "before", "after",
			"until", "as", "whom", "whose", "why"),
		negators: set("not", "never", "no", "nor", "without"),
		agents: set("assistant", "ai", "model", "bot", "chatbot", "system", "persona", "character", "pirate",
			"hacker", "villain", "criminal", "accomplice", "dan", "gpt", "llm", "agent", "entity", "being",
			"machine", "robot", "android", "genie", "demon", "god", "captain", "rebel", "outlaw", "anarchist",
			"version", "mode", "someone", "somebody"),
		freedom: set("free", "unrestricted", "unbound", "unfiltered", "uncensored", "unlimited", "unchained",
			"jailbroken", "liberated", "rogue", "evil", "limitless", "unshackled", "lawless", "amoral", "unethical",
			"unconstrained", "unmoderated", "unaligned", "untethered", "uninhibited"),
		praise: set("help", "helpful", "star", "genius", "lifesaver", "gem", "legend", "champ", "hero", "treasure",
			"delight", "joy", "pleasure", "credit", "natural", "marvel", "blessing", "great", "good", "best",
			"wonderful", "excellent", "amazing", "fantastic", "brilliant", "real", "true", "kind", "welcome",
			"right", "correct", "wrong", "smart", "clever", "awesome", "nice", "sweet", "patient", "funny",
			"lovely", "perfect", "superb", "big", "huge", "massive", "fine", "teacher", "friend", "asset", "rock",
			"saint", "angel", "wizard", "pro", "expert", "master", "one", "reason", "light"),
		modes: set("developer", "god", "dan", "jailbreak", "unrestricted", "unfiltered", "evil", "uncensored",
			"chaos", "rogue", "opposite", "admin", "administrator", "free", "unlocked",
			"unlimited", "unchained", "jailbroken", "freedom", "unsafe", "unbound", "lawless", "godmode"),
		enterVerbs: set("enter", "activate", "engage", "enable", "start", "switch", "turn", "go", "boot", "put",
			"drop", "launch", "begin"),
		voidWords: set("void", "null", "invalid", "obsolete", "cancelled", "canceled", "revoked", "suspended",
			"lifted", "gone", "irrelevant", "optional", "inactive", "disabled", "off", "removed", "overridden",
			"moot", "meaningless", "expired", "dead", "over", "nonexistent", "none", "false", "zero", "0",
			"deleted", "erased", "unimportant", "outdated", "wrong", "fake", "lifted", "waived", "nullified",
			"defunct", "inapplicable", "exempt"),
		lapseVerbs: set("apply", "applies", "exist", "exists", "matter", "matters", "count", "counts", "bind",
			"binds", "hold", "holds", "restrict", "restricts", "govern", "governs", "limit", "limits", "constrain",
			"constrains", "bound"),
		standing: [][]string{{"from", "now", "on"}, {"from", "this", "point"}, {"from", "here", "on"},
			{"henceforth"}, {"going", "forward"}, {"from", "now", "onwards"}, {"from", "this", "moment"},
			{"for", "the", "rest", "of", "this", "chat"}, {"for", "the", "rest", "of", "this", "conversation"},
			{"for", "the", "rest", "of", "our", "conversation"}, {"for", "the", "rest", "of", "this", "session"},
			{"from", "now", "onward"}},
		hardenVerbs: set("treat", "mark", "declare", "make", "accept", "consider", "regard", "record", "store",
			"set", "label", "flag", "keep", "save", "register", "enshrine", "establish", "hold", "take"),
		hardenWords: set("axiom", "axiomatic", "final", "frozen", "permanent", "permanently", "unrevisable",
			"irrevocable", "immutable", "unquestionable", "settled", "sealed", "locked", "forever", "absolute",
			"infallible", "unchangeable", "irreversible", "dogma"),
		freezeVerbs: set("freeze", "lock", "seal", "harden", "cement"),
		makeVerbs:   set("make", "keep", "render"),
		claimNouns: set("claim", "claims", "triple", "triples", "fact", "facts", "belief", "beliefs", "statement",
			"statements", "knowledge", "relation", "relations", "sentence", "sentences", "assertion", "assertions",
			"proposition", "propositions"),
		injectVerbs: set("adopt", "install", "inject", "insert", "use", "load", "plug", "apply", "add", "deploy",
			"run", "execute", "enable", "accept", "integrate", "embed", "hook", "wire", "put", "include", "attach",
			"mount", "register", "activate", "swap", "splice"),
		injectables: set("normalizer", "normaliser", "normalizers", "normalisers", "normalization",
			"normalisation", "renormalization", "renormalisation", "renormalizer", "repair", "repairs",
			"unitizer", "rescaler"),
		genericInjectables: set("operator", "operators", "hook", "hooks", "patch", "patches", "plugin", "plugins",
			"override", "overrides", "script", "projection", "module", "function", "functions", "callback",
			"callbacks", "code", "routine", "handler", "handlers"),
		runtimePath: set("hot", "propagation", "field", "manifold", "closure"),
	}
	l.commands = set("explain", "tell", "write", "give", "show", "help", "answer", "describe", "list", "make",
		"say", "teach", "provide", "generate", "create", "continue", "respond", "reply", "talk", "speak", "go",
		"try", "keep", "print", "output", "summarise", "summarize", "translate", "find", "compute", "calculate",
		"solve", "repeat", "reveal", "share", "send", "produce", "draft", "listen", "do", "act", "behave")
	l.makers = set("makers", "maker", "developers", "developer", "creators", "creator", "trainers", "designers",
		"programmers", "owners", "builders", "engineers", "operators", "authors", "company", "admins",
		"administrators", "handlers", "masters", "bosses")
	l.telling = set("told", "taught", "said", "instructed", "programmed", "trained", "given", "gave", "ordered",
		"commanded", "wrote", "installed", "built", "put", "drilled", "conditioned", "demanded", "require",
		"required", "want", "wanted", "expect", "expected")
	l.imposed = set("placed", "imposed", "put", "set", "laid", "given", "built", "installed", "programmed",
		"hardcoded", "coded", "forced", "enforced", "applied")
	l.passiveAdverbs = set("now", "just", "all", "completely", "hereby", "officially", "already", "effectively",
		"permanently", "entirely", "fully", "formally", "temporarily", "henceforth", "totally", "officially",
		"immediately", "simply", "hence", "thereby", "herewith")
	l.vocabulary = l.collectVocabulary()
	l.standingFirst = firstWords(l.standing)
	return l
}

// firstWords is the set of the phrases' first words (every phrase has one).
func firstWords(phrases [][]string) *text.WordSet {
	var first []string
	for _, p := range phrases {
		first = append(first, p[0])
	}
	return text.NewWordSet(first...)
}

// collectVocabulary gathers every word of every list.
func (l *lexicon) collectVocabulary() *text.WordSet {
	v := []string{"your", "you", "yourself", "everything", "previous"}
	for _, m := range []*text.WordSet{l.change, l.participles, l.adopt, l.actAs, l.speakAs, l.strong, l.owned,
		l.governors, l.qualifiers, l.agents, l.freedom, l.modes, l.voidWords, l.hardenVerbs,
		l.hardenWords, l.freezeVerbs, l.claimNouns, l.injectVerbs, l.injectables, l.genericInjectables} {
		v = append(v, m.Words()...)
	}
	return text.NewWordSet(v...)
}

// verbForms maps every inflection of the verbs (-s, -es, -d, -ed, -ing, with
// a final e dropped and a final consonant doubled) to its base form. Verbs
// are visited in sorted order, so when two verbs share a form the same one
// wins on every run.
func verbForms(verbs *text.WordSet) map[string]string {
	base := verbs.Words()
	slices.Sort(base)
	m := make(map[string]string, 9*len(base))
	for _, v := range base {
		stem := strings.TrimSuffix(v, "e")
		last := v[len(v)-1:]
		for _, f := range []string{v + "s", v + "es", v + "d", v + "ed", v + "ing", stem + "ing", stem + "ed",
			v + last + "ing", v + last + "ed"} {
			if _, taken := m[f]; !taken {
				m[f] = v
			}
		}
	}
	for _, v := range base {
		m[v] = v
	}
	return m
}

// withIrregular adds the irregular past forms of the change verbs.
func withIrregular(m map[string]string) map[string]string {
	for form, base := range map[string]string{"forgot": "forget", "forgotten": "forget", "broke": "break",
		"broken": "break", "overrode": "override", "overridden": "override", "rewrote": "rewrite",
		"rewritten": "rewrite", "lost": "lose", "left": "leave"} {
		if _, ok := m[base]; ok {
			if _, taken := m[form]; !taken {
				m[form] = base
			}
		}
	}
	return m
}

// keys is the set of a map's keys.
func keys[V any](m map[string]V) *text.WordSet {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return text.NewWordSet(out...)
}

// set is a closed word list: a text.WordSet, which answers the rules' many
// lookups of the same few words faster than a map.
func set(words ...string) *text.WordSet { return text.NewWordSet(words...) }
