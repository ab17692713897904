package filestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"formation/store/internal/core"
)

// GetRef returns a ref's value and its version (the SHA-256 of the stored
// envelope, which changes with every write).
func (s *Store) GetRef(ctx context.Context, name string) ([]byte, string, error) {
	if err := core.ValidRefName(name); err != nil {
		return nil, "", err
	}
	if err := ctx.Err(); err != nil {
		return nil, "", core.E("getref", name, nil, err)
	}
	raw, err := os.ReadFile(s.refPath(name))
	if errors.Is(err, syscall.EISDIR) {
		return nil, "", core.Errorf("getref", name, core.ErrNotFound, "name is a folder of other refs")
	}
	if err != nil {
		return nil, "", fsErr("getref", name, err)
	}
	_, value, err := core.DecodeRef(raw)
	if err != nil {
		return nil, "", core.E("getref", name, core.ErrCorrupt, err)
	}
	return value, version(raw), nil
}

func version(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// SetRef writes value if the ref's current version equals old ("" = the ref
// must not exist yet) and returns the new version.
func (s *Store) SetRef(ctx context.Context, name, old string, value []byte) (string, error) {
	if err := core.ValidRefName(name); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", core.E("setref", name, nil, err)
	}
	if old == "" {
		return s.createRef(ctx, name, value)
	}
	unlock, err := s.lockRef(ctx, name)
	if err != nil {
		return "", err
	}
	defer unlock()
	gen, err := s.nextGen(name, old)
	if err != nil {
		return "", err
	}
	// The header and the value are written and hashed one after the other:
	// an audit batch of several megabytes is not copied behind its header.
	head := core.AppendRefHeader(nil, gen)
	version := versionBeside(head, value)
	if err := s.writeRef(name, head, value); err != nil {
		<-version
		return "", err
	}
	return <-version, nil
}

// versionBeside hashes a ref's header and value into its version, a large
// value (an audit batch of several megabytes) on another goroutine, so
// that the hash is done while writeRef waits on the disk.
func versionBeside(head, value []byte) <-chan string {
	out := make(chan string, 1)
	hash := func() {
		h := sha256.New()
		h.Write(head)
		h.Write(value)
		out <- hex.EncodeToString(h.Sum(nil))
	}
	if len(value) < besideFrom {
		hash()
	} else {
		go hash()
	}
	return out
}

// nextGen checks the precondition under the lock and returns the generation
// the new value gets.
func (s *Store) nextGen(name, old string) (uint64, error) {
	raw, err := os.ReadFile(s.refPath(name))
	switch {
	case errors.Is(err, syscall.EISDIR):
		return 0, core.Errorf("setref", name, core.ErrInvalid, "name is a folder of other refs")
	case errors.Is(err, syscall.ENOTDIR):
		return 0, core.Errorf("setref", name, core.ErrInvalid, "a leading part of the name is itself a ref")
	case errors.Is(err, fs.ErrNotExist):
		if old != "" {
			return 0, core.Errorf("setref", name, core.ErrPrecondition, "ref does not exist")
		}
		return 1, nil
	case err != nil:
		return 0, fsErr("setref", name, err)
	}
	if old == "" {
		return 0, core.Errorf("setref", name, core.ErrPrecondition, "ref already exists")
	}
	if version(raw) != old {
		return 0, core.Errorf("setref", name, core.ErrPrecondition, "ref changed since version was read")
	}
	gen, _, err := core.DecodeRef(raw)
	if err != nil {
		return 0, core.E("setref", name, core.ErrCorrupt, err)
	}
	if gen == math.MaxUint64 {
		return 0, core.Errorf("setref", name, core.ErrCorrupt, "generation counter exhausted")
	}
	return gen + 1, nil
}

// createRef is SetRef of a ref that must not exist yet. Its generation is
// 1 whatever happens, so its file is written and synced in tmp/ (and its
// version hashed) while the ref's lock is taken and its folders are made,
// which on a new store are writes that wait on the disk as well; only the
// check that the ref is absent and the rename wait for the lock. Errors
// come in SetRef's order (lock, precondition, folders, file), and the file
// of a create that fails is removed. An audit batch of megabytes is
// created so, as is every ref the first time it is written.
func (s *Store) createRef(ctx context.Context, name string, value []byte) (string, error) {
	head := core.AppendRefHeader(nil, 1)
	version := versionBeside(head, value)
	type temp struct {
		path string
		err  error
	}
	written := make(chan temp, 1)
	go func() {
		path, err := s.writeTemp(refPerm, writeAll(head, value))
		written <- temp{path, err}
	}()
	unlock, err := s.lockRef(ctx, name)
	if err == nil {
		defer unlock()
		if _, err = s.nextGen(name, ""); err == nil {
			err = s.ensureRefDirs(name)
		}
	}
	t := <-written
	if err == nil && t.err != nil {
		err = writeErr("setref", name, t.err)
	}
	if err == nil {
		err = s.placeRef(name, t.path)
	} else if t.err == nil {
		_ = os.Remove(t.path)
	}
	v := <-version
	if err != nil {
		return "", err
	}
	return v, nil
}

// writeAll returns a fill function for writeTemp that writes raw's parts.
func writeAll(raw ...[]byte) func(io.Writer) error {
	return func(w io.Writer) error {
		for _, b := range raw {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeRef replaces the ref file atomically. The caller holds the lock.
func (s *Store) writeRef(name string, raw ...[]byte) error {
	if err := s.ensureRefDirs(name); err != nil {
		return err
	}
	tmp, err := s.writeTemp(refPerm, writeAll(raw...))
	if err != nil {
		return writeErr("setref", name, err)
	}
	return s.placeRef(name, tmp)
}

// placeRef renames a written and synced temp file to the ref's name and
// syncs the folder. The caller holds the lock and has made the folders.
func (s *Store) placeRef(name, tmp string) error {
	final := s.refPath(name)
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return writeErr("setref", name, err)
	}
	if err := syncDir(filepath.Dir(final)); err != nil {
		return writeErr("setref", name, err)
	}
	return nil
}

// ensureRefDirs creates the folders above a ref, one level at a time so each
// new folder's entry is fsynced. A segment that is already a ref file means
// the name would nest under another ref, which the layout cannot hold.
func (s *Store) ensureRefDirs(name string) error {
	segs := strings.Split(name, "/")
	dir := s.path(core.RefsDir)
	for _, seg := range segs[:len(segs)-1] {
		dir = filepath.Join(dir, seg)
		err := s.ensureDir(dir)
		if errors.Is(err, syscall.ENOTDIR) {
			return core.Errorf("setref", name, core.ErrInvalid, "a leading part of the name is itself a ref")
		}
		if err != nil {
			return writeErr("setref", name, err)
		}
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return core.Errorf("setref", name, core.ErrInvalid, "a leading part of the name is itself a ref")
		}
	}
	return nil
}

// ListRefs lists ref names starting with prefix, sorted. The prefix may end
// inside a segment ("subjects/ab" matches "subjects/abc/mine").
func (s *Store) ListRefs(ctx context.Context, prefix string) ([]string, error) {
	if err := core.ValidRefPrefix(prefix); err != nil {
		return nil, err
	}
	base := s.path(core.RefsDir)
	refsRoot := base
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		base = filepath.Join(base, filepath.FromSlash(prefix[:i]))
	}
	var out []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(refsRoot, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if strings.HasPrefix(name, prefix) && core.ValidRefName(name) == nil {
			out = append(out, name)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, fsErr("listrefs", prefix, err)
	}
	slices.Sort(out)
	return out, nil
}
