package storetest

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"formation/store"
)

// testUpdateRef checks the one compare-and-swap helper: creation, no-op
// updates that write nothing, errors passed through, and 8 goroutines adding
// to one counter through it with no update lost.
func (s *suite) testUpdateRef(t *testing.T) {
	st, ctx := s.open(t), t.Context()
	const ref = "cache/storetest/update"
	v, changed, err := store.UpdateRef(ctx, st, ref, func(old []byte, exists bool) ([]byte, error) {
		if exists || old != nil {
			t.Errorf("first update sees exists=%v old=%q", exists, old)
		}
		return []byte("0"), nil
	})
	if err != nil || !changed || string(v) != "0" {
		t.Fatalf("create: %q %v %v", v, changed, err)
	}
	_, ver1, _ := st.GetRef(ctx, ref)
	for _, same := range []store.UpdateFunc{
		func(old []byte, _ bool) ([]byte, error) { return old, nil },
		func([]byte, bool) ([]byte, error) { return nil, store.ErrNoChange },
	} {
		if v, changed, err := store.UpdateRef(ctx, st, ref, same); err != nil || changed || string(v) != "0" {
			t.Fatalf("no-op update: %q %v %v", v, changed, err)
		}
	}
	if _, ver2, _ := st.GetRef(ctx, ref); ver2 != ver1 {
		t.Fatalf("a no-op update rewrote the ref (version %q → %q)", ver1, ver2)
	}
	boom := errors.New("boom")
	if _, _, err := store.UpdateRef(ctx, st, ref, func([]byte, bool) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("update error not passed through: %v", err)
	}
	const workers, each = 8, 6
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, _, err := store.UpdateRef(ctx, st, ref, func(old []byte, _ bool) ([]byte, error) {
					n, err := strconv.Atoi(string(old))
					return []byte(strconv.Itoa(n + 1)), err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent update: %v", err)
	}
	if got, _, err := st.GetRef(ctx, ref); err != nil || string(got) != strconv.Itoa(workers*each) {
		t.Fatalf("counter = %q (%v), want %d: an update was lost", got, err, workers*each)
	}
}
