package s3store

import (
	"bytes"
	"context"

	"github.com/minio/minio-go/v7"

	"formation/store/internal/core"
)

// codecFor returns the store's codec, settling the format on the first
// object operation (New does not contact the server). A failure is not
// remembered: the next operation asks again.
func (s *Store) codecFor(ctx context.Context) (*core.Codec, error) {
	s.fmtMu.Lock()
	defer s.fmtMu.Unlock()
	if s.codec != nil {
		return s.codec, nil
	}
	format, err := core.ResolveFormat(ctx, s.String(), marker{s})
	if err != nil {
		return nil, err
	}
	s.codec = core.NewCodec(format, s.cfg.MaxObjectSize)
	return s.codec, nil
}

// marker reads and writes the format marker at prefix/format (core.Marker).
type marker struct{ s *Store }

func (m marker) ReadMarker(ctx context.Context) ([]byte, error) {
	b, _, err := m.s.read(ctx, "open", m.s.String(), m.s.Key(core.FormatKey))
	return b, err
}

// CreateMarker writes the marker create-only. A retried write whose first
// attempt was applied fails its precondition against itself; ResolveFormat
// then reads the marker, which is the same either way.
func (m marker) CreateMarker(ctx context.Context, data []byte) error {
	_, err := m.s.do(ctx, "open", m.s.String(), func(ctx context.Context) error {
		opts := minio.PutObjectOptions{ContentType: "text/plain", DisableMultipart: true}
		opts.SetMatchETagExcept("*")
		_, err := m.s.client.PutObject(ctx, m.s.cfg.Bucket, m.s.Key(core.FormatKey), bytes.NewReader(data), int64(len(data)), opts)
		return err
	})
	return err
}

// Empty reports whether no key lies under objects/ or refs/.
func (m marker) Empty(ctx context.Context) (bool, error) {
	for _, dir := range []string{core.ObjectsDir, core.RefsDir} {
		found := false
		_, err := m.s.do(ctx, "open", m.s.String(), func(ctx context.Context) error {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel() // stops the listing after its first key
			opts := minio.ListObjectsOptions{Prefix: m.s.Key(dir) + "/", Recursive: true, MaxKeys: 1}
			for obj := range m.s.client.ListObjects(ctx, m.s.cfg.Bucket, opts) {
				if obj.Err != nil {
					return obj.Err
				}
				found = true
				return nil
			}
			return nil
		})
		if err != nil {
			return false, err
		}
		if found {
			return false, nil
		}
	}
	return true, nil
}
