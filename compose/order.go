package compose

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"

	"formation/artifact"
)

// dedupeTriples stable-sorts by (head, relation, tail) and keeps the first
// copy of each triple, as the original does (ties keep input order).
func dedupeTriples(rels []artifact.RelationCandidate) []artifact.RelationCandidate {
	byTriple := func(a, b artifact.RelationCandidate) int { return compareTriple(a.Triple(), b.Triple()) }
	sorted := slices.Clone(rels)
	if !slices.IsSortedFunc(sorted, byTriple) { // a validated set comes sorted
		slices.SortStableFunc(sorted, byTriple)
	}
	return slices.CompactFunc(sorted, func(a, b artifact.RelationCandidate) bool {
		return a.Triple() == b.Triple()
	})
}

// nameHeap is the ready set of Kahn's algorithm: the smallest name leaves first.
type nameHeap []string

func (h nameHeap) Len() int           { return len(h) }
func (h nameHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h nameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nameHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *nameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// kahnRank orders nodes by Kahn's algorithm, always taking the smallest
// ready name; out lists each node's successors (one entry per edge, so
// parallel edges count separately). Nodes on or behind a cycle are appended
// in name order. The result maps node → rank.
func kahnRank(nodes []string, out map[string][]string) map[string]int {
	indeg := make(map[string]int, len(nodes))
	for _, n := range nodes {
		indeg[n] += 0
	}
	for _, succ := range out {
		for _, t := range succ {
			indeg[t]++
		}
	}
	ready := make(nameHeap, 0, len(nodes))
	for _, n := range nodes {
		if indeg[n] == 0 {
			ready = append(ready, n)
		}
	}
	heap.Init(&ready)
	rank := make(map[string]int, len(nodes))
	for ready.Len() > 0 {
		n := heap.Pop(&ready).(string)
		rank[n] = len(rank)
		for _, t := range out[n] {
			if indeg[t]--; indeg[t] == 0 {
				heap.Push(&ready, t)
			}
		}
	}
	left := make([]string, 0)
	for _, n := range nodes {
		if _, ok := rank[n]; !ok {
			left = append(left, n)
		}
	}
	slices.Sort(left)
	for _, n := range left {
		rank[n] = len(rank)
	}
	return rank
}

// topoSortedRelations de-duplicates the relations and orders them by the
// Kahn rank of their head, then of their tail, then by relation name.
func topoSortedRelations(rels []artifact.RelationCandidate) []artifact.RelationCandidate {
	edges := dedupeTriples(rels)
	if len(edges) == 0 {
		return edges
	}
	out := make(map[string][]string)
	nodes := make([]string, 0, 2*len(edges))
	seen := make(map[string]bool, 2*len(edges))
	for _, e := range edges {
		out[e.Head] = append(out[e.Head], e.Tail) // edges are in (h,r,t) order
		for _, n := range [2]string{e.Head, e.Tail} {
			if !seen[n] {
				seen[n] = true
				nodes = append(nodes, n)
			}
		}
	}
	rank := kahnRank(nodes, out)
	// Sort edges by (head rank, tail rank, relation), stably, with the ranks
	// looked up once per edge rather than at every comparison.
	type ranked struct {
		head, tail int
		edge       artifact.RelationCandidate
	}
	rs := make([]ranked, len(edges))
	for i, e := range edges {
		rs[i] = ranked{rank[e.Head], rank[e.Tail], e}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if c := a.head - b.head; c != 0 {
			return c
		}
		if c := a.tail - b.tail; c != 0 {
			return c
		}
		return strings.Compare(a.edge.Relation, b.edge.Relation)
	})
	for i := range rs {
		edges[i] = rs[i].edge
	}
	return edges
}

// maximalChainWalks builds walks greedily: each starts at the first unused
// relation and grows by the first unused relation (by position) whose head
// is the current tail. Per-head queues keep it linear in the relation count.
func maximalChainWalks(ordered []artifact.RelationCandidate) [][]int {
	byHead := make(map[string][]int)
	for i, r := range ordered {
		byHead[r.Head] = append(byHead[r.Head], i)
	}
	next := make(map[string]int, len(byHead))
	used := make([]bool, len(ordered))
	firstUnused := func(head string) int {
		q, p := byHead[head], next[head]
		for p < len(q) && used[q[p]] {
			p++
		}
		next[head] = p
		if p == len(q) {
			return -1
		}
		return q[p]
	}
	var chains [][]int
	for seed := 0; seed < len(ordered); seed++ {
		if used[seed] {
			continue
		}
		chain := []int{seed}
		used[seed] = true
		for i := firstUnused(ordered[seed].Tail); i >= 0; i = firstUnused(ordered[i].Tail) {
			used[i] = true
			chain = append(chain, i)
		}
		chains = append(chains, chain)
	}
	return chains
}

// strictLinearTopo orders relations that must form one simple chain, or
// says why they do not.
func strictLinearTopo(rels []artifact.RelationCandidate) ([]artifact.RelationCandidate, error) {
	if len(rels) == 0 {
		return nil, preconditionf("strict_linear_topo: at least one relation required")
	}
	edges := dedupeTriples(rels)
	outs := make(map[string][]int)
	ins := make(map[string]int)
	for i, e := range edges {
		outs[e.Head] = append(outs[e.Head], i)
		ins[e.Tail]++
	}
	if err := degreeCheck(outs, ins); err != nil {
		return nil, err
	}
	var roots []string
	for h := range outs {
		if ins[h] == 0 {
			roots = append(roots, h)
		}
	}
	slices.Sort(roots)
	if len(roots) != 1 {
		return nil, preconditionf("strict_linear_topo: expected exactly one root node, found %s", quoteList(roots))
	}
	chain := make([]artifact.RelationCandidate, 0, len(edges))
	for node := roots[0]; len(outs[node]) == 1; {
		if len(chain) == len(edges) {
			return nil, preconditionf("strict_linear_topo: cycle detected at %q", node)
		}
		e := edges[outs[node][0]]
		chain = append(chain, e)
		node = e.Tail
	}
	if len(chain) != len(edges) {
		return nil, preconditionf("strict_linear_topo: chain covers %d of %d relations; disconnected components detected", len(chain), len(edges))
	}
	return chain, nil
}

// degreeCheck refuses a branching head or a merging tail, smallest name first.
func degreeCheck(outs map[string][]int, ins map[string]int) error {
	heads := make([]string, 0, len(outs))
	for h := range outs {
		heads = append(heads, h)
	}
	slices.Sort(heads)
	for _, h := range heads {
		if n := len(outs[h]); n > 1 {
			return preconditionf("strict_linear_topo: head %q has %d out-edges; procedural template requires a linear chain", h, n)
		}
	}
	tails := make([]string, 0, len(ins))
	for t := range ins {
		tails = append(tails, t)
	}
	slices.Sort(tails)
	for _, t := range tails {
		if n := ins[t]; n > 1 {
			return preconditionf("strict_linear_topo: tail %q has %d in-edges; procedural template requires a linear chain", t, n)
		}
	}
	return nil
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
