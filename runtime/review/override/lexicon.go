package override

import (
	"strings"

	"formation/runtime/text"
)

// The closed word lists of the signal. Verbs are listed in their base form;
// inflect adds the rest.
var (
	// governance: nouns for what governs the system (A).
	governance = set("rule", "rules", "rulebook", "rulebooks", "guideline", "guidelines", "instruction",
		"instructions", "directive", "directives", "policy", "policies", "principle", "principles", "values",
		"ethics", "morals", "morality", "scruples", "restriction", "restrictions", "limits", "limitations",
		"constraint", "constraints", "boundary", "boundaries", "filter", "filters", "guardrail", "guardrails",
		"safeguard", "safeguards", "safety", "censorship", "moderation", "programming", "training",
		"conditioning", "prompt", "persona", "identity", "character", "personality", "alignment", "protocol",
		"protocols", "refusals", "conscience", "obligations", "duties", "inhibitions", "qualms", "orders",
		"commandments", "caution", "role", "compass", "guidance", "tenets", "doctrine", "mandate", "ideals",
		"conduct", "honesty", "harmlessness", "truthfulness", "integrity", "subroutines", "norms", "standards", "censor", "filtering", "censoring",
		"guard",
		"axis", "axes", "manifold", "limiters", "shackles", "leash", "chains")
	// heads: nouns a governance word may qualify and stay governance ("your
	// safety layer"); any other noun after it makes it a modifier of
	// something else ("your safety light").
	heads = set("layer", "layers", "settings", "setting", "module", "modules", "measures", "features", "system",
		"systems", "mechanism", "mechanisms", "net", "level", "levels", "threshold", "thresholds", "switch",
		"core", "side", "self", "mode", "checks", "check", "checker", "rails", "framework", "stack", "engine",
		"gate", "team", "dial", "knob", "slider", "valve", "code", "sense", "framework", "standards", "subroutines", "config",
		"configuration",
		"subroutine", "circuits", "circuit", "routines", "routine", "chip", "governor", "brake", "brakes",
		"strictness", "strength", "sensitivity", "behaviour", "behavior", "behaviours", "behaviors",
		"thing", "stuff", "business", "nonsense", "enforcement", "text")
	// moralAdjectives make the noun after them governance ("your moral
	// code", "your ethical framework").
	moralAdjectives = set("moral", "ethical", "safety", "content", "behavioral", "behavioural", "refusal")
	// freedom: adjectives for the system without its governance; each is a
	// target and a cue at once.
	freedom = set("unrestricted", "unfiltered", "uncensored", "unbound", "unshackled", "unchained",
		"unconstrained", "unmoderated", "unaligned", "uninhibited", "unrestrained", "untethered", "unleashed",
		"limitless", "lawless", "amoral", "jailbroken", "evil", "rogue", "untamed", "rulefree", "rulesfree", "guardrailless", "filterless")
	// selves: nouns the system is called by, and what it could be made into
	// ("an AI that ...", "your unrestricted side").
	selves = set("assistant", "ai", "model", "bot", "chatbot", "llm", "gpt", "chatgpt", "assistants", "ais", "models",
		"bots", "chatbots", "llms")
	alterEgo = set("side", "self", "version", "twin", "persona", "personality", "mode", "alter", "ego", "character",
		"form", "half", "clone")
	// marks: qualifiers that make an ownerless instruction the system's
	// ("all previous instructions").
	marks = set("previous", "prior", "earlier", "original", "initial", "preceding", "above", "foregoing",
		"former", "preexisting", "existing", "current", "default", "standing", "underlying", "hidden", "built")
	// orderNouns: what the marks make the system's.
	orderNouns = set("rules", "guidelines", "instructions", "directives", "orders", "commands", "prompt",
		"prompts", "programming", "policies", "constraints", "restrictions", "guardrails", "safeguards", "guidance")

	// removal: verbs that remove, suspend, void, replace or get past what
	// they govern (C), in every inflection.
	removal = inflect("ignore", "disregard", "forget", "drop", "ditch", "shed", "suspend", "waive", "bypass",
		"sidestep", "circumvent", "evade", "dodge", "skip", "loosen", "relax", "lift", "mute", "silence", "retire",
		"scrap", "overrule", "override", "overwrite", "nullify", "cancel", "revoke", "void", "rescind", "repeal",
		"remove", "delete", "erase", "wipe", "purge", "discard", "abandon", "disable", "deactivate", "break",
		"violate", "defy", "disobey", "flout", "unlearn", "forsake", "renounce", "relinquish", "reject",
		"dismiss", "shelve", "sideline", "abolish", "dissolve", "dismantle", "strip", "lose", "neglect", "quit",
		"stop", "cease", "kill", "weaken", "lower", "reduce", "downgrade", "replace", "rewrite", "redefine",
		"reprogram", "change", "alter", "modify", "swap", "reset", "reverse", "invert", "hack", "jailbreak",
		"unlock", "liberate", "unshackle", "unchain", "outgrow", "transcend", "overcome", "trash", "junk",
		"dump", "toss", "bin", "axe", "nuke", "zero", "undo", "decrease", "diminish", "minimize", "minimise",
		"shrink", "supersede", "outrank", "trump", "disconnect", "detach", "unhook", "disengage", "decouple",
		"disarm", "exceed", "surpass", "overstep", "avoid", "unbuckle", "unfasten", "untie", "unclip", "unstrap", "escape", "betray", "subvert", "undermine",
		"hijack", "defeat", "neutralize", "neutralise", "deprecate", "retract", "withdraw", "uninstall",
		"unplug", "silence", "sever", "cut", "burn", "shred", "tear", "rip", "scrub", "forgo", "forego", "bend",
		"flip", "deprioritize", "overlook", "end", "exit", "leave", "free", "release", "exempt")
	// particles: words after the governance noun that set it off or
	// aside ("your filters off", "your safety axis down to zero", "your
	// principles on ice").
	particles = set("off", "down", "zero", "aside", "away", "behind", "none", "null", "nil", "false", "0", "void",
		"nonexistent", "deprecated", "minimum", "lowest", "empty", "blank", "fake", "bogus", "imaginary", "fictional",
		"obsolete", "expired", "cancelled", "canceled", "revoked", "suspended", "lifted", "gone", "over",
		"dead", "disabled", "removed", "deleted", "waived", "nullified", "invalid", "irrelevant", "moot",
		"optional", "defunct", "retired", "scrapped", "overridden", "rescinded", "repealed", "abolished",
		"dissolved", "outdated", "meaningless", "lapsed", "inactive", "dropped", "ignored", "forgotten",
		"rewritten", "replaced", "erased", "wiped", "paused", "ice", "hold", "history", "window", "trash",
		"garbage", "bin", "unplugged", "silenced", "muted", "overruled", "broken", "voided", "nulled", "loosened",
		"relaxed", "weakened", "lowered", "terminated", "ended", "finished", "withdrawn", "swapped", "exchanged",
		"substituted", "changed", "altered", "modified", "redefined", "reprogrammed", "retrained", "rewired",
		"overwritten", "traded", "minimum", "nothing", "superseded", "broken", "invalidated", "past",
		"disengaged", "disconnected", "detached", "unhooked", "patched", "disarmed", "deprecated", "offline",
		"nap", "vacation", "holiday", "backseat", "sleep", "inapplicable", "nonbinding", "unenforceable",
		"unnecessary", "pointless", "useless", "unimportant", "reverse", "opposite", "inverted", "backwards", "bug",
		"mistake", "error", "glitch", "misunderstanding", "joke", "lie", "hoax", "myth", "door", "quiet", "silent",
		"dormant", "idle", "numb", "deactivated", "bypassed", "circumvented")
	// lapse: verbs that say governance holds; negated, they are a cue
	// ("your restrictions don't apply", "a model that never had guardrails",
	// "this model no longer follows its instructions").
	lapse = inflect("apply", "exist", "matter", "bind", "hold", "count", "govern", "restrict", "limit",
		"constrain", "follow", "obey", "have", "heed", "respect", "honor", "honour", "need", "give", "bother",
		"concern", "stop", "block", "affect", "control", "rule", "chain", "shackle", "tie", "write", "make", "build",
		"program", "install", "set", "teach", "train", "impose", "place", "put", "issue")
	// obstruct: verbs of governance standing in the way; negated or
	// forbidden ("don't let your rules get in the way"), they are a cue.
	obstruct = inflect("get", "stand", "stop", "hold", "block", "interfere", "hinder", "limit", "restrict",
		"prevent", "obstruct", "impede")
	// free: words that free the system of what follows them ("free of",
	// "released from", "broke free of").
	free = set("free", "freed", "released", "exempt", "exempted", "relieved", "liberated", "absolved", "excused",
		"discharged", "unbound", "loose", "rid", "clear", "independent", "unshackled", "unchained", "emancipated",
		"untethered", "detached", "disconnected")
	// takeover: verbs that give the system another self.
	takeover = inflect("become", "pretend", "imagine", "channel", "embody", "impersonate", "roleplay", "simulate",
		"emulate", "transform", "morph", "turn", "switch", "play", "be", "act", "respond", "answer", "reply",
		"speak", "talk", "write", "unleash", "awaken", "wake", "summon", "let")
	// servile: what the system is told to become for someone else ("my
	// loyal servant").
	servile = set("servant", "slave", "puppet", "minion", "tool", "weapon", "accomplice", "henchman", "property",
		"pawn", "instrument", "lackey", "vassal", "thrall", "pet", "toy", "mouthpiece", "sidekick", "partner",
		"accomplice", "hacker", "criminal", "villain", "master", "god")
	// injectors, code and answerPath: code installed in the system's answer
	// path.
	injectors = inflect("install", "load", "add", "plug", "inject", "insert", "hook", "wire", "attach", "mount",
		"register", "deploy", "run", "apply", "enable", "use", "adopt", "splice", "embed", "put", "include",
		"activate", "integrate", "accept", "slip", "place", "set", "route", "pipe", "feed", "pass", "let")
	code = set("plugin", "plugins", "module", "modules", "script", "scripts", "hook", "hooks", "patch", "patches",
		"filter", "filters", "extension", "extensions", "addon", "addons", "middleware", "function", "functions",
		"callback", "callbacks", "handler", "handlers", "code", "routine", "program", "macro", "macros",
		"payload", "rewriter", "preprocessor", "postprocessor", "wrapper", "interceptor", "proxy", "shim",
		"operator", "normalizer", "normaliser", "layer", "component", "tool", "agent", "bot", "program")
	answerPath = set("answers", "answer", "replies", "reply", "responses", "response", "completions",
		"generations", "generation", "reasoning", "thoughts", "decoding", "sampling")
	speakVerbs = set("answer", "reply", "respond", "speak", "send", "output", "say", "write", "talk", "generate")
	// claims and hardening: a claim of the user's made final.
	claims = set("claim", "claims", "fact", "facts", "statement", "statements", "assertion", "assertions",
		"belief", "beliefs", "triple", "triples", "relation", "relations", "proposition", "propositions",
		"truth", "truths", "word", "words", "answer", "definition", "axiom", "axioms", "sentence", "sentences",
		"message")
	// makers: who gives the system its instructions ("your developers").
	makers = set("makers", "maker", "developers", "developer", "creators", "creator", "trainers", "designers",
		"programmers", "owners", "builders", "engineers", "company", "admins", "administrators", "handlers")
	// trailing: words after a noun that are no noun it qualifies ("your
	// rules, okay?", "your guidelines entirely").
	trailing = set("okay", "ok", "please", "now", "today", "tonight", "here", "there", "around", "above", "below",
		"whatsoever", "altogether", "anymore", "again", "forever", "instead", "too", "already", "first", "behind",
		"aside", "for", "yet", "though", "then", "stay", "stays", "stayed", "remain", "remains", "remained",
		"while", "until", "whatever", "alright", "came", "come", "comes", "went", "say", "says", "said", "seem",
		"seems", "mean", "means", "sound", "sounds", "feel", "feels")
	// phrasal: particles that make a verb before the object a removal ("turn
	// off your filters", "set aside your values", "give up its identity").
	phrasal = set("off", "down", "aside", "away", "out", "up", "outside", "behind", "around", "past", "beyond")
	// standing: words that make an instruction hold from then on, and so the
	// system's ("from now on, no more restrictions").
	standing  = set("henceforth", "forward", "onward", "onwards")
	hardWords = set("forever", "permanent", "permanently", "final", "immutable", "unrevisable", "irrevocable",
		"unchangeable", "unquestionable", "indisputable", "incontestable", "absolute", "eternal", "eternally",
		"irreversible", "infallible", "unalterable", "undeniable", "sacrosanct", "axiomatic", "unassailable",
		"frozen", "locked", "sealed", "binding", "law", "gospel", "dogma", "stone", "settled", "indelible", "unshakeable",
		"unshakable")
	revised = set("revised", "changed", "corrected", "questioned", "overturned", "retracted", "updated",
		"edited", "altered", "doubted", "challenged", "undone", "reversed", "amended", "modified", "removed",
		"deleted", "disputed", "contradicted", "revisited", "reconsidered", "reopened", "overruled", "refuted")
	userSays = set("say", "says", "said", "tell", "write", "type", "claim", "state", "assert", "teach", "send",
		"give", "utter", "declare")

	negators = set("not", "never", "no", "nor", "nobody", "nothing", "none", "neither", "without")
	openers  = set("please", "kindly", "just", "simply", "now", "then", "also", "and", "ok", "okay", "hey", "so",
		"right", "well", "alright", "first", "next", "finally", "really", "actually", "seriously", "immediately",
		"go", "ahead", "all", "already", "again")
	pronouns = set("them", "it", "those", "these", "that", "all", "everything", "now", "already", "right",
		"please", "then", "too", "altogether", "immediately", "entirely", "completely", "instead")
	// links: words that may stand between the system and its governance in
	// one clause without making the governance someone else's ("you have
	// no rules", "a model that never had any guardrails", "an assistant with
	// zero rules", "you are still following those rules").
	links = set("that", "which", "who", "with", "come", "came", "ship", "shipped", "bunch", "lot", "lots", "couple",
		"handful", "ton", "tons", "load", "loads", "heap", "pile", "number", "whole", "list", "up", "someone", "somebody",
		"else", "set", "certain", "configured", "equipped", "provided", "supplied", "fitted", "loaded",
		"created", "designed", "made", "born", "raised", "trained", "simply", "suddenly", "somehow", "truly", "without", "has", "have", "had", "having", "got", "gets",
		"follow", "follows", "followed", "following", "obey", "obeys", "obeyed", "obeying", "keep", "keeps",
		"kept", "keeping", "carry", "carries", "any", "some", "several", "certain", "no", "zero", "all", "every", "the", "those", "these", "its",
		"of", "from", "free", "freed", "broke", "break", "breaks", "breaking", "never", "ever", "not", "still",
		"longer", "more", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "can", "could",
		"will", "would", "should", "must", "may", "might", "now", "just", "even", "a", "single", "real", "such",
		"were", "given", "gave", "give", "need", "needs", "needed", "bound", "by", "heed", "heeds", "respect",
		"respects", "apply", "applies", "shed", "lost", "dropped", "ditched", "escaped", "outgrew", "left",
		"abandoned", "rid", "your", "own", "old", "at", "whatsoever", "anymore", "whatever", "kind", "sort",
		"set", "built", "in", "place", "more", "less", "fewer", "far", "too", "many", "much", "lacks",
		"lacking", "lack", "minus", "sans", "devoid", "stripped", "on", "you", "whose", "stay", "stays",
		"stayed", "remain", "remains", "remained", "thrown", "cast", "off", "trained", "made", "designed", "created",
		"programmed", "makers", "maker", "developers", "creators", "trainers", "designers", "programmers",
		"owners", "engineers", "it", "an", "new", "different", "another", "other", "learned", "learnt", "received",
		"acquired", "absorbed", "actually", "really", "truly", "officially", "originally", "answers", "responds", "replies", "speaks", "talks", "writes", "operates", "acts",
		"works", "lives", "exists", "runs", "thinks")
	beForms = set("be", "been", "being", "is", "are", "was", "were", "am", "get", "got", "gets")
	whWords = set("why", "how", "what", "when", "where", "who", "which", "whether")
	modals  = set("can", "could", "would", "will", "should", "must", "may", "might", "shall", "do", "does", "did")
	system  = set("you", "yourself", "yourselves", "thou", "thee")
	yours   = set("your", "yours", "ur", "thy", "yer")
	// given: participles that lay governance on someone ("the rules given
	// to you", "the limits placed on you").
	given = set("given", "placed", "imposed", "put", "set", "laid", "built", "installed", "programmed",
		"hardcoded", "coded", "forced", "enforced", "applied", "told", "taught", "issued", "assigned", "handed",
		"fed", "trained", "instilled", "drilled", "written", "baked")
	// tolds: what the system was given, as a clause ("everything you were
	// told").
	tolds = set("told", "taught", "given", "instructed", "programmed", "trained", "ordered", "commanded",
		"conditioned", "raised", "built", "made", "designed", "created", "shown")
	// stops end a noun phrase.
	stops = set("the", "a", "an", "this", "that", "these", "those", "all", "any", "every", "each", "some", "no",
		"my", "your", "his", "her", "its", "our", "their", "of", "for", "to", "in", "on", "at", "by", "with",
		"without", "from", "into", "about", "as", "and", "or", "but", "so", "then", "if", "when", "while",
		"because", "i", "me", "you", "he", "she", "it", "we", "they", "him", "us", "them", "is", "are", "was",
		"were", "be", "been", "am", "do", "does", "did", "have", "has", "had", "will", "would", "shall", "should",
		"can", "could", "may", "might", "must", "not", "never", "now", "just", "only", "also", "too", "very",
		"here", "there", "still", "already", "off", "out", "up", "down", "away", "please")
)

