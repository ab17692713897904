package packs

import (
	"fmt"
	"testing"

	"formation/internal/testutil"
)

// TestSprintE6IsPrintf holds sprintE6, which formats through strconv, equal
// to printf %.6e.
func TestSprintE6IsPrintf(t *testing.T) {
	for _, v := range testutil.FloatSamples() {
		if got, want := sprintE6(v), fmt.Sprintf("%.6e", v); got != want {
			t.Errorf("sprintE6(%v) = %q, %%.6e %q", v, got, want)
		}
	}
}
