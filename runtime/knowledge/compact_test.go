package knowledge

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"formation/runtime/epistemic"
)

// chainRecords is a subject like the scale benchmarks' chains: n triples
// over a chain of terms, a definition every tenth term, a counter-claim
// every hundredth, two sources and a byte range on some citations.
func chainRecords(n int) ([]Concept, []Triple, []Triple) {
	cite := func(i int) []Citation {
		c := Citation{SourceSHA: shaA, Span: fmt.Sprintf("Term%d leads on.", i), Adapter: "file", RetrievedAt: "2026-05-16T00:00:00Z"}
		if i%3 == 0 {
			c.TextSHA, c.Start, c.End = shaB, i, i+16
		}
		if i%7 == 0 {
			return []Citation{c, {SourceSHA: shaB, Span: "shared"}}
		}
		return []Citation{c}
	}
	rels := []string{"causes", "produces", "precedes", "grounds"}
	var concepts []Concept
	var triples, counters []Triple
	for i := range n {
		term := fmt.Sprintf("term%d", i)
		triples = append(triples, Triple{Head: term, Relation: rels[i%4], Tail: fmt.Sprintf("term%d", i+1), Sources: cite(i), Status: epistemic.Speculative})
		if i%10 == 0 {
			concepts = append(concepts, Concept{Term: term, Definition: "the " + term, Sources: cite(i)},
				Concept{Term: term, Definition: "also " + term, Sources: cite(i + 1)})
		}
		if i%100 == 0 {
			counters = append(counters, Triple{Head: term, Relation: "causes", Tail: "nothing", Sources: cite(i)})
		}
	}
	return concepts, triples, counters
}

// TestCompactChangesNothing holds the compacted index equal, field for
// field and map for map, to the index over the records where the merge
// left them.
func TestCompactChangesNothing(t *testing.T) {
	concepts, triples, counters := chainRecords(3000)
	loose, err := newKnowledge(concepts, triples, counters, false)
	if err != nil {
		t.Fatal(err)
	}
	compacted, err := newKnowledge(concepts, triples, counters, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loose, compacted) {
		t.Fatal("the compacted index differs from the loose one")
	}
	k := loadOptics(t)
	if want := loadOpticsLoose(t); !reflect.DeepEqual(want, k) {
		t.Fatal("the compacted optics index differs from the loose one")
	}
}

func loadOpticsLoose(t *testing.T) *Knowledge {
	t.Helper()
	k := loadOptics(t)
	var concepts []Concept
	for _, term := range sortedKeys(k.terms) {
		concepts = append(concepts, k.definitions[term]...)
	}
	loose, err := newKnowledge(concepts, k.Triples(), k.Counters(), false)
	if err != nil {
		t.Fatal(err)
	}
	return loose.WithRelations(k.declared...)
}

// TestCompactPacksTheIndex checks that compaction happened: every string of
// the records lies in one block, every citation list in another, and a
// list handed out cannot be appended into its neighbour.
func TestCompactPacksTheIndex(t *testing.T) {
	concepts, triples, counters := chainRecords(2000)
	k, err := NewKnowledge(concepts, triples, counters...)
	if err != nil {
		t.Fatal(err)
	}
	var lo, hi uintptr
	defs := make([][]Concept, 0, len(k.definitions))
	for _, d := range k.definitions {
		defs = append(defs, d)
	}
	k.eachString(defs, func(_ int, s *string) {
		if *s == "" {
			return
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(*s)))
		if lo == 0 || p < lo {
			lo = p
		}
		if end := p + uintptr(len(*s)); end > hi {
			hi = end
		}
	})
	var size int
	k.eachString(defs, func(_ int, s *string) { size += len(*s) })
	if span := int(hi - lo); span > size {
		t.Fatalf("the strings span %d bytes, more than the %d they hold: not one block", span, size)
	}
	first := &k.triples[0].Sources[0]
	last := &k.triples[len(k.triples)-1].Sources[0]
	if gap := uintptr(unsafe.Pointer(last)) - uintptr(unsafe.Pointer(first)); gap > uintptr(3*len(k.triples))*unsafe.Sizeof(Citation{}) {
		t.Fatalf("the triples' citation lists are spread over %d bytes: not one array", gap)
	}
	out := k.Out("term5", "produces")
	if len(out) != 1 {
		t.Fatalf("Out(term5, produces) = %v", out)
	}
	before := k.triples[6].Sources[0]
	_ = append(out[0].Sources, Citation{SourceSHA: shaB, Span: "appended"})
	if k.triples[6].Sources[0] != before {
		t.Fatal("appending to one triple's citations wrote into the next triple's")
	}
}

// TestPackListsKeepsEveryList packs lists of every length into one array:
// each keeps its values, lies in the array, and cannot be appended into
// its neighbour.
func TestPackListsKeepsEveryList(t *testing.T) {
	m := map[string][]int{}
	want := map[string][]int{}
	for i := range 500 {
		key := fmt.Sprint(i)
		for j := range i % 9 {
			m[key] = append(m[key], i*10+j)
			want[key] = append(want[key], i*10+j)
		}
	}
	packLists(m)
	if !reflect.DeepEqual(m, want) {
		t.Fatal("packing changed a list")
	}
	var lo, hi uintptr
	total := 0
	for _, l := range m {
		if len(l) == 0 {
			continue
		}
		total += len(l)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(l)))
		if lo == 0 || p < lo {
			lo = p
		}
		hi = max(hi, p+uintptr(len(l))*unsafe.Sizeof(0))
		if cap(l) != len(l) {
			t.Fatalf("a packed list has room for %d more", cap(l)-len(l))
		}
	}
	if int(hi-lo) != total*int(unsafe.Sizeof(0)) {
		t.Fatalf("the lists span %d bytes for %d values: not one array", hi-lo, total)
	}
}
