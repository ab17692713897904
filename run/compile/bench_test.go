package compile_test

import (
	"strconv"
	"testing"
	"time"

	"formation/compose"
	"formation/compose/fixtures"
	"formation/internal/testutil"
	"formation/run/compile"
)

// BenchmarkComposeCompile composes a synthetic definition-template course of
// n relations and compiles it. Besides time and allocations per operation it
// reports the process CPU time (wall time is unreliable on a shared
// machine), each half's wall share and the wall cost per relation, whose
// growth across sizes shows the scaling.
func BenchmarkComposeCompile(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		in := fixtures.Synthetic(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			var composeTime, compileTime time.Duration
			var yamlBytes, steps int
			cpu0 := testutil.ProcessCPU()
			for b.Loop() {
				t0 := time.Now()
				course, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				plan, err := compile.Compile(course, y)
				if err != nil {
					b.Fatal(err)
				}
				composeTime += t1.Sub(t0)
				compileTime += time.Since(t1)
				yamlBytes, steps = len(y), len(plan.Steps)
			}
			ops := float64(b.N)
			b.ReportMetric(float64((testutil.ProcessCPU()-cpu0).Nanoseconds())/ops, "cpu-ns/op")
			b.ReportMetric(float64(composeTime.Nanoseconds())/ops, "compose-ns/op")
			b.ReportMetric(float64(compileTime.Nanoseconds())/ops, "compile-ns/op")
			b.ReportMetric(float64((composeTime+compileTime).Nanoseconds())/ops/float64(n), "ns/relation")
			b.ReportMetric(float64(yamlBytes), "yaml-bytes")
			b.ReportMetric(float64(steps), "steps")
		})
	}
}

// BenchmarkCompile compiles a synthetic definition-template course of n
// relations composed once beforehand, so its time, CPU and allocation
// figures are the compile's alone.
func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			in := fixtures.Synthetic(n)
			course, y, err := compose.Compose(in.VTS, in.Spec, in.SourceBundleSHA, in.TemplateID, in.TemplateVersion)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(y)))
			cpu0 := testutil.ProcessCPU()
			for b.Loop() {
				if _, err := compile.Compile(course, y); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((testutil.ProcessCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
