package store

import (
	"context"
	"errors"
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

var (
	_ Store = (*filestore.Store)(nil)
	_ Store = (*s3store.Store)(nil)
)

// Error kinds; match them with errors.Is.
var (
	ErrNotFound     = core.ErrNotFound
	ErrCorrupt      = core.ErrCorrupt
	ErrPrecondition = core.ErrPrecondition
	ErrUnavailable  = core.ErrUnavailable
	ErrInvalid      = core.ErrInvalid
	ErrConfig       = core.ErrConfig
	ErrDenied       = core.ErrDenied
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
// cache, packs or proposals; at most 512 bytes in all. The error matches ErrInvalid.
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
