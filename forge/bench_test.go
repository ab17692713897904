package forge

import (
	"strconv"
	"testing"
	"time"

	"formation/artifact"
	"formation/internal/testutil"
)

// syntheticBundle builds n relations the way the smelter hands them over:
// every citation is a byte range of a stored text of ten sentences. One
// relation in twenty cites a single secondary source (quarantined); one in
// ten is followed by a second copy from another secondary source (merged).
// It adds n/10 concepts and an acyclic chain of hints over their terms.
func syntheticBundle(f *fixture, n int) artifact.SmeltedBundle {
	rels := []string{"is", "has", "causes", "produces", "belongs_to", "is_caused_by", "reveals", "precedes"}
	var cands []artifact.RelationCandidate
	var first []int // index of relation i's first candidate
	var sources []string
	var sentences []string
	for i := 0; i < n; i++ {
		head, rel, tail := "term"+strconv.Itoa(i), rels[i%len(rels)], "thing"+strconv.Itoa(i%(n/2+1))
		src := primarySHA
		if i%20 == 7 {
			src = secondary1
		}
		first = append(first, len(cands))
		cands = append(cands, rc(head, rel, tail))
		sources, sentences = append(sources, src), append(sentences, head+" "+rel+" "+tail+".")
		if i%10 == 3 {
			cands = append(cands, rc(head, rel, tail))
			sources, sentences = append(sources, secondary2), append(sentences, "Indeed "+head+" "+rel+" "+tail+".")
		}
	}
	for lo := 0; lo < len(cands); lo += 10 {
		hi := min(lo+10, len(cands))
		for j, ref := range f.citeAll(sentences[lo:hi]) {
			ref.SourceSHA = sources[lo+j]
			cands[lo+j].Sources = []artifact.SourceRef{ref}
		}
	}
	b := artifact.SmeltedBundle{Relations: cands}
	prev := ""
	for i := 0; i < n/10; i++ {
		term := "term" + strconv.Itoa(i)
		b.Concepts = append(b.Concepts, cc(term, "definition "+strconv.Itoa(i), cands[first[i]].Sources...))
		if i%20 == 7 {
			continue // its relation and concept are quarantined: not a known term
		}
		if prev != "" {
			b.OrderingHints = append(b.OrderingHints, oh(prev, term))
		}
		prev = term
	}
	return b
}

// citeAll stores the sentences as one text and cites each one's range.
func (f *fixture) citeAll(sentences []string) []artifact.SourceRef {
	var text []byte
	starts := make([]int64, len(sentences))
	for i, s := range sentences {
		if i > 0 {
			text = append(text, ' ')
		}
		starts[i] = int64(len(text))
		text = append(text, s...)
	}
	d := f.texts.Put(text)
	refs := make([]artifact.SourceRef, len(sentences))
	for i, s := range sentences {
		start, end := starts[i], starts[i]+int64(len(s))
		refs[i] = artifact.SourceRef{SourceSHA: primarySHA, Span: s, Adapter: "file", RetrievedAt: testRetrieve,
			TextSHA: d, Start: &start, End: &end}
	}
	return refs
}

func TestSyntheticBundleOutcomes(t *testing.T) {
	f := newFixture(t)
	b := syntheticBundle(f, 1000)
	res := validate(t, f.cfg, b)
	v := res.VTS
	if len(b.Relations) != 1100 || len(v.Relations) != 950 || len(v.Quarantined) != 50 {
		t.Errorf("%d candidates: %d validated, %d quarantined", len(b.Relations), len(v.Relations), len(v.Quarantined))
	}
	// Concept i cites relation i's first copy: one in twenty has a lone
	// secondary source and fails R5.
	if len(v.Concepts) != 95 || len(b.OrderingHints) != 94 || len(v.OrderingHints) != 94 {
		t.Errorf("%d concepts, %d of %d hints", len(v.Concepts), len(v.OrderingHints), len(b.OrderingHints))
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			f := newFixture(b)
			bundle := syntheticBundle(f, n)
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				start := testutil.ProcessCPU()
				if _, err := Validate(b.Context(), f.cfg, "bench", bundle); err != nil {
					b.Fatal(err)
				}
				cpu += testutil.ProcessCPU() - start
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/relation")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
