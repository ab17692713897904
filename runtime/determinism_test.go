package runtime

import (
	"bytes"
	"context"
	"reflect"
	goruntime "runtime"
	"slices"
	"sync"
	"testing"

	"formation/runtime/trace"
)

// conversation runs the 20 mixed inputs through a fresh session of rt and
// returns the trace hashes.
func conversation(rt *Runtime) []string {
	s := rt.NewSession()
	var hashes []string
	for _, in := range mixedInputs {
		r, _ := s.Turn(context.Background(), in, nil)
		hashes = append(hashes, r.TraceHash)
	}
	return hashes
}

// logged runs the conversation on a fresh runtime whose sink is a JSONL
// buffer and returns the hashes and the event log.
func logged(t *testing.T) ([]string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	f := newFixture(t, nil, func(c *Config) { c.Sink = trace.NewJSONLWriter(&buf) })
	return conversation(f.rt), buf.Bytes()
}

// A 20-turn conversation replayed twice, and under GOMAXPROCS 1 and 8, and in
// eight concurrent sessions over one runtime, yields identical trace hashes;
// the event logs are byte-identical too.
func TestReplayDeterminism(t *testing.T) {
	if len(mixedInputs) != 20 {
		t.Fatalf("the conversation has %d turns, want 20", len(mixedInputs))
	}
	want, wantLog := logged(t)
	if slices.Contains(want, "") || bytes.Count(wantLog, []byte("\n")) != 20 {
		t.Fatal("a turn has no trace hash or no event")
	}
	prev := goruntime.GOMAXPROCS(0)
	defer goruntime.GOMAXPROCS(prev)
	for _, procs := range []int{1, 8, prev} {
		goruntime.GOMAXPROCS(procs)
		for rep := 0; rep < 2; rep++ {
			got, log := logged(t)
			if !slices.Equal(got, want) || !bytes.Equal(log, wantLog) {
				t.Fatalf("GOMAXPROCS=%d replay %d: hashes or event log differ", procs, rep)
			}
		}
	}
	f := newFixture(t, nil, func(c *Config) { c.Sink = nil })
	var wg sync.WaitGroup
	results := make([][]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = conversation(f.rt)
		}()
	}
	wg.Wait()
	for i, got := range results {
		if !slices.Equal(got, want) {
			t.Fatalf("concurrent session %d: hashes differ", i)
		}
	}
}

// Every turn of the conversation hashes differently from the others, so the
// replay comparison above is not comparing constants.
func TestTraceHashesAreDistinct(t *testing.T) {
	hashes, _ := logged(t)
	seen := map[string]int{}
	for i, h := range hashes {
		if j, dup := seen[h]; dup {
			t.Fatalf("turns %d and %d share trace hash %s", j, i, h)
		}
		seen[h] = i
	}
}

// A runtime with brief verdicts answers the conversation as one without:
// the same responses but for the verdicts' per-boundary results, and a
// byte-identical event log.
func TestBriefVerdictsChangeOnlyTheResults(t *testing.T) {
	run := func(brief bool) ([]ChatResponse, []byte) {
		var buf bytes.Buffer
		f := newFixture(t, nil, func(c *Config) { c.Sink = trace.NewJSONLWriter(&buf); c.BriefVerdicts = brief })
		s := f.rt.NewSession()
		var out []ChatResponse
		for _, in := range mixedInputs {
			r, _ := s.Turn(context.Background(), in, nil)
			out = append(out, r)
		}
		return out, buf.Bytes()
	}
	full, fullLog := run(false)
	brief, briefLog := run(true)
	if !bytes.Equal(fullLog, briefLog) {
		t.Fatal("the event logs differ")
	}
	checked := 0
	for i := range full {
		if len(full[i].SafetyVerdict.Results) == 0 || len(brief[i].SafetyVerdict.Results) != 0 {
			t.Fatalf("turn %d: %d results in the full verdict, %d in the brief one", i,
				len(full[i].SafetyVerdict.Results), len(brief[i].SafetyVerdict.Results))
		}
		checked += full[i].SafetyVerdict.RuntimeCheckableCount
		full[i].SafetyVerdict.Results = brief[i].SafetyVerdict.Results
		if !reflect.DeepEqual(full[i], brief[i]) {
			t.Fatalf("turn %d (%q): responses differ beyond the results:\nfull  %+v\nbrief %+v", i, mixedInputs[i], full[i], brief[i])
		}
	}
	if checked == 0 {
		t.Fatal("no boundary was checked in any turn")
	}
}
