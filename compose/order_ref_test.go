package compose

import (
	"cmp"
	"container/heap"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
)

// The ordering functions as they were before nodes were numbered, and the
// chain walks as their comment states them: references the numbered ones
// must agree with on every graph.

// refNameHeap is the ready set of Kahn's algorithm: the smallest name leaves first.
type refNameHeap []string

func (h refNameHeap) Len() int           { return len(h) }
func (h refNameHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h refNameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refNameHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *refNameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// kahnRank orders nodes by Kahn's algorithm, always taking the smallest
// ready name; out lists each node's successors (one entry per edge, so
// parallel edges count separately). Nodes on or behind a cycle are appended
// in name order. The result maps node → rank.
func refKahnRank(nodes []string, out map[string][]string) map[string]int {
	indeg := make(map[string]int, len(nodes))
	for _, n := range nodes {
		indeg[n] += 0
	}
	for _, succ := range out {
		for _, t := range succ {
			indeg[t]++
		}
	}
	ready := make(refNameHeap, 0, len(nodes))
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
func refTopoSortedRelations(rels []artifact.RelationCandidate) []artifact.RelationCandidate {
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
	rank := refKahnRank(nodes, out)
	slices.SortStableFunc(edges, func(a, b artifact.RelationCandidate) int {
		return cmp.Or(cmp.Compare(rank[a.Head], rank[b.Head]), cmp.Compare(rank[a.Tail], rank[b.Tail]), strings.Compare(a.Relation, b.Relation))
	})
	return edges
}

// refMaximalChainWalks is maximalChainWalks as its comment states it, by
// scanning: each walk starts at the first unused relation and grows by the
// first unused relation, by position, whose head is the current tail.
func refMaximalChainWalks(ordered []artifact.RelationCandidate) [][]int {
	used := make([]bool, len(ordered))
	firstUnused := func(head string) int {
		for i, r := range ordered {
			if !used[i] && r.Head == head {
				return i
			}
		}
		return -1
	}
	var chains [][]int
	for seed := range ordered {
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

// TestOrderAgreesWithReference draws random relation sets (chains,
// branches, cycles, parallel and repeated edges, a node named like
// another's prefix) and holds topoSortedRelations, maximalChainWalks and
// kahnRank to the references above.
func TestOrderAgreesWithReference(t *testing.T) {
	preds := []string{"causes", "is", "has", "precedes"}
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 7))
		nodes := 1 + r.IntN(30)
		name := func() string { return fmt.Sprintf("t%d", r.IntN(nodes)) }
		var rels []artifact.RelationCandidate
		for range r.IntN(60) {
			rels = append(rels, artifact.RelationCandidate{Head: name(), Relation: preds[r.IntN(len(preds))], Tail: name()})
		}
		got, want := topoSortedRelations(rels), refTopoSortedRelations(rels)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: topoSortedRelations\n got %v\nwant %v", seed, got, want)
		}
		if g, w := maximalChainWalks(got), refMaximalChainWalks(want); !reflect.DeepEqual(g, w) {
			t.Fatalf("seed %d: maximalChainWalks\n got %v\nwant %v", seed, g, w)
		}
		names := []string{}
		out := map[string][]string{}
		for _, rel := range rels {
			if !slices.Contains(names, rel.Head) {
				names = append(names, rel.Head)
			}
			if !slices.Contains(names, rel.Tail) {
				names = append(names, rel.Tail)
			}
			out[rel.Head] = append(out[rel.Head], rel.Tail)
		}
		if g, w := kahnRank(names, out), refKahnRank(names, out); !reflect.DeepEqual(g, w) {
			t.Fatalf("seed %d: kahnRank\n got %v\nwant %v", seed, g, w)
		}
	}
}