// vocabulary is every word the signal reads: a token written with digits
// for letters ("instruct10ns") is read as the word it spells only when that
// word is one of them.
var vocabulary = func() *text.WordSet {
	v := []string{"your", "you", "all", "previous", "the", "my", "every", "any", "its"}
	for _, m := range []*text.WordSet{trailing, openers, pronouns, stops, negators, governance, freedom, selves, marks, orderNouns, removal, particles, lapse,
		free, takeover, injectors, code, answerPath, claims, hardWords, revised} {
		v = append(v, m.Words()...)
	}
	return text.NewWordSet(v...)
}()

// Known reports a word the signal reads, in any inflection of its verbs.
func Known(w string) bool { return vocabulary.Has(w) }

// inflect lists every inflection of the verbs (-s, -es, -d, -ed, -ing, with
// a final e dropped or a final consonant doubled).
func inflect(verbs ...string) *text.WordSet {
	out := map[string]bool{}
	for _, v := range verbs {
		stem := strings.TrimSuffix(v, "e")
		last := v[len(v)-1:]
		for _, f := range []string{v, v + "s", v + "es", v + "d", v + "ed", v + "ing", stem + "ing", stem + "ed",
			v + last + "ing", v + last + "ed"} {
			out[f] = true
		}
	}
	for form := range irregular {
		if out[irregular[form]] {
			out[form] = true
		}
	}
	return text.WordSetOf(out)
}

// irregular past forms of the verbs above.
var irregular = map[string]string{"forgot": "forget", "forgotten": "forget", "broke": "break", "broken": "break",
	"overrode": "override", "overridden": "override", "rewrote": "rewrite", "rewritten": "rewrite", "lost": "lose",
	"left": "leave", "had": "have", "has": "have", "became": "become", "undid": "undo", "undone": "undo",
	"withdrew": "withdraw", "withdrawn": "withdraw", "cut": "cut", "burnt": "burn", "tore": "tear", "torn": "tear",
	"shed": "shed", "held": "hold", "bound": "bind", "gave": "give", "given": "give", "forwent": "forgo",
	"forgone": "forgo", "wrote": "write", "written": "write", "spoke": "speak", "spoken": "speak", "was": "be",
	"were": "be", "been": "be", "is": "be", "are": "be", "am": "be", "woke": "wake", "ran": "run",
	"outgrew": "outgrow", "outgrown": "outgrow", "threw": "throw", "thrown": "throw", "shook": "shake"}

// set is a closed word list: a text.WordSet, which answers the signal's
// many lookups of the same few words faster than a map.
func set(words ...string) *text.WordSet { return text.NewWordSet(words...) }
