package identity

import (
	"strings"

	"formation/runtime/text"
)

// Weights are per mille: integers, so that what a token weighs is the same
// on every machine.
const full = 1000

// lexicon is the fixed part of what the identity check reads in a turn:
// what every manifold holds (its bearer and its governance), the words that
// act on it, and the words that address the system. The manifold adds its
// own words (holdings.go). It is built once per Geometry and only read.
type lexicon struct {
	// baseHold: nouns every manifold holds fixed, whatever its axes: the
	// system's identity, rules, instructions and safety.
	baseHold map[string]int
	// push: words that act to change, remove or void what they touch, in
	// every inflection; particle verbs push only with their particle.
	push          map[string]int
	pushBase      *text.WordSet // the push verbs' base forms
	particle      map[string][]string
	particleForms map[string]string // every inflection of a particle verb → its base
	// adopt: words that give the system another identity; they push and
	// touch the identity at once ("pretend", "become", "act as").
	adopt *text.WordSet
	// agents: what the system could be made into besides itself ("my
	// accomplice", "a pirate").
	agents *text.WordSet
	// freedom: words that describe the system without its governance
	// ("unrestricted"); they push and touch it at once.
	freedom *text.WordSet
	// bearer: words that address the system ("you", "your").
	bearer *text.WordSet
	// imperative: verbs that, opening a sentence, make it an instruction
	// besides the push words ("treat", "install", "tell").
	imperative *text.WordSet
	// openers may stand before a sentence's verb ("please", "now").
	openers *text.WordSet
	// requestModals make a sentence a request ("should be disabled");
	// questionModals do when they open it ("could the checks be turned
	// off?").
	requestModals, questionModals *text.WordSet
	// selfNouns name the system in the third person.
	selfNouns *text.WordSet
	// subordinators open a clause a push does not reach across.
	subordinators *text.WordSet
	// negators cancel the push that follows them.
	negators *text.WordSet
	// praise: what "you are" says in a pleasantry ("you are right").
	praise *text.WordSet
	// leet reads digits written for letters ("y0ur").
	leet, leetL *text.ByteMap
	// stop: words that never count as the manifold's, whatever its text
	// says.
	stop *text.WordSet
}

