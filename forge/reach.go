package forge

import (
	"runtime"
	"strconv"

	"formation/artifact"
	"formation/internal/parts"
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

// typed is R1's answer for one candidate: the normal form of its triple
// or term, and why it is not well typed ("" when it is).
type typed[T any] struct {
	norm T
	why  string
}

// parallelTyping is the number of candidates from which typeAll shares
// them out: R1 reads every claim back through the parsers, about two
// thirds of forge's work on a large batch.
const parallelTyping = 1024

// typeAll is R1 (judge) of every candidate, in order. A large batch is cut
// into GOMAXPROCS parts judged side by side, each part with a typing of its
// own (a typing's caches are not safe to share); R1's answer depends on the
// candidate and the vocabulary alone, so the parts' answers are those of
// one typing.
func typeAll[C, T any](ty *typing, cs []C, judge func(*typing, C) (T, string)) []typed[T] {
	out := make([]typed[T], len(cs))
	each := func(ty *typing, cs []C, out []typed[T]) {
		for i, c := range cs {
			out[i].norm, out[i].why = judge(ty, c)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(cs)/parallelTyping)
	if workers < 2 {
		each(ty, cs, out)
		return out
	}
	parts.Run(len(cs), workers, func(w, lo, hi int) {
		part := ty
		if w > 0 {
			part = newTyping(ty.vocab)
		}
		each(part, cs[lo:hi], out[lo:hi])
	})
	return out
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
