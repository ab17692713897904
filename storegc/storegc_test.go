package storegc_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"formation/artifact"
	"formation/canon"
	"formation/internal/exitcode"
	"formation/store"
	"formation/storegc"
)

// world is a small store: a subject's current mine output and its latest
// cache record, an older record with the bundle and source only it reaches,
// and an object nothing names.
type world struct {
	s                               store.Store
	source, bundle, oldSrc, oldBund string
	orphan                          string
}

func put(t *testing.T, s store.Store, v any) string {
	t.Helper()
	b, err := artifact.Encode(v)
	must(t, err)
	d, err := s.Put(context.Background(), b)
	must(t, err)
	return d
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func record(t *testing.T, s store.Store, name, key, output string) {
	t.Helper()
	body, err := canon.Marshal(map[string]any{"key": key, "output": output,
		"ingredients": map[string]any{"stage": "mine", "subject": "x", "inputs": []string{}}})
	must(t, err)
	_, err = s.SetRef(context.Background(), name, "", body)
	must(t, err)
}

func newWorld(t *testing.T) world {
	s, err := store.Open(context.Background(), "file://"+t.TempDir())
	must(t, err)
	ctx := context.Background()
	w := world{s: s}
	w.source, _ = s.Put(ctx, []byte("light travels in straight lines"))
	w.oldSrc, _ = s.Put(ctx, []byte("light travels"))
	w.orphan, _ = s.Put(ctx, []byte("nobody names me"))
	bundle := func(src string) string {
		return put(t, s, artifact.OreBundle{SubjectID: "x", SchemaVersion: "1.0.0",
			Entries: []artifact.OreEntry{{SourceSHA: src, URL: "u", Adapter: "file", RetrievedAt: "t", Citation: "c"}}})
	}
	w.bundle, w.oldBund = bundle(w.source), bundle(w.oldSrc)
	must(t, store.SetRefValue(ctx, s, "subjects/x/mine", []byte(w.bundle)))
	record(t, s, "cache/last/x/mine", "k1", w.bundle)
	record(t, s, "cache/mine/k1", "k1", w.bundle)
	record(t, s, "cache/mine/k0", "k0", w.oldBund)
	return w
}

func (w world) objects(t *testing.T) []string {
	l, err := w.s.ListObjects(context.Background())
	must(t, err)
	return l
}

func TestCollect(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	all := w.objects(t)

	// A dry run reports and changes nothing.
	dry, err := storegc.Collect(ctx, w.s, storegc.Options{DryRun: true})
	must(t, err)
	if dry.ObjectsDeleted != 3 || !slices.Equal(dry.RefsDeleted, []string{"cache/mine/k0"}) || !slices.Equal(w.objects(t), all) {
		t.Fatalf("dry run: %+v", dry)
	}
	// Every object is younger than an hour: none goes, though the old
	// action record (a ref, which has no age) does.
	rep, err := storegc.Collect(ctx, w.s, storegc.Options{Grace: time.Hour})
	must(t, err)
	if rep.ObjectsDeleted != 0 || rep.WithinGrace != 3 || !slices.Equal(w.objects(t), all) ||
		!slices.Equal(rep.RefsDeleted, []string{"cache/mine/k0"}) {
		t.Fatalf("within the grace: %+v", rep)
	}
	rep, err = storegc.Collect(ctx, w.s, storegc.Options{})
	must(t, err)
	want := []string{w.bundle, w.source}
	slices.Sort(want)
	if got := w.objects(t); !slices.Equal(got, want) || rep.ObjectsKept != 2 || rep.ObjectsDeleted != 3 {
		t.Fatalf("after gc: %v (%+v), want only the current bundle and its source", got, rep)
	}
	names, err := w.s.ListRefs(ctx, "")
	must(t, err)
	if !slices.Equal(names, []string{"cache/last/x/mine", "cache/mine/k1", "subjects/x/mine"}) {
		t.Fatalf("refs after gc: %v", names)
	}
	if locks, _ := w.s.ListRefs(ctx, "locks/"); len(locks) != 0 {
		t.Fatalf("gc left its lock: %v", locks)
	}
}

// TestCollectRefuses: a root naming an object gc cannot read as its kind
// stops gc before any delete.
func TestCollectRefuses(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	must(t, store.SetRefValue(ctx, w.s, "subjects/x/compose", []byte(w.source))) // bytes where a Course belongs
	before := w.objects(t)
	_, err := storegc.Collect(ctx, w.s, storegc.Options{})
	var refused *storegc.RefusedError
	if !errors.As(err, &refused) || refused.Reason != storegc.ReasonUndecodableObject || exitcode.Of(err) != exitcode.Rejected {
		t.Fatalf("gc over an unreadable course: %v", err)
	}
	if !slices.Equal(w.objects(t), before) {
		t.Fatal("gc deleted objects before refusing")
	}
}
