package mining

import (
	"context"
	"fmt"

	"formation/courses"
	"formation/teaching/queue"
)

// Refusal codes of a proposals source.
const (
	CodeNoProposals   = "no_accepted_proposals"  // the store holds no accepted teaching proposal
	CodeUnextractable = "proposal_unextractable" // the relation parser would read the proposal's sentence as another claim
)

// ProposalReader lists the teaching proposals curators accepted, each
// decision verified (teaching/queue over the store does).
type ProposalReader interface {
	Accepted(ctx context.Context) ([]queue.Accepted, error)
}

// proposals mines a proposals source: one entry per accepted proposal, its
// raw bytes the proposal's canonical JSON (so its source_sha is the
// proposal's id) and its text the one sentence that states the claim. A
// decision that does not verify is a hard error (its own exit code, 77),
// never a skipped proposal.
func (m *miner) proposals(ctx context.Context, j job, o *outcome) error {
	if m.opt.Proposals == nil {
		return fmt.Errorf("a proposals source needs the store's proposals (Options.Proposals)")
	}
	accepted, err := m.opt.Proposals.Accepted(ctx)
	if err != nil {
		return err
	}
	if len(accepted) == 0 {
		return refuse(CodeNoProposals, "no teaching proposal has been accepted (formation review accept)")
	}
	limit := m.subj.LimitsOf(j.src).MaxFileBytes
	for _, a := range accepted {
		if int64(len(a.Raw)) > limit {
			return refuse(CodeTooLarge, "proposal %s has %d bytes, the limit is %d", a.ID, len(a.Raw), limit)
		}
		sha, err := m.put(ctx, a.Raw)
		if err != nil {
			return err
		}
		if sha != a.ID {
			return fmt.Errorf("proposal %s hashes to %s", a.ID, sha)
		}
		e := m.entry(j, sha, int64(len(a.Raw)))
		e.URL = "proposal:" + a.ID
		e.Citation = proposalCitation(j.src, a)
		if e.TextSHA, err = m.put(ctx, []byte(a.Proposal.Sentence())); err != nil {
			return err
		}
		o.bytes += int64(len(a.Raw))
		o.mined = append(o.mined, mined{entry: e, source: j.src.ID, path: e.URL})
	}
	return nil
}

func proposalCitation(src courses.Source, a queue.Accepted) string {
	what := fmt.Sprintf("teaching proposal %s, accepted by %s", a.ID[:12], a.Decided.Decision.Reviewer)
	if src.Citation == "" {
		return what
	}
	return src.Citation + ": " + what
}
