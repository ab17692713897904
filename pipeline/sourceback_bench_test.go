package pipeline_test

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"formation/internal/testutil"
	"formation/stage"
)

// BenchmarkSourceBackHalf runs the run and ratify stages on one generated
// Markdown source of FORMATION_SOURCE_KIB KiB (default 1024), mined,
// smelted, forged and composed first outside the figures, and reports each
// stage's wall and CPU seconds and CPU microseconds per validated relation:
// the figure that shows how a stage's cost grows with the subject (compare
// 1 MiB with 8 MiB). With FORMATION_STAGE_PROFILE=PREFIX it writes each
// stage's CPU profile to PREFIX.run and PREFIX.ratify.
func BenchmarkSourceBackHalf(b *testing.B) {
	asCommand(b)
	src := chainSource(sourceKiB(b, 1024) << 10)
	ctx := context.Background()
	for b.Loop() {
		p := sourceSubject(b, src)
		for _, st := range []func(context.Context, string) (stage.Result, error){p.Mine, p.Smelt, p.Forge, p.Compose} {
			if res, err := st(ctx, "scale"); err != nil {
				b.Fatalf("%s: %v", res.Stage, err)
			}
		}
		relations := validatedRelations(b, p)
		b.ReportMetric(float64(relations), "relations")
		for _, st := range []struct {
			name string
			run  func(context.Context, string) (stage.Result, error)
		}{{"run", p.Run}, {"ratify", p.Ratify}} {
			stop := stageProfile(b, st.name)
			t0, c0 := time.Now(), testutil.ProcessCPU()
			if _, err := st.run(ctx, "scale"); err != nil {
				b.Fatalf("%s: %v", st.name, err)
			}
			cpu := testutil.ProcessCPU() - c0
			stop()
			b.ReportMetric(time.Since(t0).Seconds(), st.name+"_s")
			b.ReportMetric(cpu.Seconds(), st.name+"_cpu_s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(relations), st.name+"_cpu_us/relation")
		}
	}
}

// stageProfile starts a CPU profile of one stage when
// FORMATION_STAGE_PROFILE names a path prefix, and returns what stops it.
func stageProfile(b *testing.B, stageName string) (stop func()) {
	prefix := os.Getenv("FORMATION_STAGE_PROFILE")
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(prefix + "." + stageName)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
