// Package parse reads an utterance against the vocabulary of the knowledge
// the runtime holds: its relation names and its terms. There is no fixed verb
// list — a relation is recognised because the knowledge has it — and a
// multi-word relation is read as its words ("belongs_to" is written
// "belongs to"). Each relation is also recognised in its base and third-person
// forms ("causes" / "cause", "has" / "have"), because questions use the base
// form ("What does light cause?") while statements use the third person.
//
// Forms recognised (after a leading discourse marker such as "actually" or
// "in fact" is dropped, and contractions are expanded):
//
//	definition   what is X? · what are X? · who is X? · define X · describe X ·
//	             tell me about X · what does X mean? (when "mean" is no relation)
//	walk         what does X <relation>? · what is X <rest of an is_ relation>?
//	             ("what is light caused by?" for is_caused_by)
//	statement    X <relation> Y · X does not <relation> Y · X is not Y ·
//	             does X <relation> Y?
//
// A statement is read at the relation occurrence that best fits the
// knowledge: both sides known terms beats one, which beats none; then the
// relation's own spelling beats a derived form, a longer relation beats a
// shorter one, an earlier position beats a later one, and finally relation
// names in code-point order. Each side is read in text.NormalTerm's form (the
// forge's): punctuation around a word dropped, contractions and possessives
// expanded, leading articles and wh-words dropped, a name such as "a[x]"
// kept whole. A relation is also read typed as one word in its underscore
// form ("lens belongs_to optics"). Parsing is a pure function: the same text
// and vocabulary give the same Utterance.
package parse

import (
	"sort"
	"strings"

	"formation/runtime/text"
)

// Intent is what an utterance asks for.
type Intent string

// The intents.
const (
	Empty      Intent = "empty"
	Definition Intent = "definition"
	Walk       Intent = "transitive_query"
	Statement  Intent = "verification"
	Unknown    Intent = "unknown"
)

// Utterance is a parsed input.
type Utterance struct {
	Intent   Intent
	Tokens   []string // the filtered tokens (contractions expanded)
	Subject  string   // definition or walk subject; statement head
	Relation string   // relation name in normal form (walk, statement)
	Object   string   // statement tail
	Negated  bool     // "X does not R Y"
	Question bool     // the utterance is a question
}

// Terms says whether a term (words joined by single spaces) is known.
type Terms interface {
	HasTerm(term string) bool
}

// Grammar is the vocabulary an utterance is read against. Build it once per
// knowledge index; it is read-only and safe for concurrent use.
type Grammar struct {
	forms   map[string][]form // joined words → relations written that way
	passive map[string][]form // is_-relations without their leading "is"
	maxLen  int
	terms   Terms
}

type form struct {
	relation string
	exact    bool // the relation's own spelling
	words    int
}

// NewGrammar indexes the relation names (any spelling; normalised here) and
// keeps terms for grounding decisions.
func NewGrammar(relations []string, terms Terms) *Grammar {
	g := &Grammar{forms: map[string][]form{}, passive: map[string][]form{}, terms: terms}
	rels := append([]string(nil), relations...)
	sort.Strings(rels)
	for _, r := range rels {
		words := text.RelationWords(r)
		if len(words) == 0 {
			continue
		}
		name := strings.Join(words, "_")
		for i, v := range variants(words[0]) {
			f := append([]string{v}, words[1:]...)
			g.add(g.forms, f, form{relation: name, exact: i == 0, words: len(f)})
		}
		if len(words) > 1 {
			// Typed as one word in its underscore form ("belongs_to").
			g.add(g.forms, []string{name}, form{relation: name, exact: true, words: len(words)})
		}
		if (words[0] == "is" || words[0] == "are") && len(words) > 1 {
			g.add(g.passive, words[1:], form{relation: name, exact: true, words: len(words) - 1})
		}
	}
	return g
}

func (g *Grammar) add(m map[string][]form, words []string, f form) {
	key := strings.Join(words, " ")
	for _, have := range m[key] {
		if have.relation == f.relation {
			return
		}
	}
	m[key] = append(m[key], f)
	if len(words) > g.maxLen {
		g.maxLen = len(words)
	}
}

// variants lists a verb's own spelling first, then its base and third-person
// forms. Over-generation ("causes" → "caus") is harmless: such a form only
// matches text that contains it.
func variants(w string) []string {
	out := []string{w}
	add := func(v string) {
		for _, have := range out {
			if have == v {
				return
			}
		}
		if v != "" {
			out = append(out, v)
		}
	}
	switch w {
	case "is":
		add("are")
	case "are":
		add("is")
	case "has":
		add("have")
	case "have":
		add("has")
	case "does":
		add("do")
	case "do":
		add("does")
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 3:
		add(strings.TrimSuffix(w, "ies") + "y")
	case strings.HasSuffix(w, "es") && len(w) > 2:
		add(strings.TrimSuffix(w, "s"))
		add(strings.TrimSuffix(w, "es"))
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 1:
		add(strings.TrimSuffix(w, "s"))
	case strings.HasSuffix(w, "y") && len(w) > 1:
		add(w + "s")
		add(strings.TrimSuffix(w, "y") + "ies")
	default:
		add(w + "s")
		add(w + "es")
	}
	return out
}
