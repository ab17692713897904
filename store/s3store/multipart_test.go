package s3store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/minio/minio-go/v7"

	"formation/internal/testutil"
	"formation/store/internal/core"
)

// TestConditionalMultipartComplete proves the server enforces If-None-Match
// on CompleteMultipartUpload: after the stored object is overwritten behind
// the store's back, a multipart re-upload of the good bytes must be refused
// (412) and the damage reported, not silently repaired.
func TestConditionalMultipartComplete(t *testing.T) {
	srv := testutil.StartS3(t)
	s, err := New(Config{
		Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region,
		Bucket: srv.Bucket, Prefix: "cond", MaxSinglePut: 5 << 20, PartSize: 5 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("multipart!"), (11<<20)/10)
	digest := core.DigestOf(data)
	if err := s.putObject(t.Context(), digest, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	// Same bytes again: 412 from the complete, then verification passes.
	if err := s.putObject(t.Context(), digest, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("idempotent multipart put: %v", err)
	}
	bad := []byte("overwritten")
	if _, err := s.client.PutObject(t.Context(), srv.Bucket, s.Key(core.ObjectKey(digest)),
		bytes.NewReader(bad), int64(len(bad)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	err = s.putObject(t.Context(), digest, bytes.NewReader(data), int64(len(data)))
	if !errors.Is(err, core.ErrCorrupt) {
		t.Fatalf("multipart put over a damaged object: %v, want ErrCorrupt", err)
	}
	for u := range s.client.ListIncompleteUploads(t.Context(), srv.Bucket, s.Key(""), true) {
		t.Errorf("aborted upload left behind: %s %v", u.Key, u.Err)
	}
}
