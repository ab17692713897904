package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/internal/testutil"
	"formation/packs"
	"formation/pipeline"
	"formation/stage"
	"formation/store"
)

// chainSource writes about n bytes of distinct sentences, the shape
// scripts/source-scale.sh generates: a chain of relations and a definition
// every tenth node.
func chainSource(n int) []byte {
	var b strings.Builder
	rels := []string{"causes", "produces", "precedes", "grounds"}
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Node%d %s node%d.\n", i, rels[i%4], i+1)
		if i%10 == 0 {
			fmt.Fprintf(&b, "Node%d is defined as the %dth node of the chain.\n", i, i)
		}
	}
	return []byte(b.String())
}

// BenchmarkFrontHalf mines, smelts, forges and composes one generated
// Markdown source of FORMATION_SOURCE_KIB KiB (default 256) on a fresh
// store and reports the seconds and the MiB allocated of each stage (the
// steadier figure on a shared machine); run it with -cpuprofile or
// -memprofile to see where the front half spends on a large source.
func BenchmarkFrontHalf(b *testing.B) {
	asCommand(b)
	src := chainSource(sourceKiB(b, 256) << 10)
	for i := 0; i < b.N; i++ {
		p := sourceSubject(b, src)
		for _, st := range []struct {
			name string
			run  func(context.Context, string) (stage.Result, error)
		}{{"mine", p.Mine}, {"smelt", p.Smelt}, {"forge", p.Forge}, {"compose", p.Compose}} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			t0 := time.Now()
			if _, err := st.run(context.Background(), "scale"); err != nil {
				b.Fatalf("%s: %v", st.name, err)
			}
			b.ReportMetric(time.Since(t0).Seconds(), st.name+"_s")
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), st.name+"_alloc_MiB")
		}
		b.ReportMetric(float64(validatedRelations(b, p)), "relations")
	}
}

// sourceKiB is FORMATION_SOURCE_KIB, the size of a generated source in
// KiB, or def when it is unset.
func sourceKiB(b *testing.B, def int) int {
	env := os.Getenv("FORMATION_SOURCE_KIB")
	if env == "" {
		return def
	}
	kib, err := strconv.Atoi(env)
	if err != nil {
		b.Fatal(err)
	}
	return kib
}

// sourceSubject lays out subject "scale" whose one Markdown source is src,
// on a fresh file store.
func sourceSubject(t testing.TB, src []byte) *pipeline.Pipeline {
	t.Helper()
	courses := t.TempDir()
	oneSourceSubject(t, courses, subjectLayout{id: "scale", title: "Source scale test", source: "chain", label: "generated chain", maxFileBytes: 64 << 20}, src)
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	must(t, err)
	w := &audit.Writer{Store: s, Now: func() time.Time { return time.Date(2026, 5, 16, 0, 0, 0, 0, time.UTC) }, CodeVersion: "test"}
	root, err := testutil.ModuleRoot()
	must(t, err)
	return &pipeline.Pipeline{Env: stage.NewEnv(s, w), CoursesDir: courses,
		Packs: packs.Options{Dir: filepath.Join(root, "packs"), AllowUnratifiedSafety: true, AllowUnratifiedIdentity: true}}
}

// validatedRelations is the number of relations forge validated in p's
// subject "scale"; none is a failure.
func validatedRelations(t testing.TB, p *pipeline.Pipeline) int {
	t.Helper()
	ctx := context.Background()
	d, err := p.Env.ResolveRef(ctx, "scale", "forge")
	must(t, err)
	raw, err := p.Env.Store.Get(ctx, d)
	must(t, err)
	vts, err := artifact.Decode[artifact.ValidatedTripleSet](raw)
	must(t, err)
	if len(vts.Relations) == 0 {
		t.Fatal("forge validated no relation of the generated source")
	}
	return len(vts.Relations)
}
