//go:build unix

package pipeline_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system CPU time. Benchmarks report it
// beside wall time because the shared build machine's load distorts the
// latter.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
