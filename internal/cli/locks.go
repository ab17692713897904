package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"formation/internal/exitcode"
	"formation/store"
	"formation/store/storelock"
)

// writerLockWait is how long a writing command waits for a running gc
// (whose exclusive lock keeps writers out) before it gives up with exit 75.
const writerLockWait = 30 * time.Minute

// metaLocks is the App.Metadata key of the locks a command holds.
const metaLocks = "formation/locks"

// heldLocks are the store locks of one command, released when it ends.
type heldLocks struct {
	mu    sync.Mutex
	locks []*storelock.Lock
	lost  error
}

// locksOf returns the app's held locks, making room for them in an app
// that NewApp did not build.
func locksOf(app *cli.App) *heldLocks {
	if h, ok := app.Metadata[metaLocks].(*heldLocks); ok {
		return h
	}
	h := &heldLocks{}
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[metaLocks] = h
	return h
}

// openWriteStore opens the store for a command that writes objects or
// moves refs: it takes a shared lock (store/storelock) that it holds until
// the command ends, so that gc never runs beside it. Should the lock be lost
// (not refreshed in time, or removed as stale), the command's context is
// cancelled and the command exits 75.
func openWriteStore(c *cli.Context) (store.Store, error) {
	s, err := createStore(c)
	if err != nil {
		return nil, err
	}
	m, err := store.AsMaintainer(s)
	if err != nil {
		return nil, exitcode.With(exitcode.Internal, err)
	}
	h := locksOf(c.App)
	ctx, cancel := context.WithCancelCause(c.Context)
	lock, err := storelock.Acquire(c.Context, m, storelock.Shared, storelock.Options{
		Owner: "formation " + c.Command.FullName(), Wait: writerLockWait,
		OnLost: func(err error) {
			h.mu.Lock()
			h.lost = err
			h.mu.Unlock()
			cancel(err)
		}})
	if err != nil {
		cancel(nil)
		return nil, err
	}
	c.Context = ctx
	h.mu.Lock()
	h.locks = append(h.locks, lock)
	h.mu.Unlock()
	return s, nil
}

// releaseLocks releases every lock the command took (App.After).
func releaseLocks(c *cli.Context) error {
	h := locksOf(c.App)
	h.mu.Lock()
	locks := h.locks
	h.locks = nil
	h.mu.Unlock()
	var errs []error
	for _, l := range locks {
		errs = append(errs, l.Release(context.Background()))
	}
	return errors.Join(errs...)
}

// lockLost turns the failure of a command whose lock was lost into exit 75.
func lockLost(app *cli.App, err error) error {
	if err == nil {
		return nil
	}
	h := locksOf(app)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == nil {
		return err
	}
	return exitcode.With(exitcode.Unavailable, fmt.Errorf("%w (%v)", h.lost, err))
}
