package pipeline

import (
	"context"

	"formation/artifact"
	"formation/promote"
)

// reviewedTriples returns the triples of the persisted, reviewed knowledge
// (the forge drops candidates that repeat them) and the digest of that
// knowledge object, "none" before the first promotion.
func (p *Pipeline) reviewedTriples(ctx context.Context) ([]artifact.Triple, string, error) {
	k, digest, err := promote.LoadReviewed(ctx, p.Env.Store)
	if err != nil {
		return nil, "", err
	}
	if digest == "" {
		digest = "none"
	}
	out := make([]artifact.Triple, 0, len(k.Triples))
	for _, t := range k.Triples {
		out = append(out, artifact.Triple{Head: t.Head, Relation: t.Relation, Tail: t.Tail})
	}
	return out, digest, nil
}
