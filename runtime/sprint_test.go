package runtime

import (
	"fmt"
	"testing"

	"formation/internal/testutil"
)

// TestSprintF6IsPrintf holds sprintF6, which formats through strconv, equal
// to printf %.6f.
func TestSprintF6IsPrintf(t *testing.T) {
	for _, v := range testutil.FloatSamples() {
		if got, want := sprintF6(v), fmt.Sprintf("%.6f", v); got != want {
			t.Errorf("sprintF6(%v) = %q, %%.6f %q", v, got, want)
		}
	}
}
