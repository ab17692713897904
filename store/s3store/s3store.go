// Package s3store is the S3 backend of the object store (minio-go v7).
//
// Keys below the configured prefix follow the same layout as the file
// backend: objects/sha256/ab/abcd… and refs/<name>. Objects are written with
// If-None-Match: * (create-only); a 412 means the object is already there,
// which is fine once the existing bytes are verified. Refs are stored in the
// envelope of store/internal/core (a generation counter ahead of the value, so
// no two writes store the same bytes and the ETag never repeats) and updated
// with If-Match: <etag>, or created with If-None-Match: *.
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

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"formation/store/internal/core"
)

// Defaults for the zero values of Config.
const (
	defaultMaxRetries   = 3
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

	MaxRetries   int    // per request, 0 means 3
	MemoryLimit  int    // PutReader buffers this much before spilling to a temp file; 0 means 8 MiB
	SpoolDir     string // folder for PutReader's temp files; empty means os.TempDir()
	MaxSinglePut int64  // larger objects go up as a conditional multipart upload; 0 means 5 GiB
	PartSize     int64  // multipart part size; 0 means 64 MiB, at least 5 MiB
}

// Store is a content-addressed store in an S3 bucket.
type Store struct {
	cfg    Config
	client *minio.Client
	creds  *credentials.Credentials

	probe    sync.Mutex // guards probed and bucketOK (checkNotFound)
	probed   bool
	bucketOK bool
}

// New returns a store for cfg. It does not contact the server: the first
// operation reports an unreachable endpoint or a missing bucket.
func New(cfg Config) (*Store, error) {
	cfg = withDefaults(cfg)
	if cfg.Bucket == "" || cfg.Endpoint == "" {
		return nil, core.Errorf("open", "s3://"+cfg.Bucket, core.ErrInvalid, "bucket and endpoint are required")
	}
	c := creds(cfg)
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:      c,
		Secure:     cfg.Secure,
		Region:     cfg.Region,
		MaxRetries: cfg.MaxRetries,
	})
	if err != nil {
		return nil, core.E("open", "s3://"+cfg.Bucket, core.ErrInvalid, err)
	}
	return &Store{cfg: cfg, client: client, creds: c}, nil
}

func withDefaults(cfg Config) Config {
	cfg.Prefix = strings.Trim(cfg.Prefix, "/")
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = defaultMaxRetries
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
	err := s.putObject(ctx, digest, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", err
	}
	return digest, nil
}

// putObject uploads size bytes from r under digest, create-only. The bytes
// must already hash to digest.
func (s *Store) putObject(ctx context.Context, digest string, r io.ReaderAt, size int64) error {
	key := s.Key(core.ObjectKey(digest))
	var err error
	if size <= s.cfg.MaxSinglePut {
		opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true}
		opts.SetMatchETagExcept("*")
		_, err = s.client.PutObject(ctx, s.cfg.Bucket, key, io.NewSectionReader(r, 0, size), size, opts)
	} else {
		err = s.putMultipart(ctx, key, r, size)
	}
	if err == nil {
		return nil
	}
	mapped := s.classify(ctx, mapErr("put", digest, err))
	if !errors.Is(mapped, core.ErrPrecondition) {
		return mapped
	}
	// Already present: keep it, but only if it is intact.
	return s.verify(ctx, digest)
}

// putMultipart uploads a large object part by part and completes it with
// If-None-Match: *. minio-go's PutObject does not forward that header to
// CompleteMultipartUpload, so the parts are driven through minio.Core.
func (s *Store) putMultipart(ctx context.Context, key string, r io.ReaderAt, size int64) (err error) {
	mc := minio.Core{Client: s.client}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream"}
	id, err := mc.NewMultipartUpload(ctx, s.cfg.Bucket, key, opts)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = mc.AbortMultipartUpload(context.WithoutCancel(ctx), s.cfg.Bucket, key, id)
		}
	}()
	var parts []minio.CompletePart
	for off, n := int64(0), 1; off < size; off, n = off+s.cfg.PartSize, n+1 {
		length := min(s.cfg.PartSize, size-off)
		part, err := mc.PutObjectPart(ctx, s.cfg.Bucket, key, id, n,
			io.NewSectionReader(r, off, length), length, minio.PutObjectPartOptions{})
		if err != nil {
			return err
		}
		parts = append(parts, minio.CompletePart{PartNumber: n, ETag: part.ETag})
	}
	opts.SetMatchETagExcept("*")
	_, err = mc.CompleteMultipartUpload(ctx, s.cfg.Bucket, key, id, parts, opts)
	return err
}

// verify re-hashes a stored object as it streams in.
func (s *Store) verify(ctx context.Context, digest string) error {
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, s.Key(core.ObjectKey(digest)), minio.GetObjectOptions{})
	if err != nil {
		return s.classify(ctx, mapErr("verify", digest, err))
	}
	defer obj.Close()
	h := sha256.New()
	if _, err := io.Copy(h, obj); err != nil {
		return s.classify(ctx, mapErr("verify", digest, err))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		return core.Errorf("verify", digest, core.ErrCorrupt, "content hashes to "+got)
	}
	return nil
}

