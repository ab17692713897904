package s3store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// raw reaches the bucket with a plain client, bypassing the store.
func raw(srv testutil.S3Server) storetest.Raw {
	key := func(s store.Store, k string) string { return s.(*s3store.Store).Key(k) }
	return storetest.Raw{
		Read: func(t *testing.T, s store.Store, k string) ([]byte, bool) {
			obj, err := srv.Client(t).GetObject(t.Context(), srv.Bucket, key(s, k), minio.GetObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			b, err := io.ReadAll(obj)
			if minio.ToErrorResponse(err).Code == "NoSuchKey" {
				return nil, false
			}
			if err != nil {
				t.Fatal(err)
			}
			return b, true
		},
		Write: func(t *testing.T, s store.Store, k string, data []byte) {
			_, err := srv.Client(t).PutObject(t.Context(), srv.Bucket, key(s, k), bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
		},
		Delete: func(t *testing.T, s store.Store, k string) {
			if err := srv.Client(t).RemoveObject(t.Context(), srv.Bucket, key(s, k), minio.RemoveObjectOptions{}); err != nil {
				t.Fatal(err)
			}
		},
	}
}

func openCapped(srv testutil.S3Server) func(t *testing.T, maxObject int64) store.Store {
	return func(t *testing.T, maxObject int64) store.Store {
		s, err := s3store.New(s3store.Config{
			Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region,
			Bucket: srv.Bucket, Prefix: fmt.Sprintf("t%d", prefixes.Add(1)), MaxObjectSize: maxObject,
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestConformance(t *testing.T) {
	srv := server(t)
	storetest.Run(t, openFresh(srv), storetest.WithRaw(raw(srv)), storetest.WithCapped(openCapped(srv)))
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
	data := storetest.Pattern("spool and multipart", 13<<20+7) // incompressible: stored at about its size
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

// TestMissingBucket: a bucket that does not exist is a configuration error
// (78) for reads and writes alike.
func TestMissingBucket(t *testing.T) {
	server(t)
	s, err := store.Open(t.Context(), "s3://no-such-bucket/p")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(t.Context(), []byte("x")); !errors.Is(err, store.ErrConfig) || store.ExitCode(err) != 78 {
		t.Fatalf("Put in a missing bucket: %v", err)
	}
	if _, err := s.SetRef(t.Context(), "subjects/x/mine", "", []byte("1")); !errors.Is(err, store.ErrConfig) {
		t.Fatalf("SetRef in a missing bucket: %v", err)
	}
	if _, err := s.ListObjects(t.Context()); !errors.Is(err, store.ErrConfig) {
		t.Fatalf("ListObjects in a missing bucket: %v", err)
	}
	if _, err := s.Has(t.Context(), strings.Repeat("a", 64)); !errors.Is(err, store.ErrConfig) {
		t.Fatalf("Has in a missing bucket: %v", err)
	}
}

// TestConfigAndDenied: each way of reaching the server wrongly gets its
// kind: refused credentials ErrDenied (77); no credentials at all, https
// against a plain-http server and an endpoint that is not an S3 server
// ErrConfig (78).
func TestConfigAndDenied(t *testing.T) {
	srv := server(t)
	notS3 := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notS3.Close)
	cfg := s3store.Config{Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region, Bucket: srv.Bucket, Prefix: "cfg"}
	cases := []struct {
		name string
		edit func(*s3store.Config)
		kind error
	}{
		{"wrong secret", func(c *s3store.Config) { c.SecretKey = "not-the-secret" }, store.ErrDenied},
		{"unknown access key", func(c *s3store.Config) { c.AccessKey = "NOSUCHKEY" }, store.ErrDenied},
		{"no credentials", func(c *s3store.Config) { c.AccessKey, c.SecretKey = "", "" }, store.ErrConfig},
		{"https against http", func(c *s3store.Config) { c.Secure = true }, store.ErrConfig},
		{"not an S3 server", func(c *s3store.Config) { c.Endpoint = strings.TrimPrefix(notS3.URL, "http://") }, store.ErrConfig},
	}
	// No credentials file and no instance role either.
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("HOME", t.TempDir())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := cfg
			c.edit(&cfg)
			s, err := s3store.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ops := map[string]func() error{
				"put":    func() error { _, err := s.Put(t.Context(), []byte("x")); return err },
				"get":    func() error { _, err := s.Get(t.Context(), strings.Repeat("b", 64)); return err },
				"getref": func() error { _, _, err := s.GetRef(t.Context(), "subjects/x/mine"); return err },
				"setref": func() error { _, err := s.SetRef(t.Context(), "subjects/x/mine", "", []byte("1")); return err },
				"list":   func() error { _, err := s.ListRefs(t.Context(), ""); return err },
			}
			for op, f := range ops {
				if err := f(); !errors.Is(err, c.kind) {
					t.Errorf("%s: %v, want %v", op, err, c.kind)
				}
			}
		})
	}
}

// A stream past the cap is refused on the spooled path too, leaving no
// object and no spool file behind.
func TestSpooledStreamPastTheCap(t *testing.T) {
	srv := server(t)
	spool := t.TempDir()
	s, err := s3store.New(s3store.Config{
		Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region,
		Bucket: srv.Bucket, Prefix: "spoolcap", MemoryLimit: 1 << 20, SpoolDir: spool, MaxObjectSize: 2 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.PutReader(t.Context(), bytes.NewReader(storetest.Pattern("past the cap", 3<<20)))
	if !errors.Is(err, store.ErrTooLarge) || store.ExitCode(err) != 65 {
		t.Fatalf("PutReader past the cap: %v", err)
	}
	if d, n, err := s.PutReader(t.Context(), bytes.NewReader(storetest.Pattern("at the cap", 2<<20))); err != nil || n != 2<<20 {
		t.Fatalf("PutReader at the cap: %s %d %v", d, n, err)
	}
	if list, err := s.ListObjects(t.Context()); err != nil || len(list) != 1 {
		t.Fatalf("objects: %v, %v", list, err)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Fatalf("spool files left: %v", left)
	}
}
