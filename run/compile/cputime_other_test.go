//go:build !unix

package compile_test

import "time"

// cpuTime is unavailable here; the benchmark then reports 0 CPU time.
func cpuTime() time.Duration { return 0 }
