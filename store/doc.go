// Package store is Formation's content-addressed object store: immutable
// objects named by the SHA-256 of their bytes, plus mutable refs updated by
// compare-and-swap. One interface, two backends (filestore for a local
// folder, s3store for an S3 bucket), one conformance suite (storetest) run
// against both.
//
// # Layout
//
// Below the root folder (file://DIR) or the key prefix (s3://bucket/prefix):
//
//	objects/sha256/ab/abcd…   object whose SHA-256 is abcd… (first two hex
//	                          characters as a fan-out folder)
//	refs/<name>               ref, stored as "formation-ref/1 gen=<n>\n"
//	                          followed by the raw value
//
// The file backend also keeps locks/ (one flock file per ref, named by the
// SHA-256 of the ref name) and tmp/ (writes in progress; see
// filestore.Store.RemoveTemp). Listings ignore anything that does not follow
// the layout.
//
// # Objects
//
// Writes are create-only: a second write of the same bytes verifies the
// stored copy and keeps it (an existing copy that no longer hashes to its name
// is reported as ErrCorrupt, never overwritten). Every Get re-hashes. Has does
// not re-hash.
//
// # Refs
//
// SetRef(name, old, value) succeeds only if the ref's current version is old
// ("" means the ref must not exist). Versions are opaque: the SHA-256 of the
// stored envelope on the file backend, the ETag on S3. The envelope's
// generation counter grows on every write, so writing a value back never
// revives an old version (no ABA). A ref name may not also be a folder of
// other refs ("subjects/x/mine" and "subjects/x/mine/y" cannot both exist),
// as with git refs; both backends refuse the second with ErrInvalid.
//
// Names are checked before any key is built: digests are 64 lowercase hex;
// subject ids are [A-Za-z0-9._-]+, at most 255 bytes, never start with '.'
// and never contain ".."; ref names are at least two such segments joined by
// '/', at most 512 bytes, the first one of subjects, index, knowledge, lanes,
// audit, cache, packs or proposals.
//
// # Errors and exit codes
//
// Every error is a *Error whose Kind matches one of the sentinels with
// errors.Is; its ExitCode method (exitcode.Coder) is the one place that maps
// them to Formation's process exit codes:
//
//	ErrNotFound      66  missing input
//	ErrCorrupt       65  input rejected (an object that does not hash to its name)
//	ErrInvalid       65  input rejected (a bad digest, subject id or ref name)
//	ErrPrecondition  75  a compare-and-swap lost a race: re-read and retry
//	ErrUnavailable   75  a timeout, a 5xx reply, a refused connection or
//	                     throttling: the same command, run again, may succeed
//	ErrDenied        77  the server refused the credentials
//	ErrConfig        78  the store is set up wrongly and no retry can help: a
//	                     missing bucket, an endpoint that is not an S3 server,
//	                     a TLS mismatch, missing or malformed credentials, a
//	                     folder that cannot be written
//	anything else     1  internal error (130 when the context was cancelled)
//
// # Opening
//
// Open creates a file:// folder that does not exist yet; OpenExisting never
// creates anything and reports a missing store as ErrNotFound, so commands
// that only read never leave a folder behind. Neither creates an S3 bucket.
package store
