// Package filestore is the local-folder backend of the object store.
//
// Layout under the root folder:
//
//	format                   the store format marker (absent in format 1)
//	objects/sha256/ab/abcd…  immutable objects, read-only files named by digest
//	refs/<name>              ref values in the envelope of store/internal/core
//	locks/ab/<sha256(name)>  one flock(2) lock file per ref, never removed
//	tmp/                     files being written; never visible as objects
//
// Every write goes to a temp file in tmp/, is fsynced, then renamed into place
// and the folder fsynced, so a reader (or a process that survives a crash)
// sees either the old state or the complete new file. Ref updates hold the
// ref's flock while they compare the current version and rename, so
// compare-and-swap holds across goroutines and processes; the lock dies with
// its process, so a killed writer never leaves a ref locked.
package filestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"formation/store/internal/core"
)

const (
	dirPerm    = 0o755
	objectPerm = 0o444
	refPerm    = 0o644
	tmpPrefix  = "w-"
)

// Store is a content-addressed store in a local folder. It is safe for
// concurrent use by several goroutines and several processes.
type Store struct {
	root  string      // absolute, cleaned
	codec *core.Codec // the store format's: how objects are kept at rest
}

// Options tune a store.
type Options struct {
	// MaxObjectSize caps an object's canonical size (writes past it fail
	// with ErrTooLarge, reads of an object expanding past it with
	// ErrCorrupt); 0 means core.DefaultMaxObjectSize.
	MaxObjectSize int64
}

// Open opens (creating if needed) a store rooted at dir. A new store, or an
// empty one without a format marker, gets the marker of the current format.
func Open(dir string) (*Store, error) { return OpenWith(dir, Options{}) }

// OpenWith is Open with options.
func OpenWith(dir string, opts Options) (*Store, error) {
	s, err := root(dir)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{core.ObjectsDir, core.RefsDir, "locks", "tmp"} {
		if err := os.MkdirAll(s.path(sub), dirPerm); err != nil {
			return nil, writeErr("open", s.root, err)
		}
	}
	format, err := core.ResolveFormat(context.Background(), s.String(), marker{s})
	if err != nil {
		return nil, err
	}
	s.codec = core.NewCodec(format, opts.MaxObjectSize)
	return s, nil
}

// OpenExisting opens the store rooted at dir without creating anything: a
// folder that does not exist, or does not hold a store (no objects/ and
// refs/ folders), is ErrNotFound. The folders a write needs (locks/, tmp/)
// are added when they are missing and the folder allows it; when it does
// not, the store still reads, and a write fails then.
//
// An empty store without a format marker gets one, as with Open; in a
// folder that cannot be written it reads as format 1 (it holds nothing to
// read, and a write fails anyway).
func OpenExisting(dir string) (*Store, error) { return OpenExistingWith(dir, Options{}) }

// OpenExistingWith is OpenExisting with options.
func OpenExistingWith(dir string, opts Options) (*Store, error) {
	s, err := root(dir)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{core.ObjectsDir, core.RefsDir} {
		info, err := os.Stat(s.path(sub))
		if err == nil && !info.IsDir() {
			err = syscall.ENOTDIR
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, core.Errorf("open", s.String(), core.ErrNotFound,
				"no store here (no "+sub+"/ folder); commands that write create one")
		}
		if err != nil {
			return nil, fsErr("open", s.String(), err)
		}
	}
	for _, sub := range []string{"locks", "tmp"} {
		_ = os.Mkdir(s.path(sub), dirPerm) // best effort: a read-only store still reads
	}
	format, err := core.ResolveFormat(context.Background(), s.String(), marker{s})
	if errors.Is(err, errReadOnly) {
		format, err = core.Format1, nil
	}
	if err != nil {
		return nil, err
	}
	s.codec = core.NewCodec(format, opts.MaxObjectSize)
	return s, nil
}

func root(dir string) (*Store, error) {
	if dir == "" {
		return nil, core.Errorf("open", dir, core.ErrInvalid, "empty folder name")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, core.E("open", dir, core.ErrInvalid, err)
	}
	return &Store{root: abs}, nil
}

// Dir returns the store's absolute root folder.
func (s *Store) Dir() string { return s.root }

// String returns the store's URL, file:///abs/dir.
func (s *Store) String() string { return "file://" + filepath.ToSlash(s.root) }

// path maps a slash-separated key (already validated) below the root.
func (s *Store) path(key string) string {
	return filepath.Join(s.root, filepath.FromSlash(key))
}

func (s *Store) objectPath(digest string) string { return s.path(core.ObjectKey(digest)) }

func (s *Store) refPath(name string) string { return s.path(core.RefKey(name)) }

