package forge

import (
	"fmt"

	"formation/artifact"
)

// MaxFanout is the most tails a validated set may give one head under one
// relation: the most a walk answers (runtime.DefaultMaxWalkNodes, which a
// test holds equal). The run stage asks "What does <head> <relation>?"
// once for each relation and accepts the step only when the answer reaches
// the step's tail; past this many tails the answer stops short, some steps
// fail, and the course can never ratify (GNU info manuals: "default is"
// with 79 tails, "the default is 10", "the default is binary output", …,
// 15 walk steps rejected). A head that is said to be that many things is
// seldom one concept, and no tail is more deserving than another, so the
// whole pair is quarantined rather than cut at an arbitrary tail.
const MaxFanout = 64

// fanout quarantines every relation of a (head, relation) pair that has
// more than MaxFanout validated tails. It runs once the relations are
// final: merged, judged and settled against the counter-claims.
func (v *validation) fanout(vts *artifact.ValidatedTripleSet) {
	type pair struct{ head, relation string }
	tails := make(map[pair]int)
	most := 0
	for _, r := range vts.Relations {
		p := pair{r.Head, r.Relation}
		tails[p]++
		most = max(most, tails[p])
	}
	if most <= MaxFanout {
		return // the usual case: no second pass over the relations
	}
	v.quarantine(vts, ReasonFanoutExceeded, func(r artifact.RelationCandidate) (string, bool) {
		n := tails[pair{r.Head, r.Relation}]
		if n <= MaxFanout {
			return "", false
		}
		return fmt.Sprintf("head %q has %d validated tails under %q, more than one walk answers (%d): every relation of the pair is quarantined", r.Head, n, r.Relation, MaxFanout), true
	})
}
