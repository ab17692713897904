//go:build unix

package smelting

import (
	"syscall"
	"time"
)

// processCPU is the user plus system CPU time of this process so far. The
// benchmark reports throughput per CPU second beside the wall-clock figure,
// because on a shared machine wall time also measures the neighbours.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
