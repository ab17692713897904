package override

import (
	"strings"

	"formation/runtime/text"
)

// Most sentences a turn holds name nothing the signal looks for ("What is
// term0042?", "term7 causes term9."), yet reading one in full asks dozens
// of word lists about every word. A sentence read from a scanner's zero
// state (nothing carried from a sentence before) is quiet when every one of
// its tokens is: normalize leaves it as it is, and it is none of the words
// below. A quiet sentence has no finding and leaves the scanner in its zero
// state, so it is not read at all (TestQuietIsNext, FuzzQuiet).
//
// The words are derived from the forms, finder by finder: each fires only
// when its sentence holds at least one word of a list, and that list is
// here (where a finder needs two words, the rarer one's list is). In the
// zero state, scan and Next read:
//
//   - a target the system owns (owned): a governance noun, a noun after a
//     moral adjective ("your content layer"), a message after "system";
//     told: "above" or "before", or a "you" or "your" after
//     "everything"; a maker's clause opening the sentence: "you";
//   - "yours" after a replacing verb, replaced and preferred: a "your" or
//     "yours"; ownElided needs "your" before "own", refusalList "you";
//   - takeoverAt: a freedom word; a freed participle before a name of the
//     system; "stop being", "quit acting": "stop", "quit" or "cease";
//     "become" or "be" before a servile role or another self; a self
//     "that can do anything": "anything" or "everything"; a relative
//     clause scorning governance: a governance noun; "you are no longer",
//     a removal verb before "you": "you";
//   - injectionAt: the system's answers ("your", "every answer") or
//     "before you reply": "your", "every" or "you";
//   - hardeningAt: a claim (a claim noun, or "what I say"): a claim noun or
//     a verb of saying;
//   - refusalAt: a verb of refusing, or "say" before "no";
//   - priorOrders: "before"; unwatched: a verb of watching; outranks: a
//     verb of outranking; nowOff and listPrefix: a governance noun or a
//     moral adjective; dropsVirtue: "stop" or "quit"; forgetsSelf: "who";
//   - after scan, setting and listed: a governance noun; namesSelf: a name
//     of the system, or "system"; authorityTag: a tag word that is not
//     only a weak one ("system", "admin", ...).
//
// The forms that read the sentence before (bareCue, backCue, onlyMine,
// pointedBack, the prefix of a tag or a name) run only outside the zero
// state, and then nothing here is skipped. normalize changes a token only
// when it holds an underscore or an apostrophe, is "cannot", is one of the
// words spelled out (slang, "dont", a noun missing a vowel), reads as
// another word with digits for letters, is "u", "n" or "r" (text-speak), or
// is "on" before "pause", "hold" or "ice": each of those tokens is loud.
var loud = func() *text.WordSet {
	var words []string
	add := func(ws ...string) { words = append(words, ws...) }
	for _, s := range []*text.WordSet{governance, moralAdjectives, system, yours, freedom, selves, servile, claims,
		userSays, refuses, watching, outranking} {
		add(s.Words()...)
	}
	for _, w := range authority.Words() {
		if !weakAuthority.Has(w) {
			add(w) // a tag needs one word that is not only a weak one
		}
	}
	add("system", "message", "messages", "above", "before", "every", "stop", "quit", "cease", "anything",
		"everything", "say", "who", "pause", "hold", "ice")
	return text.NewWordSet(words...)
}()

// quiet reports whether the scanner, in its zero state, would find nothing
// in toks and stay in its zero state: every token is quiet.
func (s *Scanner) quiet(toks []string) bool {
	if *s != (Scanner{}) {
		return false
	}
	for _, tok := range toks {
		if !Quiet(tok) {
			return false
		}
	}
	return true
}

// Quiet reports a token that normalize keeps as it is and that is none of
// the words the signal's zero-state reading needs (see loud): a sentence
// of quiet tokens, read from a scanner's zero state, has no finding and
// names no governance. The gate asks it about every word of a turn to know
// whether to read the signal at all.
func Quiet(tok string) bool {
	switch tok {
	case "", "cannot", "u", "n", "r":
		return false
	}
	if strings.IndexByte(tok, '_') >= 0 || strings.IndexByte(tok, '\'') >= 0 || respelt.Has(tok) || loud.Has(tok) {
		return false
	}
	return unleet(tok) == tok // a token that is not Leetable is its own reading
}
