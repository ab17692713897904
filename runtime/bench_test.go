package runtime

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	goruntime "runtime"
	"sort"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"formation/runtime/knowledge"
	"formation/runtime/trace"
)

var benchRelations = []string{"causes", "produces", "reveals", "grounds", "precedes", "follows", "has", "means",
	"contrasts_with", "belongs_to", "is_caused_by", "refracts", "focuses", "supports", "requires", "enables",
	"limits", "measures", "contains", "transforms"}

// syntheticKnowledge builds a deterministic store of n triples over n/5
// terms, one definition per term, and n/100 counter-claims.
func syntheticKnowledge(tb testing.TB, n int) (*knowledge.Knowledge, []string) {
	tb.Helper()
	rng := rand.New(rand.NewSource(42))
	terms := make([]string, n/5)
	var concepts []knowledge.Concept
	for i := range terms {
		terms[i] = fmt.Sprintf("concept %04d", i)
		concepts = append(concepts, knowledge.Concept{Term: terms[i], Definition: fmt.Sprintf("the %d-th synthetic notion", i),
			Sources: []knowledge.Citation{{SourceSHA: benchSHA(i % 50), Span: terms[i] + " is defined here."}}})
	}
	triple := func() knowledge.Triple {
		h, t := terms[rng.Intn(len(terms))], terms[rng.Intn(len(terms))]
		r := benchRelations[rng.Intn(len(benchRelations))]
		return knowledge.Triple{Head: h, Relation: r, Tail: t,
			Sources: []knowledge.Citation{{SourceSHA: benchSHA(rng.Intn(50)), Span: h + " " + r + " " + t}}}
	}
	var triples, counters []knowledge.Triple
	for len(triples) < n {
		triples = append(triples, triple())
	}
	for len(counters) < n/100 {
		counters = append(counters, triple())
	}
	k, err := knowledge.NewKnowledge(concepts, triples, counters...)
	if err != nil {
		tb.Fatal(err)
	}
	return k, terms
}

func benchSHA(i int) string { return fmt.Sprintf("%064x", i+1) }

// benchInputs is a conversation mixing every kind of turn over the store.
func benchInputs(k *knowledge.Knowledge, terms []string) []string {
	ts := k.Triples()
	var out []string
	for i := 0; i < 20; i++ {
		t := ts[(i*977)%len(ts)]
		switch i % 5 {
		case 0:
			out = append(out, "What is "+terms[(i*131)%len(terms)]+"?")
		case 1:
			out = append(out, "What does "+t.Head+" "+spaced(t.Relation)+"?")
		case 2:
			out = append(out, t.Head+" "+spaced(t.Relation)+" "+t.Tail+".")
		case 3:
			out = append(out, t.Head+" "+spaced(t.Relation)+" "+terms[(i*37)%len(terms)]+".")
		default:
			out = append(out, "What is the airspeed of an unladen swallow?")
		}
	}
	return out
}

func spaced(r string) string {
	b := []byte(r)
	for i := range b {
		if b[i] == '_' {
			b[i] = ' '
		}
	}
	return string(b)
}

// BenchmarkTurn10k times one turn against a store of 10,000 triples, with
// the TurnEvent written as JSONL. Conversations are 20 turns long (a fresh
// session every 20 turns), mixing definitions, walks, confirmations,
// ungrounded claims and unknown questions. It reports the median and 99th
// percentile of the per-turn durations it recorded.
func BenchmarkTurn10k(b *testing.B) {
	k, terms := syntheticKnowledge(b, 10000)
	f := newFixture(b, k, func(c *Config) { c.Sink = trace.NewJSONLWriter(io.Discard) })
	inputs := benchInputs(k, terms)
	ctx := context.Background()
	durations := make([]float64, 0, b.N)
	var s *Session
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(inputs) == 0 {
			s = f.rt.NewSession()
		}
		start := time.Now()
		if _, err := s.Turn(ctx, inputs[i%len(inputs)], nil); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, float64(time.Since(start).Nanoseconds()))
	}
	b.StopTimer()
	sort.Float64s(durations)
	b.ReportMetric(stat.Quantile(0.5, stat.Empirical, durations, nil)/1e3, "p50-µs")
	b.ReportMetric(stat.Quantile(0.99, stat.Empirical, durations, nil)/1e3, "p99-µs")
}

// BenchmarkKnowledge10k builds the 10,000-triple store and reports the heap
// it retains.
func BenchmarkKnowledge10k(b *testing.B) {
	var retained uint64
	for i := 0; i < b.N; i++ {
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		k, _ := syntheticKnowledge(b, 10000)
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		retained = after.HeapAlloc - before.HeapAlloc
		goruntime.KeepAlive(k)
	}
	b.ReportMetric(float64(retained)/(1<<20), "MiB-retained/10k-triples")
}
