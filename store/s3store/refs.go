package s3store

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/minio/minio-go/v7"

	"formation/store/internal/core"
)

// GetRef returns a ref's value and its version (the object's ETag).
func (s *Store) GetRef(ctx context.Context, name string) ([]byte, string, error) {
	if err := core.ValidRefName(name); err != nil {
		return nil, "", err
	}
	raw, etag, err := s.read(ctx, s.Key(core.RefKey(name)))
	if err != nil {
		return nil, "", s.classify(ctx, mapErr("getref", name, err))
	}
	_, value, err := core.DecodeRef(raw)
	if err != nil {
		return nil, "", core.E("getref", name, core.ErrCorrupt, err)
	}
	if etag == "" {
		return nil, "", core.Errorf("getref", name, nil, "server returned no ETag")
	}
	return value, etag, nil
}

// SetRef writes value if the ref's current version equals old ("" = the ref
// must not exist yet) and returns the new version. The server enforces the
// condition (If-Match / If-None-Match), so concurrent writers cannot both win.
func (s *Store) SetRef(ctx context.Context, name, old string, value []byte) (string, error) {
	if err := core.ValidRefName(name); err != nil {
		return "", err
	}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true}
	var gen uint64
	if old == "" {
		if err := s.checkNesting(ctx, name); err != nil {
			return "", err
		}
		opts.SetMatchETagExcept("*")
		gen = 1
	} else {
		cur, err := s.currentGen(ctx, name, old)
		if err != nil {
			return "", err
		}
		opts.SetMatchETag(old)
		gen = cur + 1
	}
	raw := core.EncodeRef(gen, value)
	info, err := s.client.PutObject(ctx, s.cfg.Bucket, s.Key(core.RefKey(name)),
		strings.NewReader(string(raw)), int64(len(raw)), opts)
	if err != nil {
		mapped := s.classify(ctx, mapErr("setref", name, err))
		if old != "" && errors.Is(mapped, core.ErrNotFound) {
			// If-Match on a missing key: the version cannot match.
			return "", core.E("setref", name, core.ErrPrecondition, err)
		}
		return "", mapped
	}
	etag := strings.Trim(info.ETag, `"`)
	if etag == "" {
		return "", core.Errorf("setref", name, nil, "server returned no ETag")
	}
	return etag, nil
}

// currentGen reads the ref and returns its generation when its ETag is old.
// The conditional put still guards the write; this read only supplies the
// generation and fails early on a stale version.
func (s *Store) currentGen(ctx context.Context, name, old string) (uint64, error) {
	raw, etag, err := s.read(ctx, s.Key(core.RefKey(name)))
	if err != nil {
		mapped := s.classify(ctx, mapErr("setref", name, err))
		if errors.Is(mapped, core.ErrNotFound) {
			return 0, core.Errorf("setref", name, core.ErrPrecondition, "ref does not exist")
		}
		return 0, mapped
	}
	if etag != old {
		return 0, core.Errorf("setref", name, core.ErrPrecondition, "ref changed since version was read")
	}
	gen, _, err := core.DecodeRef(raw)
	if err != nil {
		return 0, core.E("setref", name, core.ErrCorrupt, err)
	}
	if gen == math.MaxUint64 {
		return 0, core.Errorf("setref", name, core.ErrCorrupt, "generation counter exhausted")
	}
	return gen, nil
}

// checkNesting refuses to create a ref under another ref or above existing
// refs. The file backend (and posix-backed servers) cannot hold both a/b and
// a/b/c; refusing it here too keeps the backends interchangeable.
func (s *Store) checkNesting(ctx context.Context, name string) error {
	segs := strings.Split(name, "/")
	for i := 2; i < len(segs); i++ {
		parent := strings.Join(segs[:i], "/")
		_, err := s.client.StatObject(ctx, s.cfg.Bucket, s.Key(core.RefKey(parent)), minio.StatObjectOptions{})
		if err == nil {
			return core.Errorf("setref", name, core.ErrInvalid, "a leading part of the name is itself a ref")
		}
		if mapped := s.classify(ctx, mapErr("setref", name, err)); !errors.Is(mapped, core.ErrNotFound) || isNoSuchBucket(err) {
			return mapped
		}
	}
	below := minio.ListObjectsOptions{Prefix: s.Key(core.RefKey(name)) + "/", Recursive: true, MaxKeys: 1}
	for obj := range s.client.ListObjects(ctx, s.cfg.Bucket, below) {
		if obj.Err != nil {
			return s.classify(ctx, mapErr("setref", name, obj.Err))
		}
		return core.Errorf("setref", name, core.ErrInvalid, "name is a folder of other refs")
	}
	return nil
}

// ListRefs lists ref names starting with prefix, sorted.
func (s *Store) ListRefs(ctx context.Context, prefix string) ([]string, error) {
	if err := core.ValidRefPrefix(prefix); err != nil {
		return nil, err
	}
	base := s.Key(core.RefsDir) + "/"
	var out []string
	for obj := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: base + prefix, Recursive: true}) {
		if obj.Err != nil {
			return nil, s.classify(ctx, mapErr("listrefs", prefix, obj.Err))
		}
		name := strings.TrimPrefix(obj.Key, base)
		if core.ValidRefName(name) == nil {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}
