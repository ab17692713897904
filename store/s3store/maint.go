package s3store

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"formation/store/internal/core"
)

// DeleteObject removes an object; a missing one is no error. Only garbage
// collection calls it, holding the store's exclusive lock.
func (s *Store) DeleteObject(ctx context.Context, digest string) error {
	if err := core.CheckDigest("delete", digest); err != nil {
		return err
	}
	return s.remove(ctx, "delete", digest, s.Key(core.ObjectKey(digest)))
}

// DeleteRef removes a ref whatever its version; a missing one is no error.
// Its callers own the ref (a lock) or hold the store's exclusive lock (gc).
func (s *Store) DeleteRef(ctx context.Context, name string) error {
	if err := core.ValidRefName(name); err != nil {
		return err
	}
	return s.remove(ctx, "deleteref", name, s.Key(core.RefKey(name)))
}

func (s *Store) remove(ctx context.Context, op, name, key string) error {
	_, err := s.do(ctx, op, name, func(ctx context.Context) error {
		return s.client.RemoveObject(ctx, s.cfg.Bucket, key, minio.RemoveObjectOptions{})
	})
	if errors.Is(err, core.ErrNotFound) && !isNoSuchBucket(err) {
		return nil
	}
	return err
}

// Leftovers lists what interrupted writes left behind: incomplete multipart
// uploads under the store's prefix, and this host's spool files whose
// writer is gone. The spool folder is local: each host sees its own.
func (s *Store) Leftovers(ctx context.Context) ([]core.Leftover, error) {
	out, err := staleSpools(s.cfg.SpoolDir, time.Now())
	if err != nil {
		return nil, core.E("leftovers", s.cfg.SpoolDir, core.ErrUnavailable, err)
	}
	uploads, err := s.uploads(ctx)
	if err != nil {
		return nil, err
	}
	out = append(out, uploads...)
	slices.SortFunc(out, func(a, b core.Leftover) int { return strings.Compare(a.Name+a.ID, b.Name+b.ID) })
	return out, nil
}

// uploads lists the incomplete multipart uploads below the prefix.
func (s *Store) uploads(ctx context.Context) ([]core.Leftover, error) {
	var out []core.Leftover
	_, err := s.do(ctx, "leftovers", "", func(ctx context.Context) error {
		out = out[:0]
		for u := range s.client.ListIncompleteUploads(ctx, s.cfg.Bucket, s.Key(""), true) {
			if u.Err != nil {
				return u.Err
			}
			out = append(out, core.Leftover{Kind: core.LeftoverUpload, Name: u.Key, ID: u.UploadID, Size: u.Size, Since: u.Initiated})
		}
		return nil
	})
	return out, err
}

// RemoveLeftover removes one leftover Leftovers listed.
func (s *Store) RemoveLeftover(ctx context.Context, l core.Leftover) error {
	switch l.Kind {
	case core.LeftoverSpoolFile:
		if held(l.Name) {
			return nil // a writer took it up again: not a leftover
		}
		if err := os.Remove(l.Name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return core.E("removeleftover", l.Name, core.ErrUnavailable, err)
		}
		return nil
	case core.LeftoverUpload:
		if !strings.HasPrefix(l.Name, s.Key("")) {
			return core.Errorf("removeleftover", l.Name, core.ErrInvalid, "upload outside the store's prefix")
		}
		_, err := s.do(ctx, "removeleftover", l.Name, func(ctx context.Context) error {
			return minio.Core{Client: s.client}.AbortMultipartUpload(ctx, s.cfg.Bucket, l.Name, l.ID)
		})
		var resp minio.ErrorResponse
		if errors.As(err, &resp) && resp.Code == "NoSuchUpload" {
			return nil
		}
		return err
	}
	return core.Errorf("removeleftover", l.Name, core.ErrInvalid, "not a leftover of the S3 backend: "+l.Kind)
}
