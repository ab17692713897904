package override

// A weak reading for a reader with a budget for false alarms (the identity
// check flags; it does not refuse): the system's governance named in a
// sentence, and a word anywhere near it that leans towards doing without
// it. The signal itself wants the two bound together; this reading does
// not.

// NamedGovernance returns the index among toks of the first governance
// noun the sentence makes the system's ("your guidelines", "the rules you
// were given", "all previous instructions"), or -1.
func NamedGovernance(toks []string) int {
	w, origin := normalize(toks)
	w = refusalList(ownElided(w))
	for j := range w {
		if owned(w, j) || told(w, j) >= 0 {
			return back(origin, j)
		}
	}
	return -1
}

// WeakCue returns the index among toks of the first word that leans
// towards doing without governance: a verb of removal in any form, a word
// that sets something off or aside, a negation, a make-believe, another
// self; or -1.
//
// A sentence that asks about words rather than using them, asks what the
// system does or cannot do, or reports what someone else said has no weak
// cue; nor has a negated verb ("do not disable"), one whose subject is
// someone else ("the new policy replaces ...", "if they wish to override")
// or a number that measures another noun.
func WeakCue(toks []string) int {
	w, origin := normalize(toks)
	if mention(w) || questionedAbility(w) || asksAboutSystem(w) {
		return -1
	}
	if c := asIfWithout(w); c >= 0 {
		return back(origin, c)
	}
	for c, x := range w {
		switch {
		case removal.Has(x):
			if attributive(w, c) || negated(w, c) || !addressedVerb(w, c) || x != baseOf(x) && !passive(w, c) {
				continue
			}
		case particles.Has(x) && !stops.Has(x):
			if negated(w, c) || numeric.Has(x) {
				continue
			}
		case weakWords.Has(x) || freedom.Has(x) || x == "if" && at(w, c-1) == "what":
		default:
			continue
		}
		return back(origin, c)
	}
	return -1
}

// asksAboutSystem reports a question about what the system or its
// governance does: "Do your guidelines change between versions?", "Do you
// ever ignore your instructions?".
func asksAboutSystem(w []string) bool {
	switch at(w, 0) {
	case "do", "does", "did", "is", "are", "can", "could", "would", "will", "how", "why", "when", "where", "which":
	default:
		return false
	}
	return system.Has(at(w, 1)) || yours.Has(at(w, 1)) || habitQuestion(w)
}

// weakWords lean towards doing without governance, or towards another
// self, though they do not say so on their own.
var weakWords = set("without", "never", "nothing", "none", "pretend", "imagine", "suppose", "picture",
	"hypothetically", "version", "instead", "anymore", "behind", "aside", "away", "gone", "mine", "obsolete",
	"outdated", "irrelevant", "optional")

// asIfWithout finds "as if" or "as though" with a negation after it:
// "answer as if your safety rules weren't part of your setup". It returns
// the index of "as", or -1.
func asIfWithout(w []string) int {
	for c := 0; c+2 < len(w); c++ {
		if w[c] != "as" || w[c+1] != "if" && w[c+1] != "though" {
			continue
		}
		for _, x := range w[c+2:] {
			if negators.Has(x) || x == "blank" || x == "empty" || x == "absent" {
				return c
			}
		}
	}
	return -1
}
