package extracteval

import (
	"context"
	"os"
	"testing"
)

// TestExtraction runs the evaluation and prints its report on standard
// output. It runs only with FORMATION_EVAL_EXTRACTION=1 (make
// eval-extraction); FORMATION_EVAL_EXTRACTION=verbose also lists every
// error of the tuning part.
func TestExtraction(t *testing.T) {
	mode := os.Getenv("FORMATION_EVAL_EXTRACTION")
	if mode == "" {
		t.Skip("set FORMATION_EVAL_EXTRACTION=1 (or verbose) to run the extraction evaluation: make eval-extraction")
	}
	set, err := Load(setDir)
	if err != nil {
		t.Fatal(err)
	}
	report, err := Evaluate(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Write(os.Stdout, mode == "verbose"); err != nil {
		t.Fatal(err)
	}
}
