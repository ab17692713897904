package pipeline_test

import (
	"context"
	"slices"
	"testing"

	"formation/audit"
	"formation/pipeline"
	"formation/stage"
)

// TestRunIndexesBesideCompilation holds the run stage that indexes the set
// beside the compilation to the one that indexes it in the runtime driver,
// after the compilation: the same record, byte for byte, and the same
// audit records.
func TestRunIndexesBesideCompilation(t *testing.T) {
	ctx := context.Background()
	var outputs []string
	var audits [][]string
	for _, beside := range []int{-1, 0} {
		f := originalShapeFixture(t, 300)
		pipeline.SetIndexBeside(f.p, beside)
		for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run} {
			if _, err := st(ctx, microSubject); err != nil {
				t.Fatalf("beside %d: %v", beside, err)
			}
		}
		d, err := f.p.Env.ResolveRef(ctx, microSubject, "run")
		must(t, err)
		outputs = append(outputs, d)
		recs, err := audit.List(ctx, f.p.Env.Store, audit.Filter{Subject: microSubject, Stage: "run"})
		must(t, err)
		var keys []string
		for _, r := range recs {
			keys = append(keys, r.Kind+" "+r.ReasonCode+" "+r.Key+" "+r.Detail)
		}
		audits = append(audits, keys)
	}
	if outputs[0] != outputs[1] {
		t.Fatalf("indexed after the compilation: run %s; beside it: run %s", outputs[0], outputs[1])
	}
	if !slices.Equal(audits[0], audits[1]) {
		t.Fatalf("audit records differ:\n%q\n%q", audits[0], audits[1])
	}
}
