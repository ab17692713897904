package s3store

import (
	"bytes"
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
	raw, etag, err := s.read(ctx, "getref", name, s.Key(core.RefKey(name)))
	if err != nil {
		return nil, "", err
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
//
// A write whose reply was lost may have been applied. Its retry then fails
// the condition against the write itself, so after an uncertain attempt a
// precondition failure is checked by value: when the ref holds exactly the
// envelope this call wrote (this value, at the generation it gave it), the
// write was this call's and SetRef succeeds with the ref's version.
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
	var etag string
	out, err := s.do(ctx, "setref", name, func(ctx context.Context) error {
		info, err := s.client.PutObject(ctx, s.cfg.Bucket, s.Key(core.RefKey(name)),
			bytes.NewReader(raw), int64(len(raw)), opts)
		etag = strings.Trim(info.ETag, `"`)
		return err
	})
	if err != nil {
		if old != "" && errors.Is(err, core.ErrNotFound) && !isNoSuchBucket(err) {
			// If-Match on a missing key: the version cannot match.
			err = core.E("setref", name, core.ErrPrecondition, err)
		}
		if out.uncertain && errors.Is(err, core.ErrPrecondition) {
			return s.ownWrite(ctx, name, raw, err)
		}
		return "", err
	}
	if etag == "" {
		return "", core.Errorf("setref", name, nil, "server returned no ETag")
	}
	return etag, nil
}

// ownWrite decides a precondition failure that followed an uncertain
// attempt: if the ref holds exactly raw, the uncertain attempt was applied
// and its version is returned; otherwise lost stands.
//
// Another writer that read the same version and derived the same value
// would have stored the same bytes; the two cases leave the store in the
// same state, so telling them apart does not matter.
func (s *Store) ownWrite(ctx context.Context, name string, raw []byte, lost error) (string, error) {
	cur, etag, err := s.read(ctx, "setref", name, s.Key(core.RefKey(name)))
	switch {
	case errors.Is(err, core.ErrNotFound):
		return "", lost
	case err != nil:
		return "", err
	case bytes.Equal(cur, raw) && etag != "":
		return etag, nil
	}
	return "", lost
}

// currentGen reads the ref and returns its generation when its ETag is old.
// The conditional put still guards the write; this read only supplies the
// generation and fails early on a stale version.
func (s *Store) currentGen(ctx context.Context, name, old string) (uint64, error) {
	raw, etag, err := s.read(ctx, "setref", name, s.Key(core.RefKey(name)))
	if err != nil {
		if errors.Is(err, core.ErrNotFound) && !isNoSuchBucket(err) {
			return 0, core.Errorf("setref", name, core.ErrPrecondition, "ref does not exist")
		}
		return 0, err
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
		err := s.stat(ctx, "setref", name, s.Key(core.RefKey(parent)))
		if err == nil {
			return core.Errorf("setref", name, core.ErrInvalid, "a leading part of the name is itself a ref")
		}
		if !errors.Is(err, core.ErrNotFound) || isNoSuchBucket(err) {
			return err
		}
	}
	below := minio.ListObjectsOptions{Prefix: s.Key(core.RefKey(name)) + "/", Recursive: true, MaxKeys: 1}
	var nested bool
	_, err := s.do(ctx, "setref", name, func(ctx context.Context) error {
		for obj := range s.client.ListObjects(ctx, s.cfg.Bucket, below) {
			if obj.Err != nil {
				return obj.Err
			}
			nested = true
			break
		}
		return nil
	})
	if err != nil {
		return err
	}
	if nested {
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
	seen := map[string]bool{}
	err := s.list(ctx, "listrefs", prefix, base+prefix, func(obj minio.ObjectInfo) {
		name := strings.TrimPrefix(obj.Key, base)
		if core.ValidRefName(name) == nil {
			seen[name] = true
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out, nil
}
