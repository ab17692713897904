//go:build unix

package forge

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used. The
// benchmark reports it beside wall time because the machines that run it
// are shared: wall time there measures the neighbours as much as the code.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