// lockPath names a ref's lock file by the hash of the ref name, so lock files
// never collide with each other whatever the names look like.
func (s *Store) lockPath(name string) string {
	sum := sha256.Sum256([]byte(name))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(s.root, "locks", h[:2], h)
}

// Put stores data under its SHA-256 and returns the digest.
func (s *Store) Put(ctx context.Context, data []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", core.E("put", "", nil, err)
	}
	encoded := s.encodeBeside(data)
	digest := core.DigestOf(data)
	if err := s.codec.CheckSize("put", digest, int64(len(data))); err != nil {
		encoded.wait()
		return "", err
	}
	if ok, err := s.verifyIfPresent(digest); err != nil || ok {
		encoded.wait()
		if err != nil {
			return "", err
		}
		return digest, nil
	}
	stored := encoded.bytes()
	tmp, err := s.writeTemp(objectPerm, func(w io.Writer) error {
		_, err := w.Write(stored)
		return err
	})
	if err != nil {
		return "", writeErr("put", digest, err)
	}
	if err := s.publishObject(tmp, digest); err != nil {
		return "", err
	}
	return digest, nil
}

// encoding is an object's compression, made beside Put's hashing of it.
type encoding struct {
	codec *core.Codec
	data  []byte
	done  chan []byte // nil: compress when asked
}

// besideFrom is the size from which Put compresses an object on another
// goroutine while it hashes it, and SetRef hashes a ref on another
// goroutine while it writes it: below it the goroutine costs more than it
// saves.
const besideFrom = 1 << 20

// encodeBeside starts compressing data for storage. A large object
// (besideFrom bytes or more, up to the cap) is compressed on another
// goroutine from now on, while Put hashes it and looks for it (at 10,000
// relations the forge's 6.5 MB output compresses in about 10 ms and hashes
// in 4); one already stored then costs a compression made in vain, beside
// the re-hash that verifies the stored copy. A small one is compressed
// only when its bytes are asked for. Put ends every encoding, with bytes
// or wait, so that no compression outlives it.
func (s *Store) encodeBeside(data []byte) *encoding {
	e := &encoding{codec: s.codec, data: data}
	if len(data) >= besideFrom && int64(len(data)) <= s.codec.MaxObjectSize() {
		e.done = make(chan []byte, 1)
		go func() { e.done <- s.codec.Encode(data) }()
	}
	return e
}

// bytes returns the stored bytes.
func (e *encoding) bytes() []byte {
	if e.done == nil {
		return e.codec.Encode(e.data)
	}
	return <-e.done
}

// wait ends an encoding whose bytes are not needed.
func (e *encoding) wait() {
	if e.done != nil {
		<-e.done
	}
}

// errTooLarge stops a stream past the cap.
var errTooLarge = errors.New("past the cap")

// PutReader streams r into the store and returns its digest and size. The
// object becomes visible only once complete.
func (s *Store) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	h := sha256.New()
	var size int64
	limit := s.codec.MaxObjectSize()
	tmp, err := s.writeTemp(objectPerm, func(w io.Writer) error {
		zw := s.codec.NewWriter(w)
		n, err := io.Copy(io.MultiWriter(zw, h), io.LimitReader(core.CtxReader{Ctx: ctx, R: r}, limit+1))
		size = n
		if err == nil && n > limit {
			err = errTooLarge
		}
		return errors.Join(err, zw.Close())
	})
	var src *core.SourceError
	switch {
	case errors.As(err, &src):
		return "", 0, core.E("putreader", "", nil, src)
	case errors.Is(err, errTooLarge):
		return "", 0, s.codec.CheckSize("putreader", "", size)
	case err != nil:
		return "", 0, writeErr("putreader", "", err)
	}
	digest := hex.EncodeToString(h.Sum(nil))
	ok, err := s.verifyIfPresent(digest)
	if ok || err != nil {
		_ = os.Remove(tmp)
	}
	if err == nil && !ok {
		err = s.publishObject(tmp, digest)
	}
	if err != nil {
		return "", 0, err
	}
	return digest, size, nil
}

// verifyIfPresent reports whether the object already exists intact; an
// existing object whose bytes do not match its name is ErrCorrupt (kept as
// evidence, never overwritten).
func (s *Store) verifyIfPresent(digest string) (bool, error) {
	if _, err := os.Lstat(s.objectPath(digest)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fsErr("put", digest, err)
	}
	if err := s.verify(digest); err != nil {
		return false, err
	}
	return true, nil
}

// verify decodes and re-hashes a stored object without holding it in memory.
func (s *Store) verify(digest string) error {
	f, err := os.Open(s.objectPath(digest))
	if err != nil {
		return fsErr("verify", digest, err)
	}
	defer f.Close()
	if err := s.codec.Verify("verify", digest, f); err != nil {
		return fsErr("verify", digest, err)
	}
	return nil
}

