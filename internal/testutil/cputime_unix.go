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

// MinorFaults is the process's page faults served without I/O so far: on a
// virtual machine each costs several microseconds, so a stage that touches
// fresh memory pays for it in CPU time.
func MinorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
