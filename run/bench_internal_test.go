package run

import (
	"context"
	"path/filepath"
	"testing"

	"formation/artifact"
	"formation/compose"
	"formation/compose/fixtures"
	"formation/internal/testutil"
	"formation/packs"
	"formation/run/compile"
	"formation/runtime"
	"formation/runtime/knowledge"
)

// BenchmarkStep10k times one step of a pass as a worker and the recorder
// take it: the shim's fresh session and turn, the user-path reading, the
// event's encoding and the step's record. The plan is the synthetic
// subject of 10,000 relations, composed and compiled. The steps taken are
// a thousand spread evenly over the plan, so that any multiple of 1000
// iterations weighs every kind of step as the plan does; replay assertions
// are left out (the runner observes those).
func BenchmarkStep10k(b *testing.B) {
	in := fixtures.Synthetic(10000)
	course, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
	if err != nil {
		b.Fatal(err)
	}
	plan, err := compile.Compile(course, y)
	if err != nil {
		b.Fatal(err)
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	loaded, err := packs.Load(context.Background(), packs.Options{Dir: filepath.Join(root, "packs"),
		AllowUnratifiedSafety: true, AllowUnratifiedIdentity: true})
	if err != nil {
		b.Fatal(err)
	}
	k, err := knowledge.FromVTS(in.VTS)
	if err != nil {
		b.Fatal(err)
	}
	step, _, err := passStep(k, counterSet(in.VTS), loaded, nil, runtime.NewRotorMemo())
	if err != nil {
		b.Fatal(err)
	}
	var all []int
	for i, s := range plan.Steps {
		if s.StepType != artifact.StepReplayAssertion {
			all = append(all, i)
		}
	}
	steps := make([]int, 1000)
	for j := range steps {
		steps[j] = all[j*len(all)/len(steps)]
	}
	r := Runner{Steps: []StepFunc{step}, Event: func([]byte) error { return nil }}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		i := steps[n%len(steps)]
		p := Pass{Output: artifact.RunOutput{Results: make([]artifact.StepResult, 0, 1)}}
		out := r.drive(ctx, step, i, plan.Steps[i], nil)
		if halted, err := r.record(&p, i, plan.Steps[i], out); halted || err != nil {
			b.Fatalf("step %d: halted=%v err=%v", i, halted, err)
		}
	}
}
