package storelock_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/internal/testutil"
	"formation/store"
	"formation/store/storelock"
)

// backends runs f on a fresh file store and on a fresh prefix of the real S3
// server.
func backends(t *testing.T, f func(t *testing.T, m store.Maintainer)) {
	t.Run("file", func(t *testing.T) { f(t, open(t, "file://"+t.TempDir())) })
	t.Run("s3", func(t *testing.T) {
		srv := testutil.StartS3(t)
		srv.SetEnv(t)
		f(t, open(t, "s3://"+srv.Bucket+"/locks-test"))
	})
}

func open(t *testing.T, url string) store.Maintainer {
	t.Helper()
	s, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	m, err := store.AsMaintainer(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func acquire(t *testing.T, m store.Maintainer, kind storelock.Kind, wait time.Duration) *storelock.Lock {
	t.Helper()
	l, err := storelock.Acquire(t.Context(), m, kind, storelock.Options{Owner: "test " + string(kind), Wait: wait})
	if err != nil {
		t.Fatalf("Acquire(%s): %v", kind, err)
	}
	return l
}

func wantLocked(t *testing.T, err error, holder string) {
	t.Helper()
	var le *storelock.LockedError
	if !errors.As(err, &le) || exitcode.Of(err) != exitcode.Unavailable || len(le.Holders) == 0 ||
		holder != "" && !contains(le.Holders, holder) {
		t.Fatalf("err = %v, want a LockedError (exit 75) naming %s", err, holder)
	}
}

func contains(holders []string, name string) bool {
	for _, h := range holders {
		if len(h) >= len(name) && h[:len(name)] == name {
			return true
		}
	}
	return false
}

func TestSharedAndExclusive(t *testing.T) {
	backends(t, func(t *testing.T, m store.Maintainer) {
		ctx := t.Context()
		s1 := acquire(t, m, storelock.Shared, 0)
		s2 := acquire(t, m, storelock.Shared, 0) // shared locks coexist
		_, err := storelock.Acquire(ctx, m, storelock.Exclusive, storelock.Options{Wait: 200 * time.Millisecond})
		wantLocked(t, err, s1.Name())
		must(t, s1.Release(ctx))
		must(t, s2.Release(ctx))
		x := acquire(t, m, storelock.Exclusive, 0)
		_, err = storelock.Acquire(ctx, m, storelock.Shared, storelock.Options{Wait: 200 * time.Millisecond})
		wantLocked(t, err, x.Name())
		go func() {
			time.Sleep(300 * time.Millisecond)
			_ = x.Release(context.Background())
		}()
		s3 := acquire(t, m, storelock.Shared, 10*time.Second) // waits for gc to finish
		must(t, s3.Release(ctx))
		if names, _ := m.ListRefs(ctx, storelock.Prefix); len(names) != 0 {
			t.Fatalf("locks left after every release: %v", names)
		}
	})
}

// TestWaitingExclusiveKeepsWritersOut: a gc waiting for a writer keeps its
// lock, so new writers wait behind it instead of starving it.
func TestWaitingExclusiveKeepsWritersOut(t *testing.T) {
	backends(t, func(t *testing.T, m store.Maintainer) {
		ctx := t.Context()
		s1 := acquire(t, m, storelock.Shared, 0)
		got := make(chan error, 1)
		go func() {
			x, err := storelock.Acquire(ctx, m, storelock.Exclusive, storelock.Options{Wait: 20 * time.Second})
			if err == nil {
				err = x.Release(ctx)
			}
			got <- err
		}()
		waitFor(t, func() bool {
			live, _ := storelock.Live(ctx, m, storelock.StaleAfter, time.Now)
			return len(live) == 2
		})
		_, err := storelock.Acquire(ctx, m, storelock.Shared, storelock.Options{Wait: 300 * time.Millisecond})
		wantLocked(t, err, storelock.Prefix+"exclusive-")
		must(t, s1.Release(ctx))
		must(t, <-got)
	})
}

// TestStaleLocksIgnored: a lock nobody refreshed for StaleAfter, or one that
// cannot be read, blocks nobody.
func TestStaleLocksIgnored(t *testing.T) {
	backends(t, func(t *testing.T, m store.Maintainer) {
		ctx := t.Context()
		old := time.Now().Add(-time.Hour).UTC()
		body, _ := canon.Marshal(storelock.Record{Kind: storelock.Shared, Owner: "killed autorun", Host: "h", PID: 1,
			Created: old.Format(time.RFC3339), Refreshed: old.Format(time.RFC3339Nano)})
		_, err := m.SetRef(ctx, "locks/shared-0000000000000000001-dead", "", body)
		must(t, err)
		_, err = m.SetRef(ctx, "locks/shared-0000000000000000002-junk", "", []byte("not a lock"))
		must(t, err)
		x := acquire(t, m, storelock.Exclusive, 0)
		all, err := storelock.List(ctx, m, storelock.StaleAfter, time.Now)
		must(t, err)
		stale := 0
		for _, i := range all {
			if i.Stale {
				stale++
			}
		}
		if len(all) != 3 || stale != 2 {
			t.Fatalf("locks = %+v, want 3 of which 2 stale", all)
		}
		must(t, x.Release(ctx))
	})
}

// TestRefreshAndLoss: a held lock is refreshed; removed behind its holder's
// back, it is reported lost.
func TestRefreshAndLoss(t *testing.T) {
	backends(t, func(t *testing.T, m store.Maintainer) {
		ctx := t.Context()
		lost := make(chan error, 1)
		l, err := storelock.Acquire(ctx, m, storelock.Shared, storelock.Options{Owner: "t",
			RefreshEvery: 50 * time.Millisecond, StaleAfter: time.Second, OnLost: func(err error) { lost <- err }})
		must(t, err)
		first := refreshed(t, m, l.Name())
		waitFor(t, func() bool { return refreshed(t, m, l.Name()) != first })
		must(t, m.DeleteRef(ctx, l.Name()))
		select {
		case err := <-lost:
			if !errors.Is(err, storelock.ErrLost) {
				t.Fatalf("lost with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a removed lock was not reported lost")
		}
		must(t, l.Release(ctx))
	})
}

func refreshed(t *testing.T, m store.Maintainer, name string) string {
	val, _, err := m.GetRef(context.Background(), name)
	if err != nil {
		return ""
	}
	var rec storelock.Record
	must(t, canon.Unmarshal(val, &rec))
	return rec.Refreshed
}

// TestMutualExclusion: writers and collectors hammer the protocol; at no
// moment does a collector hold its lock while anyone else holds one.
func TestMutualExclusion(t *testing.T) {
	backends(t, func(t *testing.T, m store.Maintainer) {
		var writers, collectors atomic.Int64
		var violations atomic.Int64
		var wg sync.WaitGroup
		run := func(kind storelock.Kind, rounds int) {
			defer wg.Done()
			for range rounds {
				l, err := storelock.Acquire(t.Context(), m, kind, storelock.Options{Owner: string(kind), Wait: time.Minute})
				if err != nil {
					t.Error(err)
					return
				}
				if kind == storelock.Shared {
					writers.Add(1)
					if collectors.Load() != 0 {
						violations.Add(1)
					}
				} else if collectors.Add(1) != 1 || writers.Load() != 0 {
					violations.Add(1)
				}
				time.Sleep(5 * time.Millisecond)
				if kind == storelock.Shared {
					writers.Add(-1)
				} else {
					collectors.Add(-1)
				}
				must(t, l.Release(t.Context()))
			}
		}
		for i := range 6 {
			wg.Add(1)
			kind := storelock.Shared
			if i >= 4 {
				kind = storelock.Exclusive
			}
			go run(kind, 8)
		}
		wg.Wait()
		if n := violations.Load(); n != 0 {
			t.Fatalf("%d times a collector ran beside another lock holder", n)
		}
		if names, _ := m.ListRefs(t.Context(), storelock.Prefix); len(names) != 0 {
			t.Fatalf("locks left: %v", names)
		}
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 200 {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("condition never held")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
