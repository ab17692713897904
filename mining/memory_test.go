package mining

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"formation/courses"
)

// hashingWriter hashes what it is given and keeps nothing: it measures the
// miner's own memory, not a store's.
type hashingWriter struct{ objects atomic.Int64 }

func (w *hashingWriter) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, err
	}
	w.objects.Add(1)
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// write100k lays out a subject with one folder source holding n small
// documents (a third each of text, Markdown and HTML), 1,000 per folder.
func write100k(tb testing.TB, n int) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "big")
	for i := range n {
		sub := filepath.Join(dir, "corpus", fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		var name, body string
		switch i % 3 {
		case 0:
			name, body = fmt.Sprintf("f%06d.txt", i), fmt.Sprintf("Item %d causes effect %d. Effect %d is a state.\n", i, i+1, i+1)
		case 1:
			name, body = fmt.Sprintf("f%06d.md", i), fmt.Sprintf("# Item %d\n\nItem %d is a *thing*. Heat produces light.\n", i, i)
		default:
			name, body = fmt.Sprintf("f%06d.html", i), fmt.Sprintf("<h1>Item %d</h1><p>Item %d produces <b>light</b>.</p>", i, i)
		}
		if err := os.WriteFile(filepath.Join(sub, name), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	yaml := "subject_id: big\ntitle: Big\ntemplate: definition\nretrieved_at: 2026-05-16T00:00:00Z\nsources:\n  - id: corpus\n    adapter: folder\n    path: corpus\n"
	if err := os.WriteFile(filepath.Join(dir, courses.SubjectFile), []byte(yaml), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// peakSampler records the highest heap in use (runtime.MemStats) while it
// runs; the kernel's peak RSS (VmHWM) is read separately.
type peakSampler struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func startSampler() *peakSampler {
	s := &peakSampler{stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			s.peak = max(s.peak, ms.HeapInuse+ms.StackInuse)
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *peakSampler) finish() uint64 {
	close(s.stop)
	s.done.Wait()
	return s.peak
}

// peakRSS reads VmHWM from /proc/self/status (Linux); 0 elsewhere.
func peakRSS() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// mine100k mines the generated subject once and returns the peak heap and
// the bundle's entry count.
func mine100k(tb testing.TB, dir string) (uint64, int) {
	tb.Helper()
	subj, err := courses.Load(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	s := startSampler()
	res, err := Mine(context.Background(), subj, &hashingWriter{}, Options{})
	peak := s.finish()
	if err != nil {
		tb.Fatal(err)
	}
	return peak, len(res.Bundle.Entries)
}

// TestMine100kMemory is the measured "100,000 small files under 300 MB"
// check. It takes a while, so it runs only with FORMATION_MINE_100K=1.
func TestMine100kMemory(t *testing.T) {
	if os.Getenv("FORMATION_MINE_100K") != "1" {
		t.Skip("set FORMATION_MINE_100K=1 to mine 100,000 generated files and measure peak memory")
	}
	const n = 100_000
	dir := write100k(t, n)
	start := time.Now()
	peakHeap, entries := mine100k(t, dir)
	elapsed := time.Since(start)
	rss := peakRSS()
	t.Logf("mined %d files in %v with %d workers: peak heap %.1f MB, peak RSS %.1f MB",
		entries, elapsed.Round(time.Millisecond), runtime.NumCPU(), float64(peakHeap)/(1<<20), float64(rss)/(1<<20))
	if entries != n {
		t.Fatalf("%d entries, want %d", entries, n)
	}
	if rss > 300<<20 || peakHeap > 300<<20 {
		t.Fatalf("peak memory above 300 MB")
	}
}

// BenchmarkMine100k mines 100,000 generated small files per iteration and
// reports the peak heap and the process's peak RSS.
func BenchmarkMine100k(b *testing.B) {
	dir := write100k(b, 100_000)
	b.ResetTimer()
	var peak uint64
	for range b.N {
		p, _ := mine100k(b, dir)
		peak = max(peak, p)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
}
