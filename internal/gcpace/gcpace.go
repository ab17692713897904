// Package gcpace paces the garbage collector of a batch process: the heap
// may grow by at least a fixed headroom between two collections, so that a
// stage whose live heap is small is not collected each time a few tens of
// megabytes of short-lived garbage have piled up, while a heap larger than
// the headroom is collected exactly as the runtime's default (GOGC=100)
// would collect it.
//
// The default goal is twice the live heap. A stage at 10,000 relations
// keeps 40–80 MB live and allocates several hundred megabytes around it,
// so it collected every 40–80 MB: 12 collections for the back half. With a
// headroom H the goal is max(2 × live, live + H). What this costs is
// bounded by H, and only a heap smaller than H pays it; the peak of a large
// subject, which is what a memory budget is set against, is where it was.
//
// An explicit setting wins: with GOGC or GOMEMLIMIT in the environment,
// Start does nothing.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// DefaultHeadroom is the least the heap may grow between two collections:
// at 10,000 relations it halves the back half's collections (12 → 6) and
// the collector's CPU (0.21 → 0.11 s).
const DefaultHeadroom = 128 << 20

// The runtime/metrics names read: the heap the last collection found
// live, and the GOGC in force.
const (
	liveMetric = "/gc/heap/live:bytes"
	gogcMetric = "/gc/gogc:percent"
)

// Start paces the collector with the given headroom, in bytes, until the
// returned stop is called; stop restores the GOGC in force before. With
// GOGC or GOMEMLIMIT set in the environment, or a headroom of 0, Start
// changes nothing and stop does nothing.
func Start(headroom uint64) (stop func()) {
	if headroom == 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	before := readPercent()
	p := &pacer{headroom: headroom, percent: before}
	p.live[0].Name = liveMetric
	p.arm()
	return func() {
		if p.stopped.CompareAndSwap(false, true) {
			debug.SetGCPercent(before)
		}
	}
}

// pacer is one Start's state. Its cleanup runs once after each
// collection, always on the runtime's one cleanup goroutine, so only the
// stopped flag is shared with stop.
type pacer struct {
	headroom uint64
	percent  int
	live     [1]metrics.Sample
	stopped  atomic.Bool
}

// arm asks to be called after the next collection: the object allocated
// here is unreachable as soon as arm returns, and its cleanup runs once a
// collection has found that. It is 32 bytes, past the tiny allocator,
// whose shared blocks could keep it reachable.
func (p *pacer) arm() {
	runtime.AddCleanup(new([32]byte), (*pacer).collected, p)
}

// collected sets GOGC from the live heap the collection just measured,
// then asks to be called after the next one.
func (p *pacer) collected() {
	if p.stopped.Load() {
		return
	}
	metrics.Read(p.live[:])
	if live := p.live[0].Value.Uint64(); live > 0 {
		if pct := percentFor(live, p.headroom); pct != p.percent {
			p.percent = pct
			debug.SetGCPercent(pct)
		}
	}
	p.arm()
}

// heapMinimum is the runtime's least goal at GOGC=100 (4 MiB), which it
// scales with GOGC.
const heapMinimum = 4 << 20

// percentFor is the GOGC whose goal is max(2 × live, live + headroom),
// never below 100 (the pacer never collects more often than the default).
// It is capped where the runtime's least goal, 4 MiB × GOGC/100, reaches
// the headroom: past it a heap of a megabyte or two, as at a command's
// start, would be let grow to several times the headroom (at GOGC=10000,
// 400 MB) before its next collection.
func percentFor(live, headroom uint64) int {
	pct := math.Ceil(float64(headroom) * 100 / float64(live))
	limit := math.Floor(float64(headroom) * 100 / heapMinimum)
	return int(max(100, min(pct, limit)))
}

// readPercent is the GOGC in force.
func readPercent() int {
	s := []metrics.Sample{{Name: gogcMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100
	}
	return int(s[0].Value.Uint64())
}
