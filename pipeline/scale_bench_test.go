package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/internal/gcpace"
	"formation/stage"
)

// syntheticBundle is a subject of n relations over a chain of terms (so walks
// are long), n/10 concepts and n/100 counter-claims, cited from the curated
// source of the fixture.
func syntheticBundle(n int) artifact.SmeltedBundle {
	src := []artifact.SourceRef{{SourceSHA: sha1x, Span: "synthetic span", Adapter: "curated", RetrievedAt: "2026-05-16T00:00:00Z"}}
	term := func(i int) string { return "term" + strconv.Itoa(i) }
	b := artifact.SmeltedBundle{}
	rels := []string{"causes", "produces", "precedes", "grounds"}
	for i := 0; i < n; i++ {
		b.Relations = append(b.Relations, artifact.RelationCandidate{Head: term(i), Relation: rels[i%len(rels)], Tail: term(i + 1), Sources: src, State: artifact.StateProposed})
	}
	for i := 0; i < n/10+1; i++ {
		b.Concepts = append(b.Concepts, artifact.ConceptCandidate{CanonicalTerm: term(i * 10), Definition: "definition of " + term(i*10), Sources: src, State: artifact.StateProposed})
	}
	for i := 0; i < n/100+1; i++ {
		b.Counters = append(b.Counters, artifact.CounterCandidate{Head: term(i * 100), Relation: "causes", Tail: "nothing" + strconv.Itoa(i), Sources: src, State: artifact.StateProposed})
	}
	return b
}

// BenchmarkBackHalf runs forge, compose, run and ratify on synthetic subjects
// and reports the seconds each stage took; then a second pass over the same
// inputs (all cache hits) and its share of the first. Sizes come from
// FORMATION_SCALE (comma-separated; default 1000), the run stage's pool from
// FORMATION_JOBS (default: every CPU). scripts/bench.sh runs one size per
// process to read peak memory.
func BenchmarkBackHalf(b *testing.B) {
	sizes := []int{1000}
	if env := os.Getenv("FORMATION_SCALE"); env != "" {
		sizes = nil
		for _, f := range splitComma(env) {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	asCommand(b)
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchBackHalf(b, n)
			}
		})
	}
}

// asCommand paces the collector for the rest of tb as the formation
// command paces it (gcpace, started by cli.Main): a stage-level benchmark
// stands for the command's stages.
func asCommand(tb testing.TB) {
	tb.Cleanup(gcpace.Start(gcpace.DefaultHeadroom))
}

func benchBackHalf(b *testing.B, n int) {
	ctx := context.Background()
	f := newFixtureTB(b, syntheticBundle(n))
	if env := os.Getenv("FORMATION_JOBS"); env != "" {
		jobs, err := strconv.Atoi(env)
		if err != nil {
			b.Fatal(err)
		}
		f.p.Jobs = jobs
	}
	stages := []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run, f.p.Ratify}
	names := []string{"forge", "compose", "run", "ratify"}
	start := time.Now()
	for i, st := range stages {
		t0 := time.Now()
		stop := func() {}
		if path := os.Getenv("FORMATION_PEAK_HEAP_PROFILE"); path != "" {
			stop = profileHeapPeaks(b, path+"."+names[i])
		}
		res, err := st(ctx, microSubject)
		stop()
		if err != nil {
			b.Fatalf("%s: %v", names[i], err)
		}
		b.Logf("%d relations, jobs %d: %s output %s", n, f.p.Jobs, names[i], res.Output)
		res.Bytes = nil
		stage.CollectBetweenStages() // between stages, as autorun does
		b.ReportMetric(time.Since(t0).Seconds(), names[i]+"_s")
		if mib := peakRSSMiB(); mib > 0 {
			b.ReportMetric(float64(mib), names[i]+"_rss_hwm_MiB")
		}
	}
	first := time.Since(start)
	t1 := time.Now()
	for i, st := range stages {
		t0 := time.Now()
		res, err := st(ctx, microSubject)
		if err != nil || !res.CacheHit {
			b.Fatalf("second %s: hit=%v err=%v", names[i], res.CacheHit, err)
		}
		b.ReportMetric(time.Since(t0).Seconds(), names[i]+"_hit_s")
	}
	second := time.Since(t1)
	b.ReportMetric(first.Seconds(), "first_s")
	b.ReportMetric(second.Seconds(), "rerun_s")
	b.ReportMetric(100*second.Seconds()/first.Seconds(), "rerun_%")
}

