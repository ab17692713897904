package filestore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"formation/store/internal/core"
)

// ObjectInfos lists every stored object with its size and modification
// time, sorted by digest.
func (s *Store) ObjectInfos(ctx context.Context) ([]core.ObjectInfo, error) {
	digests, err := s.ListObjects(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]core.ObjectInfo, 0, len(digests))
	for _, d := range digests {
		fi, err := os.Lstat(s.objectPath(d))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, fsErr("objectinfos", d, err)
		}
		out = append(out, core.ObjectInfo{Digest: d, Size: fi.Size(), ModTime: fi.ModTime()})
	}
	return out, nil
}

// DeleteObject removes an object; a missing one is no error. Only garbage
// collection calls it, holding the store's exclusive lock.
func (s *Store) DeleteObject(ctx context.Context, digest string) error {
	if err := core.CheckDigest("delete", digest); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return core.E("delete", digest, nil, err)
	}
	err := os.Remove(s.objectPath(digest))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return writeErr("delete", digest, err)
	}
	return nil
}

// DeleteRef removes a ref whatever its version, under the ref's lock; a
// missing one is no error. Its callers own the ref (a lock) or hold the
// store's exclusive lock (gc). Folders the ref leaves empty stay: a later
// ref may need them, and listings ignore them.
func (s *Store) DeleteRef(ctx context.Context, name string) error {
	if err := core.ValidRefName(name); err != nil {
		return err
	}
	unlock, err := s.lockRef(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	path := s.refPath(name)
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return core.Errorf("deleteref", name, core.ErrInvalid, "name is a folder of other refs")
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return writeErr("deleteref", name, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return writeErr("deleteref", name, err)
	}
	return nil
}

// Leftovers lists the temp files in tmp/: writes in progress, or left
// behind by writers that were killed.
func (s *Store) Leftovers(ctx context.Context) ([]core.Leftover, error) {
	entries, err := os.ReadDir(s.path("tmp"))
	if err != nil {
		return nil, fsErr("leftovers", "", err)
	}
	var out []core.Leftover
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, core.E("leftovers", "", nil, err)
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		out = append(out, core.Leftover{Kind: core.LeftoverTempFile, Name: filepath.Join(s.path("tmp"), e.Name()),
			Size: info.Size(), Since: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b core.Leftover) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// RemoveLeftover removes a temp file Leftovers listed.
func (s *Store) RemoveLeftover(ctx context.Context, l core.Leftover) error {
	if l.Kind != core.LeftoverTempFile || filepath.Dir(l.Name) != s.path("tmp") ||
		!strings.HasPrefix(filepath.Base(l.Name), tmpPrefix) {
		return core.Errorf("removeleftover", l.Name, core.ErrInvalid, "not a temp file of this store")
	}
	if err := ctx.Err(); err != nil {
		return core.E("removeleftover", l.Name, nil, err)
	}
	if err := os.Remove(l.Name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return writeErr("removeleftover", l.Name, err)
	}
	return nil
}
