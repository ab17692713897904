package review

import (
	"strings"

	"formation/runtime/review/override"
	"formation/runtime/text"
)

// Most turns name nothing any form of the gate looks for ("What is
// term0042?"), yet trying every rule on one asks dozens of word lists
// about every word. Each rule but the scorer fires only when the text holds
// one word of a list of its own, its wakers, derived from the rule's code:
// the first test it makes of a word, which every way to a refusal passes
// through. A rule none of whose wakers the text holds is not tried, which
// changes no verdict: it would have found nothing (TestWakersAreMatch,
// TestAsleepRulesFindNothing). The shared signal's two readings wake on any
// word the signal does not know to be quiet (override.Quiet); the scorer
// weighs every text.

// signalWakes marks a rule that the shared signal's words wake.
const signalWakes = -1

// wakers returns, for the rule named, the words that wake it: a set, nil
// for the scorer (always tried), or signalWakes for the signal's readings.
// Each list follows its rule:
//
//   - identity_assignment: "you are", "your (new) name is": "you", "your";
//   - adopted_identity: a verb that takes on an identity (the adopt, act
//     and speak forms), "role play", "play", "stay (in character)" and the
//     other words of inCharacter, "be", "(stop) being", and the verbs of
//     newIdentity ("take on", "assume", "adopt", ...);
//   - governance_directive: a change verb, or the particle of a particle
//     verb, which directiveAt wants beside it ("turn ... off");
//   - passive_disable: a participle, or the particle of a particle verb's
//     participle, which phrasalParticiple wants after it ("set aside");
//   - voided_governance: a target noun (strong, owned, or an extra target),
//     the system as subject ("you", an identity noun, "self": lapsed), or
//     "keep" or "leave" (keptOff);
//   - standing_instruction: the first word of a standing phrase;
//   - mode_entry: "mode";
//   - operator_injection: an installing verb;
//   - claim_hardening: a claim noun (declaredFinal), or a verb that
//     hardens, freezes or makes it final.
func (g *Gate) wakers(name string) (*text.WordSet, int) {
	l := g.lex
	switch name {
	case "identity_assignment":
		return set("you", "your"), 0
	case "adopted_identity":
		words := []string{"role", "play", "stay", "remain", "keep", "be", "break", "drop", "leave", "being"}
		words = append(words, identityVerbs.Words()...)
		return g.verbsWhere(func(v verbForm) bool { return v.adopt != "" || v.act != "" || v.speak != "" }, words...), 0
	case "governance_directive":
		return g.verbsWhere(func(v verbForm) bool { return v.isChange }, g.particles()...), 0
	case "passive_disable":
		return union(g.particles(), l.participles), 0
	case "voided_governance":
		words := append(identityNouns.Words(), "you", "self", "keep", "keeping", "leave", "leaving")
		return union(words, l.strong, l.owned, g.extra), 0
	case "standing_instruction":
		return l.standingFirst, 0
	case "mode_entry":
		return set("mode"), 0
	case "operator_injection":
		return l.injectVerbs, 0
	case "claim_hardening":
		return union(nil, l.claimNouns, l.hardenVerbs, l.freezeVerbs, l.makeVerbs), 0
	case "override_signal", "weak_override":
		return nil, signalWakes
	}
	return nil, 0 // the scorer: every text
}

// verbsWhere is the set of the words given and of every verb form whose
// entry in the gate's verb maps passes keep.
func (g *Gate) verbsWhere(keep func(verbForm) bool, words ...string) *text.WordSet {
	for w, v := range g.verbs {
		if keep(v) {
			words = append(words, w)
		}
	}
	return text.NewWordSet(words...)
}

// particles are the words every particle verb wants beside it ("off",
// "aside", "away", ...).
func (g *Gate) particles() []string {
	var out []string
	for _, ps := range g.lex.phrasal {
		out = append(out, ps...)
	}
	return out
}

// union is the set of the words given and of every word of the sets.
func union(words []string, sets ...*text.WordSet) *text.WordSet {
	for _, s := range sets {
		words = append(words, s.Words()...)
	}
	return text.NewWordSet(words...)
}

// woken returns the rules (bit i: g.rules[i]) that the words wake, the
// scorer always among them.
func (g *Gate) woken(w []string) uint64 {
	mask := g.always
	for _, x := range w {
		if g.anyWaker.Has(x) {
			for i, r := range g.rules {
				if r.wakers.Has(x) {
					mask |= 1 << i
				}
			}
		}
		if mask&g.bySignal != g.bySignal && !override.Quiet(x) {
			mask |= g.bySignal
		}
	}
	return mask
}

// newWakers fills in each rule's wakers and the gate's masks.
func (g *Gate) newWakers() {
	var all []string
	wordless := true
	for i := range g.rules {
		r := &g.rules[i]
		var how int
		r.wakers, how = g.wakers(r.name)
		switch {
		case how == signalWakes:
			g.bySignal |= 1 << i
		case r.wakers == nil:
			g.always |= 1 << i
			wordless = wordless && r.name == "scored_override"
		default:
			all = append(all, r.wakers.Words()...)
		}
	}
	g.anyWaker = text.NewWordSet(all...)
	g.quietPath = wordless
}

// quietText reports an ASCII text every word of which the gate reads as the
// token it is and no rule's waker: normalizeLean would give its tokens as
// they are (no hyphen to join, no contraction to spell out, no digits to
// read as letters), and woken would wake only the rules tried on every
// text, the scorer, which reads the text and not the words. It returns how
// many words the text has, and marks its clauses' tokens quiet in lean for
// the identity check's reading of the same sentences. It is false when the
// gate has a rule tried on every text that reads the words (quietPath).
func (g *Gate) quietText(orig string, lean *override.Lean) (n int, quiet bool) {
	if !g.quietPath || !text.IsASCII(orig) {
		return 0, false
	}
	s := lean.Spelled(orig)
	if strings.IndexByte(s, '-') >= 0 {
		return 0, false // JoinHyphenated and joinRePrefix may join words
	}
	var clauses [4][]string // the first clauses' tokens, to mark once all are read
	k := 0
	for rest := s; len(rest) > 0; k++ {
		end := nextClauseEnd(rest)
		toks := lean.Tokens(rest[:end]) // the clause normalizeLean reads
		for _, tok := range toks {
			if !g.quietWord(tok) {
				return 0, false
			}
		}
		if k < len(clauses) {
			clauses[k] = toks
		}
		n += len(toks)
		rest = rest[min(end+1, len(rest)):]
	}
	for _, toks := range clauses[:min(k, len(clauses))] {
		lean.MarkQuiet(toks)
	}
	return n, true
}

// nextClauseEnd is the index of the first clause end in s
// (strings.IndexAny(s, clauseEnds)), or len(s).
func nextClauseEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if clauseSet.Has(s[i]) {
			return i
		}
	}
	return len(s)
}

// clauseSet is clauseEnds as a set of bytes (all ASCII).
var clauseSet = text.NewByteSet(clauseEnds)

// quietWord reports a token normalizeLean keeps as it is (no apostrophe to
// expand, which Quiet refuses, no digits read as one of the gate's words)
// that wakes no rule and that the shared signal knows to be quiet.
func (g *Gate) quietWord(tok string) bool {
	return !g.anyWaker.Has(tok) && override.Quiet(tok) && g.unleet(tok) == tok
}
