//go:build !unix

package testutil

import "time"

// ProcessCPU is not measured on this platform: it is 0, and benchmarks then
// report wall time only.
func ProcessCPU() time.Duration { return 0 }

// MinorFaults is not counted on this system.
func MinorFaults() int64 { return 0 }
