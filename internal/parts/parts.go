// Package parts runs the contiguous parts of a batch of work side by side,
// for work whose items are independent and whose results are joined in
// order afterwards.
package parts

import "sync"

// Run cuts [0, n) into workers contiguous parts of near-equal length and
// calls do(part, lo, hi) for each, part p covering [lo, hi), every call on
// a goroutine of its own; it returns when all have returned. Parts are
// numbered in order, so results kept by part index join in order. A part
// may be empty (lo == hi) when n is small against workers.
func Run(n, workers int, do func(part, lo, hi int)) {
	workers = max(workers, 1)
	size := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for p := range workers {
		lo, hi := min(p*size, n), min((p+1)*size, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(p, lo, hi)
		}()
	}
	wg.Wait()
}
