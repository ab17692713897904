package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"formation/artifact"
	"formation/stage"
)

// The run stage's record and its events object are the same objects for
// any number of jobs, and every step's event is in the events object.
func TestRunRecordSameForAnyJobs(t *testing.T) {
	ctx := context.Background()
	var want string
	for _, jobs := range []int{1, 2, 8} {
		f := newFixture(t, syntheticBundle(300))
		f.p.Jobs = jobs
		for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run} {
			if _, err := st(ctx, microSubject); err != nil {
				t.Fatalf("%d jobs: %v", jobs, err)
			}
		}
		res, err := f.p.Run(ctx, microSubject)
		if err != nil || !res.CacheHit {
			t.Fatalf("%d jobs: rerun hit=%v err=%v", jobs, res.CacheHit, err)
		}
		if jobs == 1 {
			want = res.Output
		} else if res.Output != want {
			t.Fatalf("%d jobs: run record %s, one job's is %s", jobs, res.Output, want)
		}
		rec, err := artifact.Decode[artifact.RunRecord](res.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := f.p.Env.Store.Get(ctx, rec.EventsObject)
		if err != nil {
			t.Fatal(err)
		}
		events, err := artifact.Decode[[][]any](raw)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rec.Runs {
			if len(events[i]) != len(r.Results) || len(r.Results) == 0 {
				t.Fatalf("%d jobs, pass %d: %d events for %d results", jobs, i+1, len(events[i]), len(r.Results))
			}
		}
	}
}

// Ratify reads the plan the run stage stored; should that object be gone,
// it compiles the course again and reaches the same sealed report.
func TestRatifyWithoutThePlanObject(t *testing.T) {
	ctx := context.Background()
	var reports []string
	for _, dropPlan := range []bool{false, true} {
		f := newFixture(t, microCourse())
		for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose, f.p.Run} {
			if _, err := st(ctx, microSubject); err != nil {
				t.Fatal(err)
			}
		}
		if dropPlan {
			runDigest, err := f.p.Env.ResolveRef(ctx, microSubject, "run")
			must(t, err)
			raw, err := f.p.Env.Store.Get(ctx, runDigest)
			must(t, err)
			rec, err := artifact.Decode[artifact.RunRecord](raw)
			must(t, err)
			must(t, os.Remove(filepath.Join(f.storeDir, "objects", "sha256", rec.PlanObject[:2], rec.PlanObject)))
			if ok, err := f.p.Env.Store.Has(ctx, rec.PlanObject); err != nil || ok {
				t.Fatalf("plan object still there: %v %v", ok, err)
			}
		}
		res, err := f.p.Ratify(ctx, microSubject)
		if err != nil {
			t.Fatalf("drop plan %v: %v", dropPlan, err)
		}
		reports = append(reports, res.Output)
	}
	if reports[0] != reports[1] {
		t.Fatalf("reports differ: %s with the stored plan, %s compiled again", reports[0], reports[1])
	}
}
