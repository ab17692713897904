//go:build unix

package s3store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"formation/store/internal/core"
)

// Spool files are named spoolPrefix* in the spool folder. Their writer holds
// an exclusive flock(2) on each for as long as it uses it; the kernel drops
// the lock when the writer dies, so a spool file whose lock can be taken
// belongs to nobody. spoolMinAge keeps a file just created, not yet locked,
// out of reach.
const (
	spoolPrefix = "formation-s3-"
	spoolMinAge = time.Minute
)

// spoolFile is a locked spool file in use.
type spoolFile struct{ f *os.File }

func createSpool(dir string) (*spoolFile, error) {
	f, err := os.CreateTemp(dir, spoolPrefix+"*")
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	return &spoolFile{f: f}, nil
}

// remove deletes the file, then lets the lock go with the descriptor.
func (sp *spoolFile) remove() {
	_ = os.Remove(sp.f.Name())
	_ = sp.f.Close()
}

// staleSpools lists the spool files in dir that no live process holds.
func staleSpools(dir string, now time.Time) ([]core.Leftover, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []core.Leftover
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), spoolPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < spoolMinAge {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if held(path) {
			continue
		}
		out = append(out, core.Leftover{Kind: core.LeftoverSpoolFile, Name: path, Size: info.Size(), Since: info.ModTime()})
	}
	return out, nil
}

// held reports whether a live process holds the file's lock.
func held(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true // gone or unreadable: not ours to judge
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// removeStaleSpools deletes the spool files killed processes left behind.
// It is best effort: a folder that cannot be read is left for the first
// PutReader to report.
func (s *Store) removeStaleSpools() {
	stale, err := staleSpools(s.cfg.SpoolDir, time.Now())
	if err != nil {
		return
	}
	for _, l := range stale {
		_ = os.Remove(l.Name)
	}
}
