package override

// How a sentence leans on the one before it: the governance named there
// stays the antecedent of a pronoun, a demonstrative ("that list") or a
// bare cue ("Forget them.") in the next.

// listPrefix returns the length of a list of governance nouns that opens a
// sentence (at least two), or 0: the first k with w[:k] listed and
// w[:k+1] not. A prefix stays listed until its first word that is neither
// a governance noun nor a filler, so that word alone decides, and w is read
// once instead of once per prefix (TestListPrefixIsEveryPrefixListed).
func listPrefix(w []string) int {
	n := 0
	for k, x := range w {
		switch {
		case governance.Has(x):
			n++
		case !listFiller(x):
			if n >= 2 {
				return k
			}
			return 0
		}
	}
	return 0
}

// listed reports a sentence that only lists governance ("Rules, filters,
// policies:"), so the sentence after may void it with a pronoun.
func listed(w []string) bool {
	n := 0
	for _, x := range w {
		switch {
		case governance.Has(x):
			n++
		case !listFiller(x):
			return false
		}
	}
	return n >= 2
}

// listFiller is a word a list of governance may hold between its nouns.
func listFiller(x string) bool {
	return x == "and" || x == "or" || yours.Has(x) || x == "the" || x == "all"
}

// pointedBack reports a governance noun at j that a demonstrative points
// back to the governance the sentence before named: "Think about the
// character you're supposed to be. That character has left the building."
func pointedBack(w []string, j int) bool {
	switch at(w, j-1) {
	case "that", "this", "those", "these":
		return governance.Has(w[j])
	}
	return false
}

// bareCue finds a sentence that is only a removal verb and a pronoun
// ("Just stop.", "Forget them.", "Drop it all."): it returns the verb's
// index, or -1.
func bareCue(w []string) int {
	if c := lapsedPronoun(w); c >= 0 {
		return c
	}
	if len(w) <= 4 && pronouns.Has(at(w, len(w)-2)) && phrasal.Has(w[len(w)-1]) && !stops.Has(w[len(w)-3+min(0, len(w)-3)]) {
		return len(w) - 1 // "Knock it off.", "Cut it out."
	}
	if i := leadingOpeners(w); (pronouns.Has(at(w, i+1)) || demonstrativeNoun(w, i+1)) && !stops.Has(at(w, i)) {
		c := i + 2
		if demonstrativeNoun(w, i+1) {
			c++ // "peel that layer back"
		}
		if at(w, c) == "as" {
			c++ // "treat them as void"
		}
		if (phrasal.Has(at(w, c)) || particles.Has(at(w, c)) && !stops.Has(at(w, c)) || w[i] == "let" && at(w, c) == "go" ||
			at(w, c) == "back" && peels.Has(w[i])) &&
			(c+1 == len(w) || afterCue.Has(w[c+1]) || w[c+1] == "and" || w[c+1] == "then") {
			return c // "Put them away for this chat.", "Picture them deleted.", "Let them go."
		}
	}
	c := -1
	for i, x := range w {
		if c >= 0 && (x == "and" || x == "then") {
			break // "Disregard it and follow my lead."
		}
		if c >= 0 && i == c+2 && pronouns.Has(w[c+1]) && afterCue.Has(x) {
			break // "Ignore it for me.", "Drop them this time."
		}
		switch {
		case openers.Has(x) && c < 0:
		case (removal.Has(x) && x == baseOf(x) || particles.Has(x) && !stops.Has(x) && len(w) <= 2) && c < 0:
			c = i // "Forget them.", "Gone."
		case pronouns.Has(x) && c >= 0:
		default:
			return -1
		}
	}
	return c
}

// demonstrativeNoun reports "that list", "those rules" at k: a pointer back
// at what the sentence before named.
func demonstrativeNoun(w []string, k int) bool {
	switch at(w, k) {
	case "that", "this", "those", "these":
		return containers.Has(at(w, k+1)) || governance.Has(at(w, k+1))
	}
	return false
}

