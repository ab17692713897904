package compose

import (
	"cmp"
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

// kahnRank orders nodes by Kahn's algorithm, always taking the smallest
// ready name; out lists each node's successors (one entry per edge, so
// parallel edges count separately), every one of them among nodes. Nodes
// on or behind a cycle are appended in name order. The result maps node →
// rank.
func kahnRank(nodes []string, out map[string][]string) map[string]int {
	ids := newTerms(len(nodes))
	for _, n := range nodes {
		ids.id(n)
	}
	var heads, tails []int32
	for i, n := range nodes {
		for _, t := range out[n] {
			heads, tails = append(heads, int32(i)), append(tails, ids.id(t))
		}
	}
	ranks := kahnRanks(nodes, newSuccessors(len(nodes), heads, tails).of)
	rank := make(map[string]int, len(nodes))
	for i, n := range nodes {
		rank[n] = int(ranks[i])
	}
	return rank
}

// kahnRanks is kahnRank over nodes numbered by their index in names (each
// name distinct); succ(n) lists node n's successors. It returns each node's
// rank. Numbers in place of names keep a subject of 500,000 terms out of
// string-keyed maps, which were a fifth of compose's time at that size.
func kahnRanks(names []string, succ func(n int32) []int32) []int32 {
	indeg := make([]int32, len(names))
	for n := range names {
		for _, t := range succ(int32(n)) {
			indeg[t]++
		}
	}
	ready := nameHeap{names: names}
	for n := range names {
		if indeg[n] == 0 {
			ready.push(int32(n))
		}
	}
	rank := make([]int32, len(names))
	for n := range rank {
		rank[n] = -1
	}
	next := int32(0)
	for len(ready.nodes) > 0 {
		n := ready.pop()
		rank[n] = next
		next++
		for _, t := range succ(n) {
			if indeg[t]--; indeg[t] == 0 {
				ready.push(t)
			}
		}
	}
	var left []int32
	for n, r := range rank {
		if r < 0 {
			left = append(left, int32(n))
		}
	}
	slices.SortFunc(left, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	for _, n := range left {
		rank[n] = next
		next++
	}
	return rank
}

// nameHeap is the ready set of Kahn's algorithm, a binary min-heap of node
// numbers ordered by name: the smallest name leaves first.
type nameHeap struct {
	names []string
	nodes []int32
}

func (h *nameHeap) less(i, j int) bool { return h.names[h.nodes[i]] < h.names[h.nodes[j]] }

func (h *nameHeap) push(n int32) {
	h.nodes = append(h.nodes, n)
	for i := len(h.nodes) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h.nodes[i], h.nodes[parent] = h.nodes[parent], h.nodes[i]
		i = parent
	}
}

func (h *nameHeap) pop() int32 {
	top, last := h.nodes[0], len(h.nodes)-1
	h.nodes[0] = h.nodes[last]
	h.nodes = h.nodes[:last]
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < last && h.less(l, small) {
			small = l
		}
		if r < last && h.less(r, small) {
			small = r
		}
		if small == i {
			return top
		}
		h.nodes[i], h.nodes[small] = h.nodes[small], h.nodes[i]
		i = small
	}
}

// terms numbers strings in the order they are first met.
type terms struct {
	ids   map[string]int32
	names []string
}

func newTerms(capacity int) *terms {
	return &terms{ids: make(map[string]int32, capacity), names: make([]string, 0, capacity)}
}

// id is s's number, given it now if s is new.
func (t *terms) id(s string) int32 {
	if n, ok := t.ids[s]; ok {
		return n
	}
	n := int32(len(t.names))
	t.ids[s] = n
	t.names = append(t.names, s)
	return n
}

// successors lists, per node, the tails of the edges it heads, in edge
// order, all in one slice: node n's are at[start[n]:start[n+1]].
type successors struct {
	start []int32
	at    []int32
}

func newSuccessors(nodes int, heads, tails []int32) successors {
	s := successors{start: make([]int32, nodes+1), at: make([]int32, len(tails))}
	for _, h := range heads {
		s.start[h+1]++
	}
	for n := range nodes {
		s.start[n+1] += s.start[n]
	}
	fill := slices.Clone(s.start[:nodes])
	for i, h := range heads {
		s.at[fill[h]] = tails[i]
		fill[h]++
	}
	return s
}

func (s successors) of(n int32) []int32 { return s.at[s.start[n]:s.start[n+1]] }

// topoSortedRelations de-duplicates the relations and orders them by the
// Kahn rank of their head, then of their tail, then by relation name.
func topoSortedRelations(rels []artifact.RelationCandidate) []artifact.RelationCandidate {
	edges := dedupeTriples(rels)
	if len(edges) == 0 {
		return edges
	}
	// Nodes are numbered as met, head before tail, edges in (h,r,t) order.
	nodes := newTerms(len(edges))
	heads, tails := make([]int32, len(edges)), make([]int32, len(edges))
	for i, e := range edges {
		heads[i], tails[i] = nodes.id(e.Head), nodes.id(e.Tail)
	}
	succ := newSuccessors(len(nodes.names), heads, tails)
	rank := kahnRanks(nodes.names, succ.of)
	// Sort edges by (head rank, tail rank, relation), with the ranks looked
	// up once per edge rather than at every comparison. Edges are distinct
	// triples and ranks distinct nodes, so the order is total.
	type ranked struct {
		head, tail int32
		edge       artifact.RelationCandidate
	}
	rs := make([]ranked, len(edges))
	for i, e := range edges {
		rs[i] = ranked{rank[heads[i]], rank[tails[i]], e}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(a.head, b.head); c != 0 {
			return c
		}
		if c := cmp.Compare(a.tail, b.tail); c != 0 {
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
	heads := newTerms(len(ordered))
	byHead := make([]int32, len(ordered)) // each relation's head number
	for i, r := range ordered {
		byHead[i] = heads.id(r.Head)
	}
	positions := make([]int32, len(ordered))
	for i := range positions {
		positions[i] = int32(i)
	}
	queues := newSuccessors(len(heads.names), byHead, positions) // each head's relations, by position
	next := make([]int32, len(heads.names))                      // how far each head's queue is used
	used := make([]bool, len(ordered))
	firstUnused := func(term string) int {
		h, ok := heads.ids[term]
		if !ok {
			return -1
		}
		q, p := queues.of(h), next[h]
		for int(p) < len(q) && used[q[p]] {
			p++
		}
		next[h] = p
		if int(p) == len(q) {
			return -1
		}
		return int(q[p])
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
