//go:build unix

package filestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"formation/store/internal/core"
)

// Backoff bounds while waiting for a ref lock held by someone else.
const (
	lockWaitMin = 200 * time.Microsecond
	lockWaitMax = 20 * time.Millisecond
)

// lockRef takes the ref's exclusive flock, polling so that a cancelled
// context ends the wait. The lock belongs to the open file description, so
// goroutines of one process exclude each other just as processes do, and the
// kernel drops it when its holder dies.
func (s *Store) lockRef(ctx context.Context, name string) (unlock func(), err error) {
	path := s.lockPath(name)
	// The lock's folder is made without syncing its parent, as the lock
	// file is never synced: the flock lives in the kernel and dies with its
	// holder, so nothing of it needs to survive a crash. On a new store the
	// sync cost an fsync of locks/ for most refs of the first run (about
	// 35 ms over a 10,000-relation back half).
	if _, err := makeDir(filepath.Dir(path)); err != nil {
		return nil, writeErr("lock", name, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, refPerm)
	if err != nil {
		return nil, writeErr("lock", name, err)
	}
	wait := lockWaitMin
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, writeErr("lock", name, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, core.E("lock", name, nil, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, lockWaitMax)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