// PutReader streams r into the store. Small streams stay in memory; larger
// ones are spooled to a temp file while hashed, because the key (the digest)
// is known only at the end. Nothing is visible in the bucket until the
// complete object is.
func (s *Store) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	head, err := io.ReadAll(io.LimitReader(core.CtxReader{Ctx: ctx, R: r}, int64(s.cfg.MemoryLimit)+1))
	if err != nil {
		return "", 0, readErr(err)
	}
	if len(head) <= s.cfg.MemoryLimit {
		digest, err := s.Put(ctx, head)
		return digest, int64(len(head)), err
	}
	f, digest, size, err := s.spool(ctx, head, r)
	if err != nil {
		return "", 0, err
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	if ok, err := s.Has(ctx, digest); err != nil || ok {
		if err == nil {
			err = s.verify(ctx, digest)
		}
		return digest, size, err
	}
	return digest, size, s.putObject(ctx, digest, f, size)
}

// spool writes head and the rest of r to a temp file and hashes them.
func (s *Store) spool(ctx context.Context, head []byte, r io.Reader) (*os.File, string, int64, error) {
	f, err := os.CreateTemp(s.cfg.SpoolDir, "formation-s3-*")
	if err != nil {
		return nil, "", 0, core.E("putreader", "", core.ErrUnavailable, err)
	}
	h := sha256.New()
	w := io.MultiWriter(f, h)
	_, err = w.Write(head)
	var n int64
	if err == nil {
		n, err = io.Copy(w, core.CtxReader{Ctx: ctx, R: r})
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, "", 0, readErr(err)
	}
	return f, hex.EncodeToString(h.Sum(nil)), int64(len(head)) + n, nil
}

// readErr classifies a failure while reading the caller's stream.
func readErr(err error) error {
	var src *core.SourceError
	if errors.As(err, &src) || errors.Is(err, context.Canceled) {
		return core.E("putreader", "", nil, err)
	}
	return core.E("putreader", "", core.ErrUnavailable, err)
}

// Get returns the object's bytes after re-hashing them.
func (s *Store) Get(ctx context.Context, digest string) ([]byte, error) {
	if err := core.CheckDigest("get", digest); err != nil {
		return nil, err
	}
	data, _, err := s.read(ctx, s.Key(core.ObjectKey(digest)))
	if err != nil {
		return nil, s.classify(ctx, mapErr("get", digest, err))
	}
	if got := core.DigestOf(data); got != digest {
		return nil, core.Errorf("get", digest, core.ErrCorrupt, "content hashes to "+got)
	}
	return data, nil
}

// read fetches a whole object with the ETag of the very response that
// carried the bytes. It uses one plain GET (minio.Core): minio-go's Object
// type re-requests with If-Match after Stat, which turns a concurrent ref
// update into a spurious 412.
func (s *Store) read(ctx context.Context, key string) ([]byte, string, error) {
	body, info, _, err := minio.Core{Client: s.client}.GetObject(ctx, s.cfg.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, "", err
	}
	defer body.Close()
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, "", err
	}
	if int64(len(data)) != info.Size {
		return nil, "", fmt.Errorf("short read: %d of %d bytes: %w", len(data), info.Size, io.ErrUnexpectedEOF)
	}
	return data, strings.Trim(info.ETag, `"`), nil
}

// Has reports whether an object is stored (without re-hashing it).
func (s *Store) Has(ctx context.Context, digest string) (bool, error) {
	if err := core.CheckDigest("has", digest); err != nil {
		return false, err
	}
	_, err := s.client.StatObject(ctx, s.cfg.Bucket, s.Key(core.ObjectKey(digest)), minio.StatObjectOptions{})
	if err == nil {
		return true, nil
	}
	mapped := s.classify(ctx, mapErr("has", digest, err))
	if errors.Is(mapped, core.ErrNotFound) && !isNoSuchBucket(err) {
		return false, nil
	}
	return false, mapped
}

// ListObjects lists the digests of all stored objects, sorted; keys that do
// not follow the layout are ignored.
func (s *Store) ListObjects(ctx context.Context) ([]string, error) {
	base := s.Key(core.ObjectsDir) + "/"
	var out []string
	for obj := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: base, Recursive: true}) {
		if obj.Err != nil {
			return nil, s.classify(ctx, mapErr("listobjects", "", obj.Err))
		}
		fan, digest, ok := strings.Cut(strings.TrimPrefix(obj.Key, base), "/")
		if ok && core.ValidDigest(digest) && digest[:2] == fan {
			out = append(out, digest)
		}
	}
	slices.Sort(out)
	return out, nil
}
