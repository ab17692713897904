//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user + system) this process has used so far.
// Benchmarks report it beside wall time because the machines that run them
// are shared: wall time there measures the neighbours as much as the code.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
