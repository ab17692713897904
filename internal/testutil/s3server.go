//go:build unix

package testutil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Server is a real S3 server (versitygw with its posix backend) running on
// 127.0.0.1 for the duration of a test, with one empty bucket.
type S3Server struct {
	Endpoint  string // 127.0.0.1:port
	AccessKey string
	SecretKey string
	Region    string
	Bucket    string
	Dir       string // the posix backend's root folder
	PID       int
}

// Env returns the variables under which store.Open("s3://bucket/…") (in this
// process or a child) reaches the server.
func (s S3Server) Env() []string {
	return []string{
		"FORMATION_S3_ENDPOINT=" + s.Endpoint,
		"FORMATION_S3_INSECURE=1",
		"AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + s.Region,
	}
}

// SetEnv sets Env for the rest of the test (children inherit it).
func (s S3Server) SetEnv(t testing.TB) {
	t.Helper()
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Client returns a raw minio client for the server, for tests that must
// bypass the store (e.g. to corrupt an object).
func (s S3Server) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(s.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region: s.Region,
	})
	if err != nil {
		t.Fatalf("s3 client: %v", err)
	}
	return c
}

const (
	versitygwVersion = "v1.8.0"
	s3Region         = "us-east-1"
	s3Bucket         = "formation-test"
	startAttempts    = 3
	readyTimeout     = 15 * time.Second
)

// StartS3 starts versitygw for the test and stops it (by process group) when
// the test ends. The binary is FORMATION_VERSITYGW, else .tools/bin/versitygw
// under the module root, else versitygw on PATH. When it is missing the test
// is skipped, except under CI=true, where that is a failure.
func StartS3(t testing.TB) S3Server {
	t.Helper()
	bin, err := versitygwBinary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("S3 server required under CI=true: %v", err)
		}
		t.Skipf("S3 tests skipped: %v (install with `go install github.com/versity/versitygw/cmd/versitygw@%s` "+
			"or set FORMATION_VERSITYGW)", err, versitygwVersion)
	}
	srv := S3Server{
		AccessKey: randomKey(t, 10),
		SecretKey: randomKey(t, 20),
		Region:    s3Region,
		Bucket:    s3Bucket,
		Dir:       t.TempDir(),
	}
	var lastErr error
	for range startAttempts {
		// A free port can be taken between probing and binding; retry then.
		if lastErr = srv.start(t, bin); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("start versitygw: %v", lastErr)
	}
	srv.makeBucket(t)
	return srv
}

func versitygwBinary() (string, error) {
	if p := os.Getenv("FORMATION_VERSITYGW"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("FORMATION_VERSITYGW=%s: %w", p, err)
		}
		return p, nil
	}
	if root, err := ModuleRoot(); err == nil {
		p := filepath.Join(root, ".tools", "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("versitygw")
	if err != nil {
		return "", errors.New("versitygw not found (FORMATION_VERSITYGW, .tools/bin, PATH)")
	}
	return p, nil
}

func randomKey(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("random key: %v", err)
	}
	return hex.EncodeToString(b)
}

// start launches one server process and waits until it answers.
func (s *S3Server) start(t testing.TB, bin string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	s.Endpoint = "127.0.0.1:" + strconv.Itoa(port)
	logPath := filepath.Join(t.TempDir(), "versitygw.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	data := filepath.Join(s.Dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--port", s.Endpoint, "--health", "/health", "--quiet",
		"--region", s.Region, "posix", data)
	// Keys go through the environment, not argv, to stay out of ps output.
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKey, "ROOT_SECRET_ACCESS_KEY="+s.SecretKey)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = serverProcAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	if err := waitReady(s.Endpoint, exited); err != nil {
		stop()
		log, _ := os.ReadFile(logPath)
		return fmt.Errorf("%w; server log:\n%s", err, log)
	}
	s.PID = cmd.Process.Pid
	t.Cleanup(stop)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls the health endpoint until it answers 200, the process
// exits, or the deadline passes.
func waitReady(endpoint string, exited <-chan error) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("versitygw exited early: %v", err)
		default:
		}
		resp, err := client.Get("http://" + endpoint + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("versitygw not ready on %s after %v", endpoint, readyTimeout)
}

func (s S3Server) makeBucket(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Client(t).MakeBucket(ctx, s.Bucket, minio.MakeBucketOptions{Region: s.Region}); err != nil {
		t.Fatalf("create bucket %s: %v", s.Bucket, err)
	}
}
