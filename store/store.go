package store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"formation/store/filestore"
	"formation/store/internal/core"
	"formation/store/s3store"
)

// Store is the object store. Implementations are safe for concurrent use.
type Store interface {
	// Put stores data under its SHA-256 (create-only; storing the same bytes
	// twice is fine) and returns the digest.
	Put(ctx context.Context, data []byte) (string, error)
	// PutReader streams r into the store and returns digest and size; the
	// object becomes visible only once complete.
	PutReader(ctx context.Context, r io.Reader) (digest string, size int64, err error)
	// Get returns the object's bytes after re-hashing them (ErrCorrupt on
	// mismatch).
	Get(ctx context.Context, digest string) ([]byte, error)
	// Has reports whether the object is stored; it does not re-hash.
	Has(ctx context.Context, digest string) (bool, error)
	// GetRef returns the ref's value and an opaque version for SetRef.
	GetRef(ctx context.Context, name string) (value []byte, version string, err error)
	// SetRef writes value only if the ref's current version equals old;
	// old == "" means the ref must not exist yet. It returns the new version,
	// or an error matching ErrPrecondition.
	SetRef(ctx context.Context, name, old string, value []byte) (string, error)
	// ListRefs lists ref names starting with prefix, sorted. The prefix may
	// end at a segment boundary ("subjects/") or inside a segment
	// ("subjects/ab").
	ListRefs(ctx context.Context, prefix string) ([]string, error)
	// ListObjects lists all object digests, sorted.
	ListObjects(ctx context.Context) ([]string, error)
	// String names the store as a URL, never with credentials.
	String() string
}

// Maintainer is what garbage collection, `formation check` and the lock
// protocol need beyond Store. Both backends implement it.
type Maintainer interface {
	Store
	// ObjectInfos lists every object with its size and time, sorted by digest.
	ObjectInfos(ctx context.Context) ([]ObjectInfo, error)
	// DeleteObject removes an object; a missing one is no error. Only gc,
	// holding the store's exclusive lock, calls it.
	DeleteObject(ctx context.Context, digest string) error
	// DeleteRef removes a ref whatever its version; a missing one is no
	// error. Callers own the ref (a lock) or hold the exclusive lock (gc).
	DeleteRef(ctx context.Context, name string) error
	// Leftovers lists what interrupted writes left behind (temp and spool
	// files, incomplete multipart uploads), including writes still running.
	Leftovers(ctx context.Context) ([]Leftover, error)
	// RemoveLeftover removes one listed leftover.
	RemoveLeftover(ctx context.Context, l Leftover) error
}

var (
	_ Maintainer = (*filestore.Store)(nil)
	_ Maintainer = (*s3store.Store)(nil)
)

// ObjectInfo describes a stored object: digest, size and write time.
type ObjectInfo = core.ObjectInfo

// Leftover is something a killed or failed write left behind.
type Leftover = core.Leftover

// Kinds of leftover.
const (
	LeftoverTempFile  = core.LeftoverTempFile
	LeftoverSpoolFile = core.LeftoverSpoolFile
	LeftoverUpload    = core.LeftoverUpload
)

// AsMaintainer returns the maintenance side of a store opened by Open (or
// of anything that embeds one), or an error naming what it is.
func AsMaintainer(s Store) (Maintainer, error) {
	m, ok := s.(Maintainer)
	if !ok {
		return nil, fmt.Errorf("store %s: %T cannot be maintained (no deletes, no leftovers)", s, s)
	}
	return m, nil
}

// Error kinds; match them with errors.Is.
var (
	ErrNotFound     = core.ErrNotFound
	ErrCorrupt      = core.ErrCorrupt
	ErrPrecondition = core.ErrPrecondition
	ErrUnavailable  = core.ErrUnavailable
	ErrInvalid      = core.ErrInvalid
	ErrConfig       = core.ErrConfig
	ErrDenied       = core.ErrDenied
	ErrTooLarge     = core.ErrTooLarge
)

// Error is the concrete type of every store error.
type Error = core.Error

// ValidDigest reports whether s is 64 lowercase hex characters.
func ValidDigest(s string) bool { return core.ValidDigest(s) }

// ValidSubjectID checks a subject id: [A-Za-z0-9._-]+, at most 255 bytes,
// not starting with '.', never containing "..". The error matches ErrInvalid.
func ValidSubjectID(s string) error { return core.ValidSubjectID(s) }

// ValidRefName checks a ref name: two or more slash-separated segments, each
// [A-Za-z0-9._-]+ of at most 255 bytes that does not start with '.' nor
// contain "..", the first one of subjects, index, knowledge, lanes, audit,
// cache, packs, proposals or locks; at most 512 bytes in all. The error matches ErrInvalid.
func ValidRefName(name string) error { return core.ValidRefName(name) }

// ValidRefPrefix checks a ListRefs prefix (see ListRefs).
func ValidRefPrefix(prefix string) error { return core.ValidRefPrefix(prefix) }

// ExitCode is the exit code of a store error (its ExitCode method, the one
// mapping; see the package documentation): 0 for nil, 1 for an error that is
// not a store error.
func ExitCode(err error) int {
	var e *Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.ExitCode()
	}
	return 1
}

// DigestOf returns the lowercase hex SHA-256 of data: the name Put gives it.
func DigestOf(data []byte) string { return core.DigestOf(data) }
