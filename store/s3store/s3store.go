// Package s3store is the S3 backend of the object store (minio-go v7).
//
// Keys below the configured prefix follow the same layout as the file
// backend: format, objects/sha256/ab/abcd… and refs/<name>. The format is
// settled on the first object operation (core.ResolveFormat), since New
// does not contact the server. Objects are written with
// If-None-Match: * (create-only); a 412 means the object is already there,
// which is fine once the existing bytes are verified. Refs are stored in the
// envelope of store/internal/core (a generation counter ahead of the value, so
// no two writes store the same bytes and the ETag never repeats) and updated
// with If-Match: <etag>, or created with If-None-Match: *.
//
// Every operation runs in bounded time (retry.go): each attempt has a
// deadline (Config.Timeout), transient failures are retried with jittered
// exponential backoff within a retry budget (Config.RetryBudget), and a
// conditional write whose reply was lost recognises its own applied write
// by value (SetRef).
package s3store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"formation/store/internal/core"
)

// Defaults for the zero values of Config.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultRetryBudget  = 60 * time.Second
	defaultMemoryLimit  = 8 << 20
	defaultMaxSinglePut = 5 << 30
	defaultPartSize     = 64 << 20
	minPartSize         = 5 << 20
)

// Config says how to reach a bucket. Credentials are used for signing only
// and never appear in String or in errors.
type Config struct {
	Endpoint     string // host[:port]
	Secure       bool   // https when true
	AccessKey    string // empty: use the AWS credentials file or instance role
	SecretKey    string
	SessionToken string
	Region       string // empty: ask the server
	Bucket       string
	Prefix       string // key prefix without leading or trailing slash; may be empty

	// Timeout bounds one attempt of one operation (for a multipart upload,
	// one request): the response headers must arrive within it, and no
	// connection may stall longer. 0 means DefaultTimeout.
	Timeout time.Duration
	// RetryBudget is how long one operation may go on retrying transient
	// failures; no attempt starts after it. 0 means DefaultRetryBudget;
	// negative means one attempt only.
	RetryBudget time.Duration

	MemoryLimit  int    // PutReader buffers this much before spilling to a temp file; 0 means 8 MiB
	SpoolDir     string // folder for PutReader's temp files; empty means os.TempDir()
	MaxSinglePut int64  // larger objects go up as a conditional multipart upload; 0 means 5 GiB
	PartSize     int64  // multipart part size; 0 means 64 MiB, at least 5 MiB

	// MaxObjectSize caps an object's canonical size (writes past it fail
	// with ErrTooLarge, reads of an object expanding past it with
	// ErrCorrupt); 0 means core.DefaultMaxObjectSize.
	MaxObjectSize int64
}

// Store is a content-addressed store in an S3 bucket.
type Store struct {
	cfg    Config
	client *minio.Client
	creds  *credentials.Credentials

	probe    sync.Mutex // guards probed and bucketOK (checkNotFound)
	probed   bool
	bucketOK bool
	gaveUp   *latch

	fmtMu sync.Mutex  // guards codec (codecFor)
	codec *core.Codec // nil until the store's format is settled
}

// New returns a store for cfg. It does not contact the server: the first
// operation reports an unreachable endpoint or a missing bucket. It removes
// the spool files that earlier, killed processes left in the spool folder.
func New(cfg Config) (*Store, error) {
	cfg = withDefaults(cfg)
	if cfg.Bucket == "" || cfg.Endpoint == "" {
		return nil, core.Errorf("open", "s3://"+cfg.Bucket, core.ErrInvalid, "bucket and endpoint are required")
	}
	c := creds(cfg)
	tr, err := newTransport(cfg.Secure, cfg.Timeout)
	if err != nil {
		return nil, core.E("open", "s3://"+cfg.Bucket, core.ErrInvalid, err)
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:     c,
		Secure:    cfg.Secure,
		Region:    cfg.Region,
		Transport: tr,
		// One try per request: the store's own policy (retry.go) retries,
		// within a budget, and knows which attempts may have been applied.
		MaxRetries: 1,
	})
	if err != nil {
		return nil, core.E("open", "s3://"+cfg.Bucket, core.ErrInvalid, err)
	}
	s := &Store{cfg: cfg, client: client, creds: c, gaveUp: &latch{}}
	s.removeStaleSpools()
	return s, nil
}

