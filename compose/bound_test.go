package compose

import (
	"strconv"
	"testing"

	"formation/runtime/algebra"
)

// Every course declares the closure bound as the string "1.0e-6", whose
// bytes the conformance vectors pin. It must read back as exactly the bound
// the runtime, the run stage and ratify enforce, so a change to either the
// wire text or algebra.ClosureBound without the other fails here.
func TestMaxVersorConditionIsTheClosureBound(t *testing.T) {
	if maxVersorCondition != "1.0e-6" {
		t.Fatalf("the wire text changed to %q; the conformance vectors pin \"1.0e-6\"", maxVersorCondition)
	}
	v, err := strconv.ParseFloat(maxVersorCondition, 64)
	if err != nil || v != algebra.ClosureBound {
		t.Fatalf("max_versor_condition %q reads as %v (%v), the closure bound is %v", maxVersorCondition, v, err, algebra.ClosureBound)
	}
}
