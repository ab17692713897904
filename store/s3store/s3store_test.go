package s3store_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/minio/minio-go/v7"

	"formation/internal/testutil"
	"formation/store"
	"formation/store/s3store"
	"formation/store/storetest"
)

func TestMain(m *testing.M) {
	storetest.HelperMain()
	os.Exit(m.Run())
}

// server starts versitygw and points the environment at it, so that
// store.Open and the suite's worker processes reach it.
func server(t *testing.T) testutil.S3Server {
	t.Helper()
	srv := testutil.StartS3(t)
	srv.SetEnv(t)
	return srv
}

// prefixes hands every opened store its own key prefix in the shared bucket.
var prefixes atomic.Int64

func openFresh(srv testutil.S3Server) func(t *testing.T) store.Store {
	return func(t *testing.T) store.Store {
		t.Helper()
		url := fmt.Sprintf("s3://%s/t%d", srv.Bucket, prefixes.Add(1))
		s, err := store.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		if s.String() != url {
			t.Fatalf("String() = %q, want %q", s.String(), url)
		}
		if strings.Contains(s.String(), srv.SecretKey) || strings.Contains(s.String(), srv.AccessKey) {
			t.Fatalf("String() leaks credentials: %q", s.String())
		}
		return s
	}
}

// corrupter overwrites an object with a raw client, bypassing the store.
func corrupter(srv testutil.S3Server) storetest.Corrupter {
	return func(t *testing.T, s store.Store, digest string, data []byte) {
		t.Helper()
		key := s.(*s3store.Store).Key("objects/sha256/" + digest[:2] + "/" + digest)
		_, err := srv.Client(t).PutObject(t.Context(), srv.Bucket, key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestConformance(t *testing.T) {
	srv := server(t)
	storetest.Run(t, openFresh(srv), storetest.WithCorrupter(corrupter(srv)))
}

// TestSpoolAndMultipart drives PutReader through the temp-file spool and the
// conditional multipart upload by shrinking the thresholds.
func TestSpoolAndMultipart(t *testing.T) {
	srv := server(t)
	s, err := s3store.New(s3store.Config{
		Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region,
		Bucket: srv.Bucket, Prefix: "multipart", MemoryLimit: 1 << 20, MaxSinglePut: 6 << 20,
		PartSize: 5 << 20, SpoolDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), (13<<20)/16+7)
	d, n, err := s.PutReader(t.Context(), bytes.NewReader(data))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("PutReader = %s, %d, %v", d, n, err)
	}
	got, err := s.Get(t.Context(), d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get after multipart: %d bytes, %v", len(got), err)
	}
	client, bucket := s.Client()
	info, err := client.StatObject(t.Context(), bucket, s.Key("objects/sha256/"+d[:2]+"/"+d), minio.StatObjectOptions{})
	if err != nil || !strings.HasSuffix(info.ETag, "-3") {
		t.Fatalf("object should be a 3-part upload: ETag %q, %v", info.ETag, err)
	}
	// A second upload of the same bytes must hit the conditional complete (or
	// the existence check) and still succeed.
	if d2, _, err := s.PutReader(t.Context(), bytes.NewReader(data)); err != nil || d2 != d {
		t.Fatalf("second PutReader = %s, %v", d2, err)
	}
}

// TestUnavailable: a server that does not answer is ErrUnavailable (75).
func TestUnavailable(t *testing.T) {
	port := closedPort(t)
	s, err := s3store.New(s3store.Config{
		Endpoint: port, AccessKey: "k", SecretKey: "secret-never-printed", Region: "us-east-1",
		Bucket: "bucket", RetryBudget: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(t.Context(), strings.Repeat("a", 64))
	if !errors.Is(err, store.ErrUnavailable) || store.ExitCode(err) != 75 {
		t.Fatalf("Get from a dead endpoint: %v (exit %d), want ErrUnavailable", err, store.ExitCode(err))
	}
	if strings.Contains(err.Error(), "secret-never-printed") {
		t.Fatalf("error leaks the secret: %v", err)
	}
	_, err = s.SetRef(t.Context(), "subjects/x/mine", "", []byte("1"))
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("SetRef on a dead endpoint: %v", err)
	}
}

func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestMissingBucket: writes and reads in a bucket that does not exist are
// ErrNotFound (66). (Has cannot tell: a HEAD 404 has no body naming the
// cause, so it reports the object as absent.)
func TestMissingBucket(t *testing.T) {
	server(t)
	s, err := store.Open(t.Context(), "s3://no-such-bucket/p")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(t.Context(), []byte("x")); !errors.Is(err, store.ErrNotFound) || store.ExitCode(err) != 66 {
		t.Fatalf("Put in a missing bucket: %v", err)
	}
	if _, err := s.SetRef(t.Context(), "subjects/x/mine", "", []byte("1")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("SetRef in a missing bucket: %v", err)
	}
	if _, err := s.ListObjects(t.Context()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ListObjects in a missing bucket: %v", err)
	}
}
