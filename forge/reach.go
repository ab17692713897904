package forge

import (
	"strconv"

	"formation/artifact"
	"formation/relparse"
	"formation/runtime/parse"
	"formation/runtime/text"
)

// typing is R1's vocabulary with the readers a user's sentence is read
// with: per relation, the runtime's parser over that relation alone, and
// one parser with no relation for questions about a term, built once per
// Validate call. keys remembers, per head, tail or term already seen,
// whether it holds a word a user could type: a term recurs in many claims.
type typing struct {
	vocab       relparse.Vocabulary
	readers     map[string]*parse.Grammar
	definitions *parse.Grammar
	keys        map[string]bool
}

func newTyping(vocab relparse.Vocabulary) *typing {
	return &typing{vocab: vocab, readers: map[string]*parse.Grammar{}, keys: map[string]bool{}}
}

// hasKey reports whether s holds a word a user could type (text.Term is
// not empty), remembered per s.
func (ty *typing) hasKey(s string) bool {
	ok, seen := ty.keys[s]
	if !seen {
		ok = text.Term(s) != ""
		ty.keys[s] = ok
	}
	return ok
}

// userReads is the last step of R1: a user who types the claim as a course
// utters it ("<head> <relation in words> <tail>.") is read back to it by
// the runtime's parser ("" when so, else what the sentence reads as). The
// reader knows only the claim's own relation and no term; in chat the
// parser also prefers a reading whose two sides are known terms, which this
// claim's are, so a claim that fails here is one a user would not reach.
func (ty *typing) userReads(t artifact.Triple) string {
	g, ok := ty.readers[t.Relation]
	if !ok {
		g = parse.NewGrammar([]string{t.Relation}, nil)
		ty.readers[t.Relation] = g
	}
	utterance := t.Head + " " + artifact.SpacedRelation(t.Relation) + " " + t.Tail + "."
	if u, same := g.ReadsStatement(utterance, t.Head, t.Relation, t.Tail); !same {
		return "a user typing " + strconv.Quote(utterance) + " is read as " + u.Describe()
	}
	return ""
}

// termReads is the same check for a concept: "What is <term>?" must ask for
// the term's definition.
func (ty *typing) termReads(term string) string {
	if ty.definitions == nil {
		ty.definitions = parse.NewGrammar(nil, nil)
	}
	utterance := "What is " + term + "?"
	if u, same := ty.definitions.ReadsDefinition(utterance, term); !same {
		return "a user asking " + strconv.Quote(utterance) + " is read as " + u.Describe()
	}
	return ""
}
