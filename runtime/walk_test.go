package runtime

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"formation/runtime/admissibility"
	"formation/runtime/algebra"
	"formation/runtime/knowledge"
)

// mapWalk is the walk as it was first written, over maps of the names
// reached and of the node each tail was reached from, and the knowledge's
// Out copied for each node: the reference walk is held to.
func (s *Session) mapWalk(ts *turnState, head, rel string, f algebra.MV) (tails []string, edges []knowledge.Triple, via map[string]string, err error) {
	via = map[string]string{}
	visited := map[string]bool{head: true}
	frontier := []string{head}
	step := 0
	for depth := 0; depth < s.rt.cfg.MaxWalkDepth && len(frontier) > 0; depth++ {
		var next []string
		for _, node := range frontier {
			var cands []knowledge.Triple
			for _, e := range s.rt.cfg.Knowledge.Out(node, rel) {
				if visited[e.Tail] || !s.overlay.TripleStatus(e).LoadBearing() {
					continue
				}
				e.Status = s.overlay.TripleStatus(e)
				cands = append(cands, e)
			}
			if s.teach != nil {
				n := len(cands)
				for _, e := range s.usableLessons(ts, s.overlay.LessonsFrom(node, rel)) {
					if !visited[e.Tail] && !hasTail(cands[:n], e.Tail) {
						cands = append(cands, e)
					}
				}
				sort.SliceStable(cands, func(i, j int) bool { return cands[i].Tail < cands[j].Tail })
			}
			if len(cands) == 0 {
				continue
			}
			admitted, err := s.admit(node, rel, cands, f, step)
			if err != nil {
				return tails, edges, via, err
			}
			step++
			for _, e := range admitted {
				if len(tails) >= s.rt.cfg.MaxWalkNodes {
					return tails, edges, via, nil
				}
				visited[e.Tail] = true
				tails = append(tails, e.Tail)
				edges = append(edges, e)
				via[e.Tail] = node
				next = append(next, e.Tail)
			}
		}
		frontier = next
	}
	return tails, edges, via, nil
}

// The walk over its scratch sets is the walk over maps: the same tails,
// edges, nodes reached from and errors, for every head and relation of a
// store of 1,000 triples, with the default bounds and tight ones, in a
// session that contested some edges first and one that has seen no turn,
// one session walking again and again.
func TestWalkIsMapWalk(t *testing.T) {
	k, terms := syntheticKnowledge(t, 1000)
	testWalks(t, k, terms, append([]string{"nothing"}, benchRelations...))
	k, terms = denseKnowledge(t)
	testWalks(t, k, terms, []string{"causes", "precedes", "has"})
}

// denseKnowledge is 40 terms, each with three or four out-edges under each
// of three relations: walks with wide frontiers.
func denseKnowledge(t *testing.T) (*knowledge.Knowledge, []string) {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	terms := make([]string, 40)
	for i := range terms {
		terms[i] = fmt.Sprintf("node %02d", i)
	}
	var triples []knowledge.Triple
	for _, h := range terms {
		for _, r := range []string{"causes", "precedes", "has"} {
			for range 3 + rng.Intn(2) {
				tl := terms[rng.Intn(len(terms))]
				triples = append(triples, knowledge.Triple{Head: h, Relation: r, Tail: tl, Sources: cite(h + " " + r + " " + tl)})
			}
		}
	}
	k, err := knowledge.NewKnowledge(nil, triples)
	if err != nil {
		t.Fatal(err)
	}
	return k, terms
}

func testWalks(t *testing.T, k *knowledge.Knowledge, terms, rels []string) {
	t.Helper()
	for _, mutate := range []func(*Config){nil, func(c *Config) { c.MaxWalkNodes, c.MaxWalkDepth = 3, 2 },
		func(c *Config) { c.AdmissibilityMode = admissibility.Margin }} {
		f := newFixture(t, k, mutate)
		fresh, contested := f.rt.NewSession(), f.rt.NewSession()
		ts := k.Triples()
		for i := 0; i < 40; i++ {
			e := ts[(i*37)%len(ts)]
			turn(t, contested, e.Head+" does not "+spaced(e.Relation)+" "+e.Tail+".")
		}
		walks := 0
		for _, s := range []*Session{fresh, contested} {
			st, _ := s.field.State()
			for i, head := range terms {
				rel := rels[i%len(rels)]
				res, err := s.walk(&turnState{}, head, rel, st)
				tails, edges, via, wantErr := s.mapWalk(&turnState{}, head, rel, st)
				if !reflect.DeepEqual(res.tails, tails) || !reflect.DeepEqual(res.edges, edges) || !errors.Is(err, wantErr) && !reflect.DeepEqual(err, wantErr) {
					t.Fatalf("%s %s: %v %v (%v), over maps %v %v (%v)", head, rel, res.tails, res.edges, err, tails, edges, wantErr)
				}
				for j, tail := range res.tails {
					if got := res.node(head, res.from[j]); got != via[tail] {
						t.Fatalf("%s %s: %s reached from %q, over maps from %q", head, rel, tail, got, via[tail])
					}
				}
				walks += len(res.tails)
			}
		}
		if walks == 0 {
			t.Fatal("no walk reached anything")
		}
	}
}