// publishObject renames a finished temp file to the object's name.
func (s *Store) publishObject(tmp, digest string) error {
	final := s.objectPath(digest)
	if err := s.ensureDir(filepath.Dir(final)); err != nil {
		_ = os.Remove(tmp)
		return writeErr("put", digest, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return writeErr("put", digest, err)
	}
	if err := syncDir(filepath.Dir(final)); err != nil {
		return writeErr("put", digest, err)
	}
	return nil
}

// writeTemp creates a temp file in tmp/, lets fill write it, fsyncs it and
// sets its mode. It returns the temp file's path; on error nothing is left.
func (s *Store) writeTemp(perm fs.FileMode, fill func(io.Writer) error) (path string, err error) {
	f, err := os.CreateTemp(s.path("tmp"), tmpPrefix+"*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err = fill(f); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", err
	}
	if err = f.Chmod(perm); err != nil {
		return "", err
	}
	if err = f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// ensureDir creates dir (one level below an existing folder) and, when it
// was created, fsyncs the parent so the new entry survives a crash.
func (s *Store) ensureDir(dir string) error {
	made, err := makeDir(dir)
	if err != nil || !made {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// makeDir makes dir, one level, unless it exists, and reports whether it
// made it. Nothing is synced.
func makeDir(dir string) (made bool, err error) {
	err = os.Mkdir(dir, dirPerm)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Get returns the object's bytes after decoding and re-hashing them.
func (s *Store) Get(ctx context.Context, digest string) ([]byte, error) {
	if err := core.CheckDigest("get", digest); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, core.E("get", digest, nil, err)
	}
	f, err := os.Open(s.objectPath(digest))
	if err != nil {
		return nil, fsErr("get", digest, err)
	}
	defer f.Close()
	var stored int64
	if fi, err := f.Stat(); err == nil {
		stored = fi.Size()
	}
	data, err := s.codec.ReadVerified("get", digest, ctxFile{ctx, f}, stored)
	if err != nil {
		return nil, fsErr("get", digest, err)
	}
	return data, nil
}

// ctxFile is an object's file whose reads stop once ctx ends, so that a
// read no longer wanted (a stage's read-ahead let go on a cache hit) stops
// within a block instead of decompressing and hashing the whole object.
// It keeps the file's ReadAt, with which the codec sizes its buffer.
type ctxFile struct {
	ctx context.Context
	*os.File
}

func (f ctxFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

// Has reports whether an object is stored (without re-hashing it).
func (s *Store) Has(ctx context.Context, digest string) (bool, error) {
	if err := core.CheckDigest("has", digest); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, core.E("has", digest, nil, err)
	}
	fi, err := os.Lstat(s.objectPath(digest))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fsErr("has", digest, err)
	}
	if !fi.Mode().IsRegular() {
		return false, core.Errorf("has", digest, core.ErrCorrupt, "object is not a regular file")
	}
	return true, nil
}

// ListObjects lists the digests of all stored objects, sorted. Files that do
// not follow the layout (strays, temp files) are ignored.
func (s *Store) ListObjects(ctx context.Context) ([]string, error) {
	top := s.path(core.ObjectsDir)
	fans, err := os.ReadDir(top)
	if err != nil {
		return nil, fsErr("listobjects", "", err)
	}
	var out []string
	for _, fan := range fans {
		if err := ctx.Err(); err != nil {
			return nil, core.E("listobjects", "", nil, err)
		}
		if !fan.IsDir() || len(fan.Name()) != 2 {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(top, fan.Name()))
		if err != nil {
			return nil, fsErr("listobjects", "", err)
		}
		for _, e := range entries {
			n := e.Name()
			if e.Type().IsRegular() && core.ValidDigest(n) && n[:2] == fan.Name() {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// fsErr classifies a filesystem error: a missing file is ErrNotFound; a
// folder the process may not use (permissions, a read-only file system) is
// ErrConfig, which no retry fixes; any other failure (full disk, I/O) makes
// the store unavailable, which callers may retry.
func fsErr(op, key string, err error) error {
	var se *core.Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return core.E(op, key, nil, err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return core.E(op, key, core.ErrNotFound, err)
	case notPermitted(err):
		return core.E(op, key, core.ErrConfig, err)
	}
	return core.E(op, key, core.ErrUnavailable, err)
}

// writeErr classifies a failure while writing: a folder the process may not
// write is ErrConfig; whatever else the cause (even a vanished folder), the
// store cannot take writes right now.
func writeErr(op, key string, err error) error {
	var se *core.Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return core.E(op, key, nil, err)
	case notPermitted(err):
		return core.E(op, key, core.ErrConfig, fmt.Errorf("the store folder is not writable: %w", err))
	}
	return core.E(op, key, core.ErrUnavailable, err)
}

// notPermitted reports a permission or read-only file system error.
func notPermitted(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}
