//go:build !unix

package pipeline_test

import "time"

// cpuTime is unavailable here; the benchmarks then report 0 CPU time.
func cpuTime() time.Duration { return 0 }
