package runtime

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"formation/runtime/knowledge"
	"formation/runtime/text"
)

// joinedWalkSurface is walkSurfaceText as it was first written, a string
// per tail and a slice per path joined, over a map from each tail to the
// node it was reached from: the reference the builder is held to.
func joinedWalkSurface(head, rel string, res walkResult) string {
	via := map[string]string{}
	for i, t := range res.tails {
		via[t] = res.node(head, res.from[i])
	}
	pathTo := func(t string) []string {
		var mid []string
		for n := via[t]; n != head && n != ""; n = via[n] {
			mid = append([]string{n}, mid...)
		}
		return mid
	}
	var vias []string
	for _, t := range res.tails {
		if from := via[t]; from != head {
			vias = append(vias, t+" via "+strings.Join(pathTo(t), " → "))
		}
	}
	list := ""
	switch len(res.tails) {
	case 0:
	case 1:
		list = res.tails[0]
	default:
		list = strings.Join(res.tails[:len(res.tails)-1], ", ") + " and " + res.tails[len(res.tails)-1]
	}
	s := capitalize(head) + " " + text.Spaced(rel) + " " + list
	if len(vias) > 0 {
		s += " (" + strings.Join(vias, "; ") + ")"
	}
	return s + "."
}

func joinedEdges(edges []knowledge.Triple) string {
	parts := make([]string, len(edges))
	for i, e := range edges {
		parts[i] = e.Head + " " + text.Spaced(e.Relation) + " " + e.Tail
	}
	return strings.Join(parts, "; ")
}

// randomWalk is a walk result over a few names (capitalised or not, with
// runes beyond ASCII, empty, invalid UTF-8): a breadth-first tree from head,
// each tail a name of its own, never the head; its edges mix relations.
func randomWalk(r *rand.Rand) (head, rel string, res walkResult, edges []knowledge.Triple) {
	names := []string{"light", "Lens", "élan vital", "ångström", "", "a", "b c", "x\xff", "focal_point", "日本", "z"}
	rels := []string{"causes", "belongs_to", "is_caused_by", "contrasts with", "Has", "a__b", "_x"}
	head, rel = names[r.IntN(len(names))], rels[r.IntN(len(rels))]
	for i := range r.IntN(12) {
		t := names[r.IntN(len(names))] + strings.Repeat("'", i+1)
		from := r.IntN(len(res.tails)+1) - 1
		res.tails = append(res.tails, t)
		res.from = append(res.from, from)
		edgeRel := rel
		if r.IntN(4) == 0 {
			edgeRel = rels[r.IntN(len(rels))]
		}
		edges = append(edges, knowledge.Triple{Head: res.node(head, from), Relation: edgeRel, Tail: t})
	}
	return head, rel, res, edges
}

// The walk surfaces written into one builder are the joined ones, byte for
// byte.
func TestWalkSurfacesAreJoined(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for i := range 20000 {
		head, rel, res, edges := randomWalk(r)
		if got, want := walkSurfaceText(head, rel, res), joinedWalkSurface(head, rel, res); got != want {
			t.Fatalf("walk %d: surface\n%q\nwant\n%q", i, got, want)
		}
		if got, want := joinEdges(edges), joinedEdges(edges); got != want {
			t.Fatalf("walk %d: edges\n%q\nwant\n%q", i, got, want)
		}
	}
}

// citedSHAs is the sorted set of the cited digests, nil for none, as the
// set it was first built with gave it.
func TestCitedSHAsIsTheSortedSet(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	shas := []string{"b", "a", "c", "", "a\xff", "ab"}
	for range 20000 {
		var cs []knowledge.Citation
		for range r.IntN(6) {
			cs = append(cs, knowledge.Citation{SourceSHA: shas[r.IntN(len(shas))]})
		}
		set := map[string]bool{}
		var want []string
		for _, c := range cs {
			if !set[c.SourceSHA] {
				set[c.SourceSHA] = true
				want = append(want, c.SourceSHA)
			}
		}
		sort.Strings(want)
		if got := citedSHAs(cs); !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: %q, want %q", cs, got, want)
		}
	}
}

// containsWords is the padded strings.Contains it replaces, for every
// non-empty word over random strings of words, spaces and repeats.
func TestContainsWordsIsPaddedContains(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 3))
	pieces := []string{"a", "b", "ab", " ", "  ", "aa", "é"}
	gen := func(n int) string {
		s := ""
		for range n {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	for range 50000 {
		s, w := gen(r.IntN(8)), gen(1+r.IntN(3))
		if w == "" {
			continue
		}
		if got, want := containsWords(s, w), strings.Contains(" "+s+" ", " "+w+" "); got != want {
			t.Fatalf("%q in %q: %v, want %v", w, s, got, want)
		}
	}
}