func withDefaults(cfg Config) Config {
	cfg.Prefix = strings.Trim(cfg.Prefix, "/")
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.RetryBudget == 0:
		cfg.RetryBudget = DefaultRetryBudget
	case cfg.RetryBudget < 0:
		cfg.RetryBudget = 0
	}
	if cfg.MemoryLimit <= 0 {
		cfg.MemoryLimit = defaultMemoryLimit
	}
	if cfg.MaxSinglePut <= 0 {
		cfg.MaxSinglePut = defaultMaxSinglePut
	}
	if cfg.PartSize <= 0 {
		cfg.PartSize = defaultPartSize
	}
	cfg.PartSize = max(cfg.PartSize, minPartSize)
	if cfg.SpoolDir == "" {
		cfg.SpoolDir = os.TempDir()
	}
	return cfg
}

func creds(cfg Config) *credentials.Credentials {
	if cfg.AccessKey != "" {
		return credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	}
	return credentials.NewChainCredentials([]credentials.Provider{
		&credentials.FileAWSCredentials{},
		&credentials.IAM{},
	})
}

// String returns s3://bucket/prefix.
func (s *Store) String() string {
	u := "s3://" + s.cfg.Bucket
	if s.cfg.Prefix != "" {
		u += "/" + s.cfg.Prefix
	}
	return u
}

// Client exposes the underlying minio client and the bucket, for maintenance
// tools and tests that must reach objects without the store's checks.
func (s *Store) Client() (*minio.Client, string) { return s.client, s.cfg.Bucket }

// Key returns the full object key for a layout key (objects/…, refs/…).
func (s *Store) Key(layoutKey string) string {
	if s.cfg.Prefix == "" {
		return layoutKey
	}
	return s.cfg.Prefix + "/" + layoutKey
}

// Put stores data under its SHA-256 and returns the digest.
func (s *Store) Put(ctx context.Context, data []byte) (string, error) {
	digest := core.DigestOf(data)
	c, err := s.codecFor(ctx)
	if err != nil {
		return "", err
	}
	if err := c.CheckSize("put", digest, int64(len(data))); err != nil {
		return "", err
	}
	stored := c.Encode(data)
	err = s.putObject(ctx, digest, bytes.NewReader(stored), int64(len(stored)))
	if err != nil {
		return "", err
	}
	return digest, nil
}

// putObject uploads size stored bytes from r under digest, create-only. The
// bytes must already be the object's stored form. A retried upload whose first attempt was
// applied finds the object there (412) and verifies it like any other copy.
func (s *Store) putObject(ctx context.Context, digest string, r io.ReaderAt, size int64) error {
	key := s.Key(core.ObjectKey(digest))
	var err error
	if size <= s.cfg.MaxSinglePut {
		_, err = s.do(ctx, "put", digest, func(ctx context.Context) error {
			opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true}
			opts.SetMatchETagExcept("*")
			_, err := s.client.PutObject(ctx, s.cfg.Bucket, key, io.NewSectionReader(r, 0, size), size, opts)
			return err
		})
	} else {
		err = s.putMultipart(ctx, digest, key, r, size)
	}
	if err == nil || !errors.Is(err, core.ErrPrecondition) {
		return err
	}
	// Already present: keep it, but only if it is intact.
	return s.verify(ctx, digest)
}

