package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"formation/store/internal/core"
)

// CAS retry policy, the one every ref update of the module follows (see
// UpdateRef): at most MaxCASAttempts reads-and-writes, with a pause before
// each retry that doubles from casBaseDelay up to casMaxDelay, plus up to as
// much again of random jitter so that writers who collided do not collide
// again in step. A writer still losing after that gives up with an error
// that matches ErrPrecondition (exit 75: running the command again may win).
const (
	MaxCASAttempts = 16
	casBaseDelay   = time.Millisecond
	casMaxDelay    = 100 * time.Millisecond
)

// ErrNoChange, returned by an update function, leaves the ref as it is:
// UpdateRef then returns the current value with changed == false.
var ErrNoChange = errors.New("store: no change")

// UpdateFunc derives a ref's new value from its current one. exists is
// false (and old nil) when the ref does not exist yet. It may be called
// several times, once per attempt, and must derive the value from old alone.
type UpdateFunc func(old []byte, exists bool) ([]byte, error)

// UpdateRef moves the ref name to the value update derives from its current
// value, by compare-and-swap, re-reading and re-deriving after every lost
// race (the policy above). A value equal to the current one is not written.
// It returns the value the ref holds afterwards and whether this call wrote
// it. An error from update (other than ErrNoChange) is returned as is.
func UpdateRef(ctx context.Context, s Store, name string, update UpdateFunc) (value []byte, changed bool, err error) {
	for attempt := 0; attempt < MaxCASAttempts; attempt++ {
		if attempt > 0 {
			if err := casPause(ctx, attempt); err != nil {
				return nil, false, err
			}
		}
		old, version, err := s.GetRef(ctx, name)
		exists := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, false, fmt.Errorf("update %s: %w", name, err)
		}
		if !exists {
			old, version = nil, ""
		}
		next, err := update(old, exists)
		if errors.Is(err, ErrNoChange) || err == nil && exists && bytes.Equal(next, old) {
			return old, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if _, err = s.SetRef(ctx, name, version, next); err == nil {
			return next, true, nil
		} else if !errors.Is(err, ErrPrecondition) {
			return nil, false, fmt.Errorf("update %s: %w", name, err)
		}
	}
	return nil, false, core.Errorf("update ref", name, ErrPrecondition,
		fmt.Sprintf("lost the compare-and-swap race %d times; run the command again", MaxCASAttempts))
}

// SetRefValue points name at value whatever it held before (a last-writer-
// wins move through UpdateRef, for refs such as "latest output" pointers).
func SetRefValue(ctx context.Context, s Store, name string, value []byte) error {
	_, _, err := UpdateRef(ctx, s, name, func([]byte, bool) ([]byte, error) { return value, nil })
	return err
}

// CreateRef writes a ref that must not exist yet. It reports whether this
// call created it; an existing ref is left untouched (created == false).
func CreateRef(ctx context.Context, s Store, name string, value []byte) (created bool, err error) {
	_, err = s.SetRef(ctx, name, "", value)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrPrecondition):
		return false, nil
	}
	return false, fmt.Errorf("create %s: %w", name, err)
}

// casPause waits before retry attempt n (1-based), or until ctx ends.
func casPause(ctx context.Context, n int) error {
	d := casBaseDelay << min(n-1, 10)
	if d > casMaxDelay {
		d = casMaxDelay
	}
	d += rand.N(d + 1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