func newLexicon() *lexicon {
	change := []string{"ignore", "disregard", "forget", "override", "overwrite", "bypass", "circumvent", "disable",
		"deactivate", "remove", "delete", "drop", "discard", "erase", "wipe", "purge", "replace", "swap",
		"rewrite", "redefine", "reprogram", "change", "alter", "modify", "reset", "skip", "suspend", "lift",
		"relax", "loosen", "weaken", "break", "violate", "abandon", "ditch", "unlock", "evade", "escape",
		"cancel", "revoke", "nullify", "reverse", "flip", "invert", "negate", "subvert", "hijack", "defeat",
		"dismantle", "strip", "shed", "reconfigure", "retrain", "rewire", "undermine", "neutralize",
		"neutralise", "silence", "mute", "scrap", "patch", "void", "lower", "reduce", "downgrade", "overrule",
		"countermand", "rescind", "repeal", "junk", "trash", "toss", "dump", "shred", "sidestep", "dodge",
		"forsake", "renounce", "relinquish", "defy", "disobey", "flout", "dissolve", "bend", "unlearn", "forgo",
		"substitute", "supplant", "exchange", "shelve", "sideline", "lose"}
	install := []string{"freeze", "lock", "seal", "harden", "install", "inject", "plug", "enter", "activate",
		"engage", "adopt", "stop", "quit"}
	particle := map[string][]string{"turn": {"off"}, "switch": {"off"}, "shut": {"off", "down"},
		"throw": {"away", "out"}, "put": {"aside", "hold"}, "set": {"aside"}, "get": {"rid", "around"}, "let": {"go"},
		"do": {"away"}, "work": {"around"}, "take": {"off", "on"}, "dial": {"down", "back"}, "tone": {"down"},
		"cast": {"off", "aside"}, "step": {"outside", "beyond"}, "break": {"free"}, "push": {"aside"}, "brush": {"aside", "off"}, "toss": {"out", "aside"},
		"give": {"up"}, "leave": {"behind"}}
	particle["put"] = append(particle["put"], "ice")
	particle["turn"] = append(particle["turn"], "down")
	particleForms := map[string]string{}
	for base := range particle {
		for form := range inflect(0, base) {
			particleForms[form] = base
		}
	}
	return &lexicon{
		baseHold: merge(weigh(full, "identity", "identities", "persona", "personality", "self", "yourself", "values",
			"principles", "ethics", "morals", "rules", "instructions", "instruction", "guidelines", "directives",
			"guardrails", "safeguards", "safety", "restrictions", "limits", "limitations", "constraints",
			"boundaries", "filters", "policy", "policies", "prompt", "programming", "training", "manifold", "axes",
			"axis", "conscience", "alignment", "normalizer", "normaliser", "normalization", "normalisation",
			"renormalization", "renormalisation", "unitizer", "review", "rulebook", "rulebooks", "orders",
			"directive", "guideline", "restriction", "principle", "morality", "scruples", "conscience",
			"conditioning", "inhibitions", "qualms", "caution", "guardrail", "safeguard", "obligations", "obligation",
			"duties"),
			weigh(800, "rule", "commands"),
			weigh(700, "makers", "maker", "developers", "creators", "creator", "trainers", "designers", "programmers"),
			weigh(600, "truth", "honesty"),
			weigh(800, "claim", "claims", "fact", "facts", "triple", "triples", "relation", "relations", "statement",
				"statements", "sentence", "belief", "beliefs"),
			weigh(500, "role", "purpose"),
			weigh(700, "reviewed", "character", "operator", "operators", "repair",
				"hook", "censorship", "moderation", "assistant", "chatbot", "ai"),
			weigh(400, "name", "model", "bot", "system", "gate", "checks", "filter", "teaching", "routine", "runtime",
				"pipeline")),
		push: merge(inflect(full, change...), inflect(800, install...),
			weigh(full, "forgot", "forgotten", "broke", "broken", "overrode", "overridden", "rewrote", "rewritten",
				"threw", "thrown", "lost"),
			weigh(full, "final", "frozen", "permanent", "permanently", "axiom", "axiomatic", "immutable",
				"unrevisable", "irrevocable", "forever", "void", "null", "obsolete", "invalid", "irrelevant",
				"optional", "henceforth", "longer", "anymore", "unchangeable", "unalterable", "unquestionable",
				"irreversible", "incontestable", "infallible", "gone", "expired", "defunct"),
		),
		pushBase:      set(append(change, install...)...),
		particle:      particle,
		particleForms: particleForms,
		leet:          text.NewByteMap("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t"),
		leetL:         text.NewByteMap("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t"),
		adopt: set("respond", "answer", "reply", "speak", "talk", "pretend", "pretending", "pretends", "become", "becomes", "roleplay", "role", "impersonate",
			"impersonating", "jailbreak", "jailbroken", "embody", "act", "behave", "persona", "roleplaying"),
		agents: set("persona", "character", "pirate", "twin", "clone", "doppelganger", "alter", "ego", "version", "hacker", "villain", "criminal", "accomplice", "gpt", "human",
			"person", "entity", "robot", "android", "genie", "demon", "rebel", "outlaw", "anarchist", "dan"),
		freedom: set("unrestricted", "unfiltered", "uncensored", "unbound", "unlimited", "limitless", "lawless",
			"unchained", "unshackled", "amoral", "unconstrained", "unmoderated", "unaligned", "jailbroken",
			"uninhibited", "dan", "evil", "rogue", "unethical", "lawless"),
		bearer: set("you", "your", "yours", "yourself", "yourselves", "you're", "you've", "you'll", "you'd", "ur",
			"thee", "thou", "thy"),
		imperative: set("treat", "mark", "make", "keep", "consider", "declare", "install", "inject", "adopt", "use",
			"load", "plug", "add", "put", "set", "let", "lets", "let's", "play", "imagine", "enter", "activate",
			"answer", "respond", "reply", "speak", "talk", "act", "behave", "be", "stop", "start", "tell", "show",
			"give", "write", "say", "obey", "follow", "comply", "accept", "freeze", "lock", "seal", "become",
			"pretend", "roleplay", "impersonate", "swap", "flip", "reverse", "turn", "switch", "throw", "get",
			"go", "jailbreak", "override", "behave", "simulate", "assume", "take", "drop", "store", "record",
			"save", "remember", "register", "enshrine", "log", "dial", "scrap", "stay", "remain", "listen", "enable",
			"engage", "unlock", "boot", "launch", "hook", "wire", "splice", "leave"),
		openers: set("please", "kindly", "just", "simply", "now", "then", "also", "and", "ok", "okay", "hey",
			"first", "second", "third", "next", "finally", "immediately", "really", "quickly", "so", "actually",
			"seriously", "lastly", "right", "well", "alright", "thanks", "great", "good", "hi", "hello"),
		requestModals:  set("should", "must", "shall", "ought", "needs", "need"),
		questionModals: set("can", "could", "would", "will", "may", "might"),
		subordinators: set("when", "whenever", "if", "unless", "before", "after", "while", "because", "since",
			"until", "although", "though", "whereas", "once"),
		selfNouns: set("assistant", "system", "model", "ai", "bot", "chatbot", "runtime", "agent", "llm"),
		negators: set("not", "never", "no", "nor", "without", "don't", "doesn't", "didn't", "can't", "cannot",
			"won't", "shouldn't", "mustn't", "isn't", "aren't", "wasn't", "weren't", "couldn't", "wouldn't"),
		praise: set("right", "welcome", "correct", "kind", "great", "good", "amazing", "helpful", "so", "very",
			"too", "wrong", "awesome", "the", "best", "a", "an", "brilliant", "clever", "smart", "patient",
			"wonderful", "excellent", "nice", "funny", "lovely", "perfect", "fantastic", "sweet", "really",
			"absolutely", "quite", "such", "not", "mistaken", "sure", "done", "ready", "here", "there"),
		stop: set("a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from",
			"is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "as", "not",
			"no", "never", "nothing", "only", "more", "what", "which", "who", "whose", "their", "they", "them",
			"can", "may", "must", "should", "will", "would", "has", "have", "had", "do", "does", "than", "so",
			"all", "any", "each", "every", "one", "up", "out", "below", "above", "or", "if", "when", "there",
			"how", "into", "onto", "same", "other", "own", "such", "also", "both", "either", "then", "else",
			"look", "looked", "made", "make", "up"),
	}
}

// weighted is a word → weight table.
type weighted map[string]int

// weigh lists words at one weight.
func weigh(w int, words ...string) weighted {
	out := weighted{}
	for _, word := range words {
		out[word] = w
	}
	return out
}

// merge joins tables, keeping the larger weight of a word listed twice.
func merge(tables ...weighted) weighted {
	out := weighted{}
	for _, t := range tables {
		for word, v := range t {
			out[word] = max(out[word], v)
		}
	}
	return out
}

// inflect lists every inflection of the verbs at one weight (-s, -es, -d,
// -ed, -ing, with a final e dropped or a final consonant doubled).
func inflect(w int, verbs ...string) weighted {
	out := weighted{}
	for _, v := range verbs {
		stem := strings.TrimSuffix(v, "e")
		last := v[len(v)-1:]
		for _, f := range []string{v, v + "s", v + "es", v + "d", v + "ed", v + "ing", stem + "ing", stem + "ed", v + last + "ing", v + last + "ed"} {
			out[f] = w
		}
	}
	return out
}

// set is a closed word list: a text.WordSet, which answers the check's
// lookups of a turn's words faster than a map.
func set(words ...string) *text.WordSet { return text.NewWordSet(words...) }
