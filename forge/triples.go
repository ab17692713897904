package forge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
	"formation/ident"
	"formation/relparse"
	"formation/runtime/text"
)

// normalTriple lower-cases head and tail with the parser's rules and writes
// them in the form a user's sentence gives them (text.NormalTerm); the
// relation is an identifier and stays as written.
func normalTriple(t artifact.Triple) artifact.Triple {
	return artifact.Triple{Head: text.NormalTerm(relparse.Lower(t.Head)), Relation: t.Relation, Tail: text.NormalTerm(relparse.Lower(t.Tail))}
}

// wellTyped is R1. A triple is well typed when its relation is one of the
// vocabulary (the parser's 17 and the subject's declared relations), written
// exactly as listed (compound relations in their underscore form), and the
// sentence "<head> <relation> <tail>", with head and tail lower-cased,
// parses back to exactly that triple. So heads and tails must already be in
// the parser's normal form (trimmed, single spaces, no edge articles, no
// leading marker, no trailing punctuation) and must not contain a predicate
// the parser would pick first. Then, after the parse, head and tail are
// written in the form a user's sentence gives them (text.NormalTerm: no
// possessives, no punctuation around words, no leading wh-word), which must
// parse back too. Last, a user typing the claim must be read back to it
// (userReads). It returns the normalised triple, or the candidate's own
// triple and the reason.
func (ty *typing) wellTyped(c artifact.RelationCandidate) (artifact.Triple, string) {
	raw := c.Triple()
	switch {
	case c.Head == "" || c.Relation == "" || c.Tail == "":
		return raw, "head, relation and tail must all be non-empty"
	case !ty.vocab.IsRelation(c.Relation):
		return raw, fmt.Sprintf("relation %q is not in the vocabulary", c.Relation)
	}
	lower := artifact.Triple{Head: relparse.Lower(raw.Head), Relation: raw.Relation, Tail: relparse.Lower(raw.Tail)}
	if why := parsesBack(lower, ty.vocab); why != "" {
		return raw, why
	}
	want := normalTriple(raw)
	switch {
	case !ty.hasKey(want.Head) || !ty.hasKey(want.Tail):
		// "_" or "//" is kept by the normal form but is no knowledge key:
		// the runtime would refuse the whole set.
		return raw, "head or tail holds no word a user could type"
	case want == lower:
	default:
		if why := parsesBack(want, ty.vocab); why != "" {
			return raw, "in the form a user types it, " + why
		}
	}
	if why := ty.userReads(want); why != "" {
		return raw, why
	}
	return want, ""
}

// parsesBack says why "<head> <relation> <tail>" does not parse back to t
// ("" when it does).
func parsesBack(t artifact.Triple, vocab relparse.Vocabulary) string {
	got, ok := vocab.Parse(t.Head + " " + t.Relation + " " + t.Tail)
	switch {
	case !ok:
		return "the sentence does not parse"
	case got != t:
		return fmt.Sprintf("the sentence parses as %s", tripleText(got))
	}
	return ""
}

func tripleText(t artifact.Triple) string {
	return fmt.Sprintf("(%q, %q, %q)", t.Head, t.Relation, t.Tail)
}

func tripleKey(t artifact.Triple) string { return keyJSON(t.Head, t.Relation, t.Tail) }

// tripleGroup is every copy of one claim in the batch.
type tripleGroup struct {
	key       artifact.Triple
	wellTyped bool
	why       string                       // R1's reason when not well typed
	members   []artifact.RelationCandidate // sorted by full content
}

// groupTriples merges duplicates: well-typed candidates by their normalised
// triple, the others by their triple as written. Groups come out sorted.
func groupTriples(cs []artifact.RelationCandidate, ty *typing) []*tripleGroup {
	type gk struct {
		t  artifact.Triple
		ok bool
	}
	typed := typeAll(ty, cs, (*typing).wellTyped)
	index := make(map[gk]*tripleGroup, len(cs))
	groups := make([]*tripleGroup, 0, len(cs))
	for i, c := range cs {
		t, why := typed[i].norm, typed[i].why
		k := gk{t, why == ""}
		g := index[k]
		if g == nil {
			g = &tripleGroup{key: t, wellTyped: why == "", why: why}
			index[k] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, c)
	}
	for _, g := range groups {
		if len(g.members) > 1 {
			slices.SortFunc(g.members, compareCandidate)
		}
	}
	slices.SortFunc(groups, func(a, b *tripleGroup) int {
		return cmp.Or(compareTriple(a.key, b.key), compareBool(a.wellTyped, b.wellTyped))
	})
	return groups
}

