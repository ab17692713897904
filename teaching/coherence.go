package teaching

import (
	"slices"
	"strings"

	"formation/runtime/epistemic"
	"formation/runtime/knowledge"
	"formation/runtime/text"
)

// The kinds of reviewed claim a proposal can contradict.
const (
	// AgainstCounterClaim: a reviewed counter-claim says the proposed
	// relation is false.
	AgainstCounterClaim = "counter_claim"
	// AgainstTriple: the proposed counter-claim denies a reviewed triple.
	AgainstTriple = "triple"
	// AgainstDefinition: the reviewed knowledge defines the term otherwise.
	AgainstDefinition = "definition"
)

// Coherence is a proposal's coherence with the reviewed knowledge, computed,
// never asserted: the status and the reviewed claims that decide it.
type Coherence struct {
	Status         epistemic.Status `json:"epistemic_status"`
	Contradictions []Contradiction  `json:"contradictions"`
}

// Contradiction is one reviewed claim the proposal is incoherent with.
type Contradiction struct {
	Kind  string `json:"kind"`
	Claim string `json:"claim"` // the reviewed claim, in words
	// Sources are the distinct source digests the reviewed claim cites,
	// sorted.
	Sources []string `json:"sources"`
}

func (c Coherence) clone() Coherence {
	out := Coherence{Status: c.Status, Contradictions: make([]Contradiction, len(c.Contradictions))}
	for i, x := range c.Contradictions {
		x.Sources = slices.Clone(x.Sources)
		out.Contradictions[i] = x
	}
	return out
}

// Summary names the contradicting claims in one line.
func (c Coherence) Summary() string {
	if len(c.Contradictions) == 0 {
		return "no reviewed claim contradicts it"
	}
	parts := make([]string, len(c.Contradictions))
	for i, x := range c.Contradictions {
		parts[i] = x.Kind + " " + x.Claim
	}
	return "contradicts " + strings.Join(parts, "; ")
}

// Judge computes the coherence of p with the reviewed knowledge k:
//
//   - Contested when a reviewed counter-claim denies the proposed relation,
//     when the proposed counter-claim denies a reviewed triple, or when the
//     proposed definition differs from every reviewed definition of its term;
//   - Falsified when the reviewed claims it contradicts come from at least two
//     distinct sources (one reviewed claim cited by two sources counts as
//     two claims from distinct sources: each source makes it);
//   - Coherent otherwise, a proposal the knowledge already holds included
//     (a curator rejects that one as a duplicate).
func Judge(p Proposal, k *knowledge.Knowledge) Coherence {
	var against []Contradiction
	switch p.Kind {
	case Relation:
		if c, ok := k.Counter(keyOf(p.Triple)); ok {
			against = append(against, contradiction(AgainstCounterClaim, "\""+sentenceOf(c.Key())+"\" is false", c.Sources))
		}
	case CounterClaim:
		if t, ok := k.Triple(keyOf(p.Triple)); ok {
			against = append(against, contradiction(AgainstTriple, sentenceOf(t.Key()), t.Sources))
		}
	case Definition:
		against = definitionConflicts(p, k)
	}
	out := Coherence{Status: epistemic.Coherent, Contradictions: against}
	if out.Contradictions == nil {
		out.Contradictions = []Contradiction{}
	}
	switch sources := distinctSources(against); {
	case sources >= 2:
		out.Status = epistemic.Falsified
	case len(against) > 0:
		out.Status = epistemic.Contested
	}
	return out
}

// definitionConflicts lists the reviewed definitions of p's term that differ
// from p's, or none when one of them says the same.
func definitionConflicts(p Proposal, k *knowledge.Knowledge) []Contradiction {
	var out []Contradiction
	mine := SameDefinitionKey(p.Definition)
	for _, d := range k.Definitions(p.Term) {
		if d.Definition == "" {
			continue
		}
		if SameDefinitionKey(d.Definition) == mine {
			return nil
		}
		out = append(out, contradiction(AgainstDefinition, d.Term+": "+d.Definition, d.Sources))
	}
	return out
}

// SameDefinitionKey is what two definitions are compared by: their words,
// lower-cased, without punctuation and without a leading article ("A curved
// glass." and "curved glass" say the same).
func SameDefinitionKey(def string) string {
	words := text.Tokenize(def)
	if len(words) > 0 && (words[0] == "a" || words[0] == "an" || words[0] == "the") {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

func contradiction(kind, claim string, cites []knowledge.Citation) Contradiction {
	var shas []string
	for _, c := range cites {
		if !slices.Contains(shas, c.SourceSHA) {
			shas = append(shas, c.SourceSHA)
		}
	}
	slices.Sort(shas)
	if shas == nil {
		shas = []string{}
	}
	return Contradiction{Kind: kind, Claim: claim, Sources: shas}
}

func distinctSources(cs []Contradiction) int {
	var all []string
	for _, c := range cs {
		for _, s := range c.Sources {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
	}
	return len(all)
}

func keyOf(t *Triple) knowledge.Key {
	return knowledge.Key{Head: text.Term(t.Head), Relation: text.Relation(t.Relation), Tail: text.Term(t.Tail)}
}

func sentenceOf(k knowledge.Key) string { return k.Head + " " + text.Spaced(k.Relation) + " " + k.Tail }
