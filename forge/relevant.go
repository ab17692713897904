package forge

import (
	"cmp"
	"slices"
	"strings"

	"formation/artifact"
	"formation/relparse"
)

// Relevant returns the triples of existing that can change what Validate
// makes of smelted, in their normal form, sorted and without duplicates:
// those equal to a well-typed relation candidate (R4 drops the candidate)
// and those naming a term an ordering hint names (the term becomes known).
// Validate with Existing = Relevant(existing, smelted) gives the same result
// as with all of existing, so a stage cache keyed on the relevant triples
// is invalidated only when a fact the subject depends on changes. declared
// are the subject's declared relations (Config.Relations); a declaration
// Validate would refuse counts as none here.
func Relevant(existing []artifact.Triple, smelted artifact.SmeltedBundle, declared []string) []artifact.Triple {
	vocab, err := relparse.NewVocabulary(declared)
	if err != nil {
		vocab = relparse.Vocabulary{}
	}
	ty := newTyping(vocab)
	candidates := make(map[artifact.Triple]bool, len(smelted.Relations))
	for _, c := range smelted.Relations {
		if t, why := ty.wellTyped(c); why == "" {
			candidates[t] = true
		}
	}
	hintTerms := map[string]bool{}
	for _, h := range smelted.OrderingHints {
		if before, after, why := wellFormedHint(h); why == "" {
			hintTerms[before], hintTerms[after] = true, true
		}
	}
	var out []artifact.Triple
	for _, e := range existing {
		n := normalTriple(e)
		if candidates[n] || hintTerms[n.Head] || hintTerms[n.Tail] {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b artifact.Triple) int {
		return cmp.Or(strings.Compare(a.Head, b.Head), strings.Compare(a.Relation, b.Relation), strings.Compare(a.Tail, b.Tail))
	})
	return slices.Compact(out)
}
