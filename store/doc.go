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
//	format                    the store format marker (see Formats)
//	objects/sha256/ab/abcd…   object whose canonical bytes have the SHA-256
//	                          abcd… (first two hex characters as a fan-out
//	                          folder), in the store format's stored form
//	refs/<name>               ref, stored as "formation-ref/1 gen=<n>\n"
//	                          followed by the raw value
//
// The file backend also keeps locks/ (one flock file per ref, named by the
// SHA-256 of the ref name; not to be confused with the refs under
// refs/locks/ below) and tmp/ (writes in progress, or left by killed
// writers). The S3 backend spools large streams to local files named
// formation-s3-* in the temp folder, each locked by its writer while in use.
// Listings ignore anything that does not follow the layout.
//
// # Maintenance
//
// Both backends also implement Maintainer: object sizes and times, deletes
// of objects and refs, and the leftovers of interrupted writes (temp files,
// spool files whose writer is dead, incomplete multipart uploads). Only
// garbage collection (package storegc) deletes objects, and only while it
// holds the store's exclusive lock: the lock protocol of store/storelock,
// whose lock records are refs under locks/. Every command that writes holds
// a shared lock while it runs; gc takes the exclusive one, so it never
// decides while a writer is between storing an object and naming it.
//
// # Objects
//
// Writes are create-only: a second write of the same bytes verifies the
// stored copy and keeps it (an existing copy that no longer hashes to its name
// is reported as ErrCorrupt, never overwritten). Every Get re-hashes. Has does
// not re-hash.
//
// # Formats
//
// An object is named by the SHA-256 of its canonical bytes, whatever the
// form it is kept in at rest, so digests, seals and cache keys do not
// depend on the store's format. The format marker at the root (the file
// format, or the key prefix/format) says which form that is:
//
//   - Format 2, marker "formation-store/2\n": every object, streamed ones
//     included, is stored as zstd (RFC 8878) frames of its canonical bytes,
//     with a window of at most 8 MiB. A read decompresses as it streams and
//     re-hashes what comes out; stored bytes that are not zstd, do not
//     decompress, ask for a larger window, or decompress to other bytes are
//     ErrCorrupt.
//     A streamed object's frame is followed by a skippable frame (RFC 8878
//     3.1.2, magic number 0x184D2A5E) whose payload is "formation-size/1"
//     and the canonical size as 8 bytes little-endian: a whole read sizes
//     its buffer by it instead of decoding the object once only to count
//     it (a streamed frame cannot declare its size up front). Every zstd
//     decoder skips the frame, so objects written before it existed, and
//     readers that do not know it, are unaffected; a size frame that lies
//     costs at most one allocation bounded as a frame header's declared
//     size is, never a wrong read.
//   - Format 1, no marker: every object is stored as its canonical bytes.
//     Every store written before format 2 existed (by commit 3e253e3, for
//     one) is a format 1 store.
//
// A new store, or an empty one without a marker, gets the format 2 marker
// when it is opened (the file backend) or on its first object operation
// (S3), written create-only so that writers creating a store at once agree.
// A store without a marker that holds any object or ref is format 1 and
// stays so: new writes to it are stored uncompressed, and no store mixes
// forms. (Telling the forms apart object by object would not be safe: a
// format 1 object, a mined file say, may itself start with the zstd magic
// number.) A marker naming another format is ErrConfig: a newer binary
// wrote the store. A format 2 store cannot be read by a binary older than
// format 2.
//
// No store takes an object whose canonical size exceeds the cap, 4 GiB by
// default (ErrTooLarge); a read stops with ErrCorrupt as soon as an object
// decompresses past it, so a hostile or damaged object cannot expand
// without bound. Object sizes listed for maintenance (ObjectInfo) are bytes
// at rest.
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
// audit, cache, packs, proposals or locks.
//
// # S3 in bounded time
//
// Every operation of the S3 backend is a series of attempts. One attempt is
// bounded by FORMATION_S3_TIMEOUT (a Go duration, default 30s): the
// response headers must arrive within it, no connection may stall longer,
// and the attempt as a whole ends there. A transient failure (a timeout, a
// reset or refused connection, a lost reply, a 5xx, throttling) is retried
// after a pause that doubles from 50ms up to 2s, half of it random. No
// attempt starts once FORMATION_S3_RETRY_BUDGET (default 60s) has passed
// since the operation began: a 30-second outage is absorbed, and an
// operation facing a dead endpoint fails with ErrUnavailable (exit 75)
// within TIMEOUT + RETRY_BUDGET. For as long as the budget again, the store
// then fails every further operation at once, so that a command facing a
// dead endpoint does not pay that bound once more for each of its remaining
// operations (its audit record included). Failures no retry can cure (TLS
// against plain http, a certificate that does not verify) are not retried.
//
// A write whose reply is lost may have been applied. Object writes are
// create-only and idempotent: the retry finds the object (412) and verifies
// it. A ref's compare-and-swap is not: its retry fails the condition against
// the write itself. So when an attempt of SetRef ended without a definite
// answer (the server refused it with 503 or 429, or the connection was never
// made, are definite) and a later attempt fails its precondition, SetRef
// reads the ref and compares the stored bytes with the envelope it sent:
// this value at the generation it gave it (1 for a create, the read
// generation plus one for an update). Equal bytes mean the lost write was
// applied; SetRef then succeeds with the ref's current version. Any other
// content means another writer moved the ref after the lost write, and the
// precondition failure stands (UpdateRef then derives again from the new
// value). A writer that read the same version and derived the same value
// would have stored the same bytes; since the two cases leave the store in
// the same state, nothing depends on telling them apart.
//
// # Errors and exit codes
//
// Every error is a *Error whose Kind matches one of the sentinels with
// errors.Is; its ExitCode method (exitcode.Coder) is the one place that maps
// them to Formation's process exit codes:
//
//	ErrNotFound      66  missing input
//	ErrCorrupt       65  input rejected (an object that does not decompress or
//	                     does not hash to its name)
//	ErrInvalid       65  input rejected (a bad digest, subject id or ref name)
//	ErrTooLarge      65  input rejected (an object past the size cap)
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
