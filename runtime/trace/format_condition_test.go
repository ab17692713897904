package trace

import (
	"fmt"
	"testing"

	"formation/internal/testutil"
)

// TestFormatConditionIsPrintf holds FormatCondition, which formats through
// strconv, equal to printf %.3e for every value but exact zero.
func TestFormatConditionIsPrintf(t *testing.T) {
	for _, v := range testutil.FloatSamples() {
		if v == 0 {
			continue
		}
		if got, want := FormatCondition(v), fmt.Sprintf("%.3e", v); got != want {
			t.Errorf("FormatCondition(%v) = %q, %%.3e %q", v, got, want)
		}
	}
}