// putMultipart uploads a large object part by part and completes it with
// If-None-Match: *. minio-go's PutObject does not forward that header to
// CompleteMultipartUpload, so the parts are driven through minio.Core. Each
// request is its own operation under the retry policy. A completion whose
// reply was lost, retried, finds the upload gone: the object is then checked
// for (and verified by putObject's caller path through ErrPrecondition).
func (s *Store) putMultipart(ctx context.Context, digest, key string, r io.ReaderAt, size int64) (err error) {
	mc := minio.Core{Client: s.client}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream"}
	var id string
	if _, err := s.do(ctx, "put", digest, func(ctx context.Context) (err error) {
		id, err = mc.NewMultipartUpload(ctx, s.cfg.Bucket, key, opts)
		return err
	}); err != nil {
		return err
	}
	completed := false
	defer func() {
		if !completed {
			_ = mc.AbortMultipartUpload(context.WithoutCancel(ctx), s.cfg.Bucket, key, id)
		}
	}()
	var parts []minio.CompletePart
	for off, n := int64(0), 1; off < size; off, n = off+s.cfg.PartSize, n+1 {
		length := min(s.cfg.PartSize, size-off)
		var part minio.ObjectPart
		if _, err := s.do(ctx, "put", digest, func(ctx context.Context) (err error) {
			part, err = mc.PutObjectPart(ctx, s.cfg.Bucket, key, id, n,
				io.NewSectionReader(r, off, length), length, minio.PutObjectPartOptions{})
			return err
		}); err != nil {
			return err
		}
		parts = append(parts, minio.CompletePart{PartNumber: n, ETag: part.ETag})
	}
	opts.SetMatchETagExcept("*")
	out, err := s.do(ctx, "put", digest, func(ctx context.Context) error {
		_, err := mc.CompleteMultipartUpload(ctx, s.cfg.Bucket, key, id, parts, opts)
		return err
	})
	var resp minio.ErrorResponse
	if err != nil && out.uncertain && errors.As(err, &resp) && resp.Code == "NoSuchUpload" {
		// The lost completion was applied: the upload is the object now.
		completed = true
		return core.E("put", digest, core.ErrPrecondition, err)
	}
	completed = err == nil
	return err
}

// verify decodes and re-hashes a stored object as it streams in.
func (s *Store) verify(ctx context.Context, digest string) error {
	c, err := s.codecFor(ctx)
	if err != nil {
		return err
	}
	_, err = s.do(ctx, "verify", digest, func(ctx context.Context) error {
		obj, err := s.client.GetObject(ctx, s.cfg.Bucket, s.Key(core.ObjectKey(digest)), minio.GetObjectOptions{})
		if err != nil {
			return err
		}
		defer obj.Close()
		return c.Verify("verify", digest, obj)
	})
	return err
}

// PutReader streams r into the store. Small streams stay in memory; larger
// ones are spooled to a temp file, in their stored form, while hashed,
// because the key (the digest) is known only at the end. Nothing is visible
// in the bucket until the complete object is.
func (s *Store) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	c, err := s.codecFor(ctx)
	if err != nil {
		return "", 0, err
	}
	head, err := io.ReadAll(io.LimitReader(core.CtxReader{Ctx: ctx, R: r}, int64(s.cfg.MemoryLimit)+1))
	if err != nil {
		return "", 0, readErr(err)
	}
	if len(head) <= s.cfg.MemoryLimit {
		digest, err := s.Put(ctx, head)
		return digest, int64(len(head)), err
	}
	sp, digest, size, err := s.spool(ctx, c, head, r)
	if err != nil {
		return "", 0, err
	}
	defer sp.remove()
	if ok, err := s.Has(ctx, digest); err != nil || ok {
		if err == nil {
			err = s.verify(ctx, digest)
		}
		return digest, size, err
	}
	stored, err := sp.f.Seek(0, io.SeekEnd)
	if err != nil {
		return "", 0, core.E("putreader", digest, core.ErrUnavailable, err)
	}
	return digest, size, s.putObject(ctx, digest, sp.f, stored)
}

// spool writes the stored form of head and the rest of r to a spool file
// and hashes their canonical bytes.
func (s *Store) spool(ctx context.Context, c *core.Codec, head []byte, r io.Reader) (*spoolFile, string, int64, error) {
	sp, err := createSpool(s.cfg.SpoolDir)
	if err != nil {
		return nil, "", 0, core.E("putreader", "", core.ErrUnavailable, err)
	}
	h := sha256.New()
	zw := c.NewWriter(sp.f)
	w := io.MultiWriter(zw, h)
	_, err = w.Write(head)
	var n int64
	limit := c.MaxObjectSize() - int64(len(head))
	if err == nil {
		n, err = io.Copy(w, io.LimitReader(core.CtxReader{Ctx: ctx, R: r}, limit+1))
	}
	err = errors.Join(err, zw.Close())
	size := int64(len(head)) + n
	if err == nil && n > limit {
		err = c.CheckSize("putreader", "", size)
	}
	if err != nil {
		sp.remove()
		if errors.Is(err, core.ErrTooLarge) {
			return nil, "", 0, err
		}
		return nil, "", 0, readErr(err)
	}
	return sp, hex.EncodeToString(h.Sum(nil)), size, nil
}

