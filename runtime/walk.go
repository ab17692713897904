package runtime

import (
	"sort"

	"formation/runtime/admissibility"
	"formation/runtime/algebra"
	"formation/runtime/knowledge"
)

// walkResult is a transitive walk: every term reached from the head along
// one relation, breadth first (tails of a node in code-point order), with the
// edge that first reached each.
type walkResult struct {
	tails []string
	edges []knowledge.Triple // the edge that reached each tail, same order
	// from is, for each tail, the index among tails of the node it was
	// reached from; -1 for the head. A walk reaches a name once, and never
	// the head again, so the node is named by where it stands.
	from []int
}

// node is the name of the node at index i of from: the head for -1.
func (res *walkResult) node(head string, i int) string {
	if i < 0 {
		return head
	}
	return res.tails[i]
}

// walk follows relation rel from head through load-bearing edges of the
// session (Contested and Falsified edges are skipped), bounded by the
// configured depth and node count. Each expansion of a node with at least one
// unvisited candidate is one step of the admissibility region
// "relation:<rel>": when it admits none, the walk refuses with the step's
// *admissibility.ExhaustionError.
//
// The set of names reached, the frontiers and the candidates' buffer are the
// session's scratch, emptied here and kept for the next walk: the result
// holds copies, nothing of them.
func (s *Session) walk(ts *turnState, head, rel string, f algebra.MV) (walkResult, error) {
	var res walkResult
	w := &s.scratch.walk
	if w.visited == nil {
		w.visited = map[string]bool{}
	}
	clear(w.visited)
	w.visited[head] = true
	frontier := append(w.frontier[:0], -1)
	step := 0
	for depth := 0; depth < s.rt.cfg.MaxWalkDepth && len(frontier) > 0; depth++ {
		next := w.next[:0]
		for _, at := range frontier {
			node := res.node(head, at)
			cands := s.candidates(ts, node, rel, w.visited, w.cands[:0])
			w.cands = cands[:0]
			if len(cands) == 0 {
				continue
			}
			admitted, err := s.admit(node, rel, cands, f, step)
			if err != nil {
				return res, err
			}
			step++
			for _, e := range admitted {
				if len(res.tails) >= s.rt.cfg.MaxWalkNodes {
					return res, nil
				}
				w.visited[e.Tail] = true
				next = append(next, len(res.tails))
				res.tails = append(res.tails, e.Tail)
				res.edges = append(res.edges, e)
				res.from = append(res.from, at)
			}
		}
		w.frontier, w.next = next, frontier // the one just read is the next one to fill
		frontier = next
	}
	return res, nil
}

// walkScratch is what a walk needs while it runs and drops after: the
// names reached, two frontiers (indexes of from) and the candidates of the
// node being expanded.
type walkScratch struct {
	visited        map[string]bool
	frontier, next []int
	cands          []knowledge.Triple
}

// candidates are the load-bearing out-edges of node under rel whose tail the
// walk has not reached yet, in tail order: the knowledge's, and in a
// teaching session the usable lessons' (a tail the knowledge reaches is
// reached by the knowledge's edge). They are written over buf.
func (s *Session) candidates(ts *turnState, node, rel string, visited map[string]bool, buf []knowledge.Triple) []knowledge.Triple {
	all := s.rt.cfg.Knowledge.AppendOut(buf[:0], node, rel)
	out := all[:0] // kept edges move down over the ones read: never past them
	for _, e := range all {
		if visited[e.Tail] {
			continue
		}
		if e.Status = s.overlay.TripleStatus(e); !e.Status.LoadBearing() {
			continue
		}
		out = append(out, e)
	}
	if s.teach == nil {
		return out
	}
	n := len(out)
	for _, e := range s.usableLessons(ts, s.overlay.LessonsFrom(node, rel)) {
		if !visited[e.Tail] && !hasTail(out[:n], e.Tail) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Tail < out[j].Tail })
	return out
}

func hasTail(ts []knowledge.Triple, tail string) bool {
	for _, t := range ts {
		if t.Tail == tail {
			return true
		}
	}
	return false
}

// admit applies the configured destination check (off, threshold, margin)
// and, when a frame is configured, the rotor check to one step's candidates.
func (s *Session) admit(node, rel string, cands []knowledge.Triple, f algebra.MV, step int) ([]knowledge.Triple, error) {
	cfg := &s.rt.cfg
	noFrame := s.rt.noFrame
	if cfg.AdmissibilityMode == admissibility.Off && noFrame {
		return cands, nil
	}
	region := "relation:" + rel
	var scored []admissibility.Scored
	if cfg.AdmissibilityMode == admissibility.Off {
		scored = make([]admissibility.Scored, len(cands))
		for i, c := range cands {
			scored[i] = admissibility.Scored{Index: i, Label: c.Tail}
		}
	} else {
		scored = admissibility.Score(s.asCandidates(cands), s.rt.blades[rel])
	}
	var attempts []admissibility.Attempt
	var chosen []admissibility.Scored
	switch cfg.AdmissibilityMode {
	case admissibility.Threshold:
		adm, rej := admissibility.CheckThreshold(scored, cfg.AdmissibilityThreshold)
		chosen = adm
		attempts = appendAttempts(attempts, rej, false)
	case admissibility.Margin:
		v := admissibility.CheckMargin(admissibility.Rank(scored), cfg.AdmissibilityMargin)
		if !v.Admitted {
			return nil, admissibility.Exhausted(region, step, appendAttempts(nil, v.Ranked, false))
		}
		chosen = []admissibility.Scored{*v.Top}
		attempts = appendAttempts(attempts, v.Ranked[1:], false)
	default:
		chosen = scored
	}
	if noFrame {
		return pick(cands, chosen), nilIfAny(region, step, chosen, attempts)
	}
	var out []knowledge.Triple
	from := s.rt.rotors.Term(node)
	for _, c := range chosen {
		rv := admissibility.CheckRotor(algebra.TransitionRotor(from, s.rt.rotors.Term(c.Label)), f, cfg.Frame)
		if !rv.Admitted {
			attempts = append(attempts, admissibility.Attempt{Index: c.Index, Label: c.Label, Score: rv.Score, Rotor: true})
			continue
		}
		out = append(out, cands[c.Index])
	}
	if len(out) == 0 {
		return nil, admissibility.Exhausted(region, step, attempts)
	}
	return out, nil
}

func pick(cands []knowledge.Triple, chosen []admissibility.Scored) []knowledge.Triple {
	out := make([]knowledge.Triple, len(chosen))
	for i, c := range chosen {
		out[i] = cands[c.Index]
	}
	return out
}

// nilIfAny is the exhaustion of a step that chose nothing, nil otherwise.
func nilIfAny(region string, step int, chosen []admissibility.Scored, attempts []admissibility.Attempt) error {
	if len(chosen) > 0 {
		return nil
	}
	return admissibility.Exhausted(region, step, attempts)
}

// asCandidates embeds each candidate tail; the candidate index is its
// position, the tie-break of the margin ranking.
func (s *Session) asCandidates(cands []knowledge.Triple) []admissibility.Candidate {
	out := make([]admissibility.Candidate, len(cands))
	for i, c := range cands {
		out[i] = admissibility.Candidate{Index: i, Label: c.Tail, Versor: s.rt.rotors.Term(c.Tail)}
	}
	return out
}

func appendAttempts(dst []admissibility.Attempt, scored []admissibility.Scored, rotor bool) []admissibility.Attempt {
	for _, s := range scored {
		dst = append(dst, admissibility.Attempt{Index: s.Index, Label: s.Label, Score: s.Score, Rotor: rotor})
	}
	return dst
}
