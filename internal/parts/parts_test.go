package parts

import (
	"sync"
	"testing"
)

// Every index of [0, n) falls in exactly one part, parts come in order and
// their lengths differ by at most one part's rounding.
func TestRunCoversEveryIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, workers int }{{0, 3}, {1, 3}, {2, 2}, {10, 3}, {10, 1}, {7, 0}, {4097, 2}} {
		seen := make([]int, c.n)
		var mu sync.Mutex
		bounds := make([][2]int, max(c.workers, 1))
		Run(c.n, c.workers, func(part, lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			bounds[part] = [2]int{lo, hi}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, k := range seen {
			if k != 1 {
				t.Fatalf("n=%d workers=%d: index %d seen %d times", c.n, c.workers, i, k)
			}
		}
		for p := 1; p < len(bounds); p++ {
			if bounds[p][0] != bounds[p-1][1] {
				t.Fatalf("n=%d workers=%d: parts %v not contiguous in order", c.n, c.workers, bounds)
			}
		}
	}
}