// readErr classifies a failure while reading the caller's stream.
func readErr(err error) error {
	var src *core.SourceError
	if errors.As(err, &src) || errors.Is(err, context.Canceled) {
		return core.E("putreader", "", nil, err)
	}
	return core.E("putreader", "", core.ErrUnavailable, err)
}

// Get returns the object's bytes after decoding and re-hashing them.
func (s *Store) Get(ctx context.Context, digest string) ([]byte, error) {
	if err := core.CheckDigest("get", digest); err != nil {
		return nil, err
	}
	c, err := s.codecFor(ctx)
	if err != nil {
		return nil, err
	}
	stored, _, err := s.read(ctx, "get", digest, s.Key(core.ObjectKey(digest)))
	if err != nil {
		return nil, err
	}
	if c.Format() == core.Format1 {
		if got := core.DigestOf(stored); got != digest {
			return nil, core.Errorf("get", digest, core.ErrCorrupt, "content hashes to "+got)
		}
		return stored, nil
	}
	return c.ReadVerified("get", digest, bytes.NewReader(stored), int64(len(stored)))
}

// read fetches a whole object with the ETag of the very response that
// carried the bytes. It uses one plain GET (minio.Core): minio-go's Object
// type re-requests with If-Match after Stat, which turns a concurrent ref
// update into a spurious 412.
func (s *Store) read(ctx context.Context, op, name, key string) (data []byte, etag string, err error) {
	_, err = s.do(ctx, op, name, func(ctx context.Context) error {
		body, info, _, err := minio.Core{Client: s.client}.GetObject(ctx, s.cfg.Bucket, key, minio.GetObjectOptions{})
		if err != nil {
			return err
		}
		defer body.Close()
		if data, err = io.ReadAll(body); err != nil {
			return err
		}
		if int64(len(data)) != info.Size {
			return fmt.Errorf("short read: %d of %d bytes: %w", len(data), info.Size, io.ErrUnexpectedEOF)
		}
		etag = strings.Trim(info.ETag, `"`)
		return nil
	})
	return data, etag, err
}

// Has reports whether an object is stored (without re-hashing it).
func (s *Store) Has(ctx context.Context, digest string) (bool, error) {
	if err := core.CheckDigest("has", digest); err != nil {
		return false, err
	}
	err := s.stat(ctx, "has", digest, s.Key(core.ObjectKey(digest)))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, core.ErrNotFound) && !isNoSuchBucket(err) {
		return false, nil
	}
	return false, err
}

// stat asks whether a key exists.
func (s *Store) stat(ctx context.Context, op, name, key string) error {
	_, err := s.do(ctx, op, name, func(ctx context.Context) error {
		_, err := s.client.StatObject(ctx, s.cfg.Bucket, key, minio.StatObjectOptions{})
		return err
	})
	return err
}

// list calls fn for every key under prefix, in the server's order; a failed
// listing is retried from the start (fn must tolerate seeing keys again).
func (s *Store) list(ctx context.Context, op, name, prefix string, fn func(minio.ObjectInfo)) error {
	_, err := s.do(ctx, op, name, func(ctx context.Context) error {
		for obj := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
			if obj.Err != nil {
				return obj.Err
			}
			fn(obj)
		}
		return ctx.Err()
	})
	return err
}

// ListObjects lists the digests of all stored objects, sorted; keys that do
// not follow the layout are ignored.
func (s *Store) ListObjects(ctx context.Context) ([]string, error) {
	infos, err := s.ObjectInfos(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(infos))
	for i, o := range infos {
		out[i] = o.Digest
	}
	return out, nil
}

// ObjectInfos lists every stored object with its size and time, sorted by
// digest; keys that do not follow the layout are ignored.
func (s *Store) ObjectInfos(ctx context.Context) ([]core.ObjectInfo, error) {
	base := s.Key(core.ObjectsDir) + "/"
	seen := map[string]core.ObjectInfo{}
	err := s.list(ctx, "listobjects", "", base, func(obj minio.ObjectInfo) {
		fan, digest, ok := strings.Cut(strings.TrimPrefix(obj.Key, base), "/")
		if ok && core.ValidDigest(digest) && digest[:2] == fan {
			seen[digest] = core.ObjectInfo{Digest: digest, Size: obj.Size, ModTime: obj.LastModified}
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]core.ObjectInfo, 0, len(seen))
	for _, o := range seen {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b core.ObjectInfo) int { return strings.Compare(a.Digest, b.Digest) })
	return out, nil
}
