package pipeline_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"formation/artifact"
	"formation/internal/exitcode"
	"formation/stage"
	"formation/store"
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

// planFailingStore fails storing any object that is a plan (its canonical
// bytes hold plan_sha256 and steps but no runs): the run stage stores the
// plan while the passes run.
type planFailingStore struct {
	store.Store
	err error
}

func (s planFailingStore) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return "", 0, err
	}
	if bytes.Contains(b, []byte(`"plan_sha256":`)) && bytes.Contains(b, []byte(`"steps":[`)) && !bytes.Contains(b, []byte(`"runs":`)) {
		return "", 0, s.err
	}
	return s.Store.PutReader(ctx, bytes.NewReader(b))
}

// A plan that cannot be stored fails the run stage with the store's error,
// though the passes were under way, and the run's ref does not move.
func TestRunFailsWhenThePlanCannotBeStored(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, syntheticBundle(300))
	for _, st := range []func(context.Context, string) (stage.Result, error){f.p.Forge, f.p.Compose} {
		if _, err := st(ctx, microSubject); err != nil {
			t.Fatal(err)
		}
	}
	lost := errors.New("disk full while storing the plan")
	f.p.Env.Store = planFailingStore{Store: f.p.Env.Store, err: lost}
	if _, err := f.p.Run(ctx, microSubject); !errors.Is(err, lost) {
		t.Fatalf("run with a plan that cannot be stored: %v", err)
	}
	if _, err := f.p.Env.ResolveRef(ctx, microSubject, "run"); exitcode.Of(err) != exitcode.NotFound {
		t.Fatalf("the run ref moved: %v", err)
	}
}
