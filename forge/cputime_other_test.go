//go:build !unix

package forge

import "time"

// processCPU is not measured on this platform; the benchmark then reports
// wall time only.
func processCPU() time.Duration { return 0 }
