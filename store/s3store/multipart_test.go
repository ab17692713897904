package s3store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// TestLeftovers: an incomplete multipart upload and a spool file of a dead
// writer are listed as leftovers and removed; a spool file whose writer is
// alive is neither; a new store removes dead writers' spool files itself.
func TestLeftovers(t *testing.T) {
	srv := testutil.StartS3(t)
	spool := t.TempDir()
	cfg := Config{Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region,
		Bucket: srv.Bucket, Prefix: "left", SpoolDir: spool}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	key := s.Key(core.ObjectKey(core.DigestOf([]byte("never completed"))))
	id, err := minio.Core{Client: s.client}.NewMultipartUpload(ctx, srv.Bucket, key, minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live, err := createSpool(spool)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	dead := filepath.Join(spool, spoolPrefix+"dead")
	if err := os.WriteFile(dead, []byte("half a stream"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{dead, live.f.Name()} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	left, err := s.Leftovers(ctx)
	if err != nil || len(left) != 2 {
		t.Fatalf("Leftovers = %+v, %v; want the upload and the dead spool file", left, err)
	}
	kinds := map[string]core.Leftover{}
	for _, l := range left {
		kinds[l.Kind] = l
	}
	if u := kinds[core.LeftoverUpload]; u.Name != key || u.ID != id {
		t.Fatalf("upload leftover = %+v", u)
	}
	if f := kinds[core.LeftoverSpoolFile]; f.Name != dead || f.Size != 13 {
		t.Fatalf("spool leftover = %+v", f)
	}
	for _, l := range left {
		if err := s.RemoveLeftover(ctx, l); err != nil {
			t.Fatalf("RemoveLeftover(%+v): %v", l, err)
		}
	}
	if left, err := s.Leftovers(ctx); err != nil || len(left) != 0 {
		t.Fatalf("after removal: %+v, %v", left, err)
	}
	if _, err := os.Stat(live.f.Name()); err != nil {
		t.Fatalf("the live writer's spool file was touched: %v", err)
	}
	// A dead writer's spool file is gone as soon as a store opens.
	if err := os.WriteFile(dead, []byte("again"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(dead, old, old)
	if _, err := New(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("New left a dead writer's spool file: %v", err)
	}
}