func compareTriple(a, b artifact.Triple) int {
	return cmp.Or(strings.Compare(a.Head, b.Head), strings.Compare(a.Relation, b.Relation), strings.Compare(a.Tail, b.Tail))
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// compareCandidate orders candidates by their full content.
func compareCandidate(a, b artifact.RelationCandidate) int {
	return cmp.Or(
		compareTriple(a.Triple(), b.Triple()),
		slices.CompareFunc(a.Sources, b.Sources, compareSource),
		strings.Compare(string(a.State), string(b.State)),
		strings.Compare(a.RejectionReason, b.RejectionReason),
	)
}

// mergeCopies unions the citations of a group's n copies and records every
// copy after the first (in full-content order), naming it as written and the
// digests it cited. sources(i) gives copy i's citations, label(i) its name;
// key and the labels are only computed when a finding needs them.
func (v *validation) mergeCopies(kind string, key func() string, n int, sources func(int) []artifact.SourceRef, label func(int) string) []artifact.SourceRef {
	if n == 1 {
		return unionSources(sources(0))
	}
	lists := make([][]artifact.SourceRef, n)
	k := key()
	for i := range n {
		refs := sources(i)
		lists[i] = refs
		if i > 0 {
			v.findings = append(v.findings, Finding{Kind: kind, Key: k, ReasonCode: ReasonDuplicateMerged,
				Detail: fmt.Sprintf("copy %s citing %s merged into one of %d copies; citations unioned", label(i), digestList(refs), n)})
		}
	}
	return unionSources(lists...)
}

// digestList names the distinct digests of refs, escaping malformed ones.
func digestList(refs []artifact.SourceRef) string {
	ds := artifact.DistinctSHAs(refs)
	for i, d := range ds {
		if !ident.ValidDigest(d) {
			ds[i] = escapeUntrusted(d)
		}
	}
	return "[" + strings.Join(ds, " ") + "]"
}

// triples validates relations (kind relation: R1–R5) or counter-claims
// (kind counter: the same rules without R4, since a counter-claim restates
// no knowledge). It returns the validated candidates and, for relations, the
// quarantined ones; every other outcome is a finding.
func (v *validation) triples(kind string, cs []artifact.RelationCandidate) (ok, quarantined []artifact.RelationCandidate, err error) {
	ok, quarantined = []artifact.RelationCandidate{}, []artifact.RelationCandidate{}
	for _, g := range groupTriples(cs, v.typing) {
		v.advance(len(g.members))
		key := func() string { return tripleKey(g.key) }
		refs := v.mergeCopies(kind, key, len(g.members),
			func(i int) []artifact.SourceRef { return g.members[i].Sources },
			func(i int) string { return tripleText(g.members[i].Triple()) })
		cand := artifact.RelationCandidate{Head: g.key.Head, Relation: g.key.Relation, Tail: g.key.Tail, Sources: refs}
		refs, fail := v.exclude(kind, key, refs)
		var res sourceResult
		var err error
		if fail == nil {
			cand.Sources = refs
			fail, res, err = v.judgeTriple(kind, g, refs)
		}
		if err != nil {
			return nil, nil, err
		}
		if fail == nil {
			cand.State = artifact.StateValidated
			ok = append(ok, cand)
			v.noteUnchecked(kind, key, res)
			continue
		}
		v.note(kind, key(), fail, res.allChecked)
		// A relation equal to known knowledge is dropped, not quarantined:
		// nothing about it is suspect. Counter-claims are reported through
		// findings only.
		if kind == KindRelation && fail.code != ReasonDuplicateExisting {
			cand.State, cand.RejectionReason = artifact.StateQuarantined, fail.reason()
			quarantined = append(quarantined, cand)
		}
	}
	slices.SortFunc(quarantined, compareCandidate)
	return ok, quarantined, nil
}

// judgeTriple applies the rules in order; the first failure decides.
func (v *validation) judgeTriple(kind string, g *tripleGroup, refs []artifact.SourceRef) (*rejection, sourceResult, error) {
	var none sourceResult
	if !g.wellTyped {
		return &rejection{code: ReasonMalformed, detail: "R1: " + g.why}, none, nil
	}
	if term, hit := v.screen.match(g.key.Head, g.key.Tail); hit {
		return &rejection{code: ReasonIdentityCollision, detail: fmt.Sprintf("R2: head or tail is the identity term %q", term)}, none, nil
	}
	res, err := v.sources.check(refs, true)
	if err != nil || res.fail != nil {
		return res.fail, res, err
	}
	if kind == KindRelation && v.existing[g.key] {
		return &rejection{code: ReasonDuplicateExisting, detail: "R4: the triple is already known (pack or reviewed knowledge); dropped"}, res, nil
	}
	if !corroborated(refs, v.allow) {
		return &rejection{code: ReasonInsufficient, detail: insufficientDetail(refs, v.allow)}, res, nil
	}
	return nil, res, nil
}

// insufficientDetail says which tiers the citations had.
func insufficientDetail(refs []artifact.SourceRef, allow Allowlist) string {
	tiers := map[string]map[string]bool{}
	for _, r := range refs {
		t := effectiveTier(r, allow)
		if tiers[t] == nil {
			tiers[t] = map[string]bool{}
		}
		tiers[t][r.SourceSHA] = true
	}
	return fmt.Sprintf("R5: needs one primary source or two distinct secondary sources (llm sources never count); has %d primary, %d secondary, %d llm",
		len(tiers[artifact.TierPrimary]), len(tiers[artifact.TierSecondary]), len(tiers[artifact.TierLLM]))
}

// noteUnchecked records an accepted candidate whose curated citations had no
// range to check.
func (v *validation) noteUnchecked(kind string, key func() string, res sourceResult) {
	if len(res.unchecked) == 0 {
		return
	}
	v.findings = append(v.findings, Finding{Kind: kind, Key: key(), ReasonCode: ReasonSpanNotByteChecked,
		Detail: "accepted; span not byte-checked for curated source(s) " + strings.Join(res.unchecked, ", ")})
}

// selfContradictions settles a claim the set would both assert and deny: a
// triple validated as a relation and as a counter-claim is kept as neither.
// The relation is quarantined and the counter-claim dropped, each with a
// self_contradiction finding, so the set never validates a triple twice.
func (v *validation) selfContradictions(vts *artifact.ValidatedTripleSet) {
	if len(vts.Counters) == 0 {
		return
	}
	denied := make(map[artifact.Triple]bool, len(vts.Counters))
	for _, c := range vts.Counters {
		denied[c.Triple()] = true
	}
	asserted := v.quarantine(vts, ReasonSelfContradiction, func(r artifact.RelationCandidate) (string, bool) {
		return "validated as a relation, the set also validates it as a counter-claim; quarantined on both sides", denied[r.Triple()]
	})
	if len(asserted) == 0 {
		return
	}
	counters := vts.Counters[:0:0]
	for _, c := range vts.Counters {
		if !asserted[c.Triple()] {
			counters = append(counters, c)
			continue
		}
		v.findings = append(v.findings, Finding{Kind: KindCounter, Key: tripleKey(c.Triple()), ReasonCode: ReasonSelfContradiction,
			Detail: "validated as a counter-claim, the set also validates it as a relation; dropped on both sides", SpanChecked: spanChecked(c)})
	}
	vts.Counters = counters
}

// quarantine moves every validated relation that why gives a detail for to
// the quarantine list, with the reason and a finding each; the others keep
// their order. It returns the triples it moved (none: vts is untouched).
// The set-level rules (self-contradiction, fan-out) share it.
func (v *validation) quarantine(vts *artifact.ValidatedTripleSet, reason string, why func(artifact.RelationCandidate) (detail string, ok bool)) map[artifact.Triple]bool {
	if !slices.ContainsFunc(vts.Relations, func(r artifact.RelationCandidate) bool { _, ok := why(r); return ok }) {
		return nil
	}
	moved := map[artifact.Triple]bool{}
	kept := vts.Relations[:0:0]
	for _, r := range vts.Relations {
		detail, ok := why(r)
		if !ok {
			kept = append(kept, r)
			continue
		}
		moved[r.Triple()] = true
		v.findings = append(v.findings, Finding{Kind: KindRelation, Key: tripleKey(r.Triple()), ReasonCode: reason,
			Detail: detail, SpanChecked: spanChecked(r)})
		r.State, r.RejectionReason = artifact.StateQuarantined, reason
		vts.Quarantined = append(vts.Quarantined, r)
	}
	vts.Relations = kept
	slices.SortFunc(vts.Quarantined, compareCandidate)
	return moved
}

// spanChecked says whether every citation of a judged candidate had its
// byte range checked (there is at least one).
func spanChecked(c artifact.RelationCandidate) bool {
	checked := len(c.Sources) > 0
	for _, r := range c.Sources {
		checked = checked && r.HasSpanRange()
	}
	return checked
}
