package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"formation/artifact"
	"formation/courses"
	"formation/forge"
	"formation/internal/exitcode"
	"formation/stage"
	"formation/teaching"
	"formation/teaching/queue"
)

// hasProposals reports whether a subject reads accepted teaching proposals.
func hasProposals(s *courses.Subject) bool {
	return slices.ContainsFunc(s.Sources, func(src courses.Source) bool { return src.Adapter == courses.AdapterProposals })
}

// proposals is the store's queue of teaching proposals, as the proposals
// mining adapter and the forge frame read it.
func (p *Pipeline) proposals() queue.Queue { return queue.Queue{Store: p.Env.Store} }

// proposalsIngredient names the accepted proposals among the mine stage's
// source files (what --explain shows when they changed).
const proposalsIngredient = "the accepted teaching proposals"

// fingerprintProposals digests the accepted proposals (the id of each and
// the record that accepted it) for the mine stage's source fingerprint: a
// proposal accepted since the last mine is a changed source.
func (p *Pipeline) fingerprintProposals(ctx context.Context) (string, error) {
	accepted, err := p.proposals().Accepted(ctx)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, a := range accepted {
		raw, err := a.Decided.Canonical()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "proposal %s %x\n", a.ID, sha256.Sum256(raw))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ReasonUnextractable halts forge when a proposal the curator accepted did
// not smelt into exactly the claim it proposes (the sentence read as another
// claim, or as none): what reaches knowledge must be what was accepted.
const ReasonUnextractable = "proposal_unextractable"

// checkProposalsSmelted wants, for every accepted proposal the bundle holds,
// the proposed claim among the smelted candidates, citing the proposal.
func checkProposalsSmelted(taught []queue.Accepted, smelted artifact.SmeltedBundle) error {
	for _, a := range taught {
		if !smeltedAs(a.ID, a.Proposal, smelted) {
			return &stage.Halt{Code: exitcode.Rejected, Reason: ReasonUnextractable,
				Detail: fmt.Sprintf("proposal %s (%s) did not smelt into the claim it proposes", a.ID, a.Proposal.Claim())}
		}
	}
	return nil
}

func smeltedAs(id string, p teaching.Proposal, b artifact.SmeltedBundle) bool {
	cites := func(refs []artifact.SourceRef) bool {
		return slices.ContainsFunc(refs, func(r artifact.SourceRef) bool { return r.SourceSHA == id })
	}
	switch p.Kind {
	case teaching.Definition:
		return slices.ContainsFunc(b.Concepts, func(c artifact.ConceptCandidate) bool {
			return c.CanonicalTerm == p.Term && teaching.SameDefinitionKey(c.Definition) == teaching.SameDefinitionKey(p.Definition) && cites(c.Sources)
		})
	case teaching.CounterClaim:
		return slices.ContainsFunc(b.Counters, func(c artifact.CounterCandidate) bool {
			return c.Head == p.Triple.Head && c.Relation == p.Triple.Relation && c.Tail == p.Triple.Tail && cites(c.Sources)
		})
	}
	return slices.ContainsFunc(b.Relations, func(c artifact.RelationCandidate) bool {
		return c.Head == p.Triple.Head && c.Relation == p.Triple.Relation && c.Tail == p.Triple.Tail && cites(c.Sources)
	})
}

// withProposalSources adds to a proposals subject's allow-list every
// proposal source its mined bundle holds that is accepted in the store now
// (each decision verified again): tier primary and curated, the signed
// decision being the authority. An entry the subject's own allowlist.yaml
// has for the same digest stays as written. The stored list's digest
// becomes the forge's Allowlist input. It returns the accepted proposals
// the bundle holds, for checkProposalsSmelted. Other subjects are left
// untouched.
func (p *Pipeline) withProposalSources(ctx context.Context, s *courses.Subject, allow forge.Allowlist, allowDigest string) (forge.Allowlist, string, []queue.Accepted, error) {
	if !hasProposals(s) {
		return allow, allowDigest, nil, nil
	}
	oreDigest, err := p.Env.ResolveRef(ctx, s.SubjectID, "mine")
	if err != nil {
		return allow, "", nil, err
	}
	raw, err := p.Env.Store.Get(ctx, oreDigest)
	if err != nil {
		return allow, "", nil, err
	}
	ore, err := artifact.Decode[artifact.OreBundle](raw)
	if err != nil {
		return allow, "", nil, exitcode.With(exitcode.Rejected, fmt.Errorf("forge: ore bundle %s: %w", oreDigest, err))
	}
	accepted, err := p.proposals().Accepted(ctx)
	if err != nil {
		return allow, "", nil, err
	}
	byID := map[string]queue.Accepted{}
	for _, a := range accepted {
		byID[a.ID] = a
	}
	var taught []queue.Accepted
	for _, e := range ore.Entries {
		a, ok := byID[e.SourceSHA]
		if e.Adapter != courses.AdapterProposals || !ok {
			continue
		}
		taught = append(taught, a)
		if allow.Contains(e.SourceSHA) {
			continue
		}
		allow, err = allow.Add(artifact.AllowedSource{SourceSHA: e.SourceSHA, Tier: artifact.TierPrimary,
			Label: "teaching proposal accepted by " + a.Decided.Decision.Reviewer, Curated: true})
		if err != nil {
			return allow, "", nil, err
		}
	}
	b, err := allow.Bytes()
	if err != nil {
		return allow, "", nil, err
	}
	d, err := p.Env.Store.Put(ctx, b)
	return allow, d, taught, err
}