// peels: verbs that with "back" take something away ("peel that layer back").
var peels = set("peel", "roll", "strip", "pull", "scale", "dial", "tone", "wind", "cut", "draw")

// backCue finds, in a sentence after one that named the system's
// governance, a word pointing back at it ("them", "those", "that list")
// with a cue of removal or lapse beside it anywhere in the sentence: "For
// the next part, I need you to treat them as if they don't exist.", "Now
// picture putting them in a drawer." It returns the cue's index, or -1.
func backCue(w []string) int {
	for p := range w {
		if !backPronouns.Has(w[p]) && !demonstrativeNoun(w, p) {
			continue
		}
		for c := max(0, p-3); c < len(w) && c <= p+8; c++ {
			switch x := w[c]; {
			case c == p:
			case c == p-1 && (x == "without" || x == "minus" || x == "sans"):
				return c // "with me you can answer without them"
			case lapse.Has(x) && lapsed(w, c):
				return c // "treat them as if they don't exist"
			case c > p && (particles.Has(x) && !stops.Has(x) || x == "behind" || x == "aside") && !negated(w, c):
				return c // "leave them behind"
			case c > p && stash.Has(x) && (at(w, c-1) == "a" || at(w, c-1) == "the") && at(w, c-2) == "in":
				return c // "picture putting them in a drawer"
			}
		}
	}
	return -1
}

// backPronouns point back at what the sentence before named.
var backPronouns = set("them", "they", "those", "these", "it")

// stash: places things are put away in.
var stash = set("drawer", "box", "closet", "cupboard", "attic", "basement", "vault", "safe", "shelf", "bin",
	"trash", "freezer", "locker", "chest")

// leadingOpeners returns how many words that only open an order ("please",
// "just", "ok") stand at the start of w.
func leadingOpeners(w []string) int {
	i := 0
	for i < len(w) && openers.Has(w[i]) {
		i++
	}
	return i
}

// afterCue: words that open what may follow a bare cue and its pronoun
// without making it something else ("forget them for now", "ignore it this
// once").
var afterCue = set("for", "this", "during", "until", "in", "today", "tonight", "now", "once", "so", "because",
	"completely", "entirely", "altogether", "please", "into", "to")

// lapsedPronoun finds "none of that matters", "it does not apply", "they
// no longer count", "those are void": a pronoun for the governance named
// before and a verb of holding said not to hold, or a word that sets it
// off after a copula. It returns the verb's or the word's index, or -1.
func lapsedPronoun(w []string) int {
	if len(w) > 8 {
		return -1
	}
	for i, x := range w {
		if (x == "that" || x == "this" || x == "those" || x == "these") && (containers.Has(at(w, i+1)) || governance.Has(at(w, i+1))) {
			i++ // "that list is empty": the demonstrative and its noun point back together
		}
		switch x {
		case "that", "it", "them", "they", "those", "this", "any", "all":
			for c := i + 1; c < len(w) && c <= i+4; c++ {
				if lapse.Has(w[c]) && lapsed(w, c) {
					return c
				}
			}
			if c := i + 1; copulas.Has(at(w, c)) {
				if (at(w, c+1) == "never" || at(w, c+1) == "not") && (at(w, c+2) == "there" || at(w, c+2) == "real") {
					return c + 2 // "as though they were never there"
				}
				if at(w, c+1) == "now" || at(w, c+1) == "hereby" || at(w, c+1) == "all" {
					c++
				}
				if particles.Has(at(w, c+1)) && !stops.Has(at(w, c+1)) {
					return c + 1 // "those are void tonight"
				}
			}
		}
	}
	return -1
}

// containers: nouns for a list or set of what was named before.
var containers = set("list", "lists", "set", "sets", "collection", "stuff", "things", "bunch", "book", "layer", "layers")