// profileHeapPeaks (FORMATION_PEAK_HEAP_PROFILE=PREFIX: one profile per
// stage, PREFIX.forge and so on) writes a heap profile to path each time the live heap
// (as the last collection marked it) reaches a new high, so that the profile left
// behind shows what was live at the peak. It collects first, so that the
// previous stage's garbage is not counted as this one's, and logs the live
// heap it starts from. It returns the function that stops it.
func profileHeapPeaks(b *testing.B, path string) (stop func()) {
	runtime.GC()
	start := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(start)
	b.Logf("%s: live heap %d MB at the start", filepath.Base(path), start[0].Value.Uint64()>>20)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var peak uint64
		defer func() { b.Logf("%s: live heap peak %d MB", filepath.Base(path), peak>>20) }()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > peak {
				peak = live
				f, err := os.Create(path)
				if err != nil {
					b.Error(err)
					return
				}
				if err := pprof.WriteHeapProfile(f); err != nil {
					b.Error(err)
				}
				f.Close()
			}
		}
	}()
	return func() { close(done); <-finished }
}

// peakRSSMiB is the process's peak resident set size so far (VmHWM), or 0
// where /proc does not say: read after each stage, it shows which stage set
// the process's peak.
func peakRSSMiB() int {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				return 0
			}
			return kb >> 10
		}
	}
	return 0
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// BenchmarkRatifyStage measures the ratify stage alone on the synthetic
// subject of FORMATION_SCALE relations (one size; default 1000). With
// FORMATION_BENCH_DIR set, forge, compose and run write their outputs there
// once and later processes reuse them, so that ratify's peak memory can be
// read in a process of its own. Every iteration ratifies under a fresh
// issued_at (from FORMATION_BENCH_ISSUED_AT on, or the clock), so none is a
// cache hit; the report's digest is logged.
func BenchmarkRatifyStage(b *testing.B) {
	asCommand(b)
	ctx := context.Background()
	n := 1000
	if env := os.Getenv("FORMATION_SCALE"); env != "" {
		var err error
		if n, err = strconv.Atoi(env); err != nil {
			b.Fatal(err)
		}
	}
	courses, storeDir := b.TempDir(), b.TempDir()
	if dir := os.Getenv("FORMATION_BENCH_DIR"); dir != "" {
		courses, storeDir = filepath.Join(dir, "courses"), filepath.Join(dir, "store")
		must(b, os.MkdirAll(storeDir, 0o755))
	}
	f := newFixtureIn(b, syntheticBundle(n), courses, storeDir)
	if _, err := f.p.Env.ResolveRef(ctx, microSubject, "run"); err != nil {
		for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run} {
			if _, err := st(ctx, microSubject); err != nil {
				b.Fatal(err)
			}
		}
	}
	base := time.Now().UTC().Truncate(time.Second)
	if at := os.Getenv("FORMATION_BENCH_ISSUED_AT"); at != "" { // to compare reports across builds
		var err error
		if base, err = time.Parse("2006-01-02T15:04:05Z", at); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.p.IssuedAt = base.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05Z")
		res, err := f.p.Ratify(ctx, microSubject)
		if err != nil || res.CacheHit {
			b.Fatalf("ratify: hit=%v err=%v", res.CacheHit, err)
		}
		b.Logf("ratify %s: report %s", f.p.IssuedAt, res.Output)
	}
	b.ReportMetric(float64(n), "relations")
}
