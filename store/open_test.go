package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/store/filestore"
	"formation/store/s3store"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	for _, u := range []string{dir, "file://" + dir, "file://" + dir + "/"} {
		s, err := openEnv(t.Context(), u, create, envOf(nil))
		if err != nil {
			t.Fatalf("Open(%q): %v", u, err)
		}
		fs, ok := s.(*filestore.Store)
		if !ok || fs.Dir() != dir || s.String() != "file://"+filepath.ToSlash(dir) {
			t.Fatalf("Open(%q) = %T %v", u, s, s)
		}
	}
}

func TestOpenDefaultIsLocalFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s, err := openEnv(t.Context(), "", create, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(dir, ".formation"))
	got, _ := filepath.EvalSymlinks(s.(*filestore.Store).Dir())
	if got != want {
		t.Fatalf("default store at %q, want %q", got, want)
	}
}

func TestOpenS3(t *testing.T) {
	cases := []struct {
		url, endpoint string
		env           map[string]string
		host          string
		secure        bool
		str           string
	}{
		{url: "s3://bkt/some/prefix/", env: map[string]string{"FORMATION_S3_ENDPOINT": "127.0.0.1:9000", "FORMATION_S3_INSECURE": "1"},
			host: "127.0.0.1:9000", secure: false, str: "s3://bkt/some/prefix"},
		{url: "s3://bkt", env: map[string]string{"FORMATION_S3_ENDPOINT": "https://s3.example.org"},
			host: "s3.example.org", secure: true, str: "s3://bkt"},
		{url: "s3://bkt/p", env: map[string]string{"FORMATION_S3_ENDPOINT": "http://minio:9000/"},
			host: "minio:9000", secure: false, str: "s3://bkt/p"},
		{url: "s3://bkt/p", env: map[string]string{"AWS_ENDPOINT_URL": "http://fallback:1"},
			host: "fallback:1", secure: false, str: "s3://bkt/p"},
		{url: "s3://bkt/p", env: map[string]string{},
			host: "s3.amazonaws.com", secure: true, str: "s3://bkt/p"},
	}
	for _, c := range cases {
		env := envOf(c.env)
		cfg, err := s3Config(strings.TrimPrefix(c.url, "s3://"), env)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if cfg.Endpoint != c.host || cfg.Secure != c.secure {
			t.Fatalf("%s %v: endpoint %q secure %v, want %q %v", c.url, c.env, cfg.Endpoint, cfg.Secure, c.host, c.secure)
		}
		s, err := openEnv(t.Context(), c.url, create, env)
		if err != nil {
			t.Fatalf("Open(%q): %v", c.url, err)
		}
		if _, ok := s.(*s3store.Store); !ok || s.String() != c.str {
			t.Fatalf("Open(%q) = %T %q, want %q", c.url, s, s.String(), c.str)
		}
	}
}

func TestOpenS3Credentials(t *testing.T) {
	env := envOf(map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "s3cr3t-value", "AWS_SESSION_TOKEN": "tok",
		"AWS_DEFAULT_REGION": "eu-west-1",
	})
	cfg, err := s3Config("bkt/p", env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AccessKey != "AKIDEXAMPLE" || cfg.SecretKey != "s3cr3t-value" || cfg.SessionToken != "tok" || cfg.Region != "eu-west-1" {
		t.Fatalf("credentials not taken from the environment: %+v", cfg.Region)
	}
	s, err := openEnv(t.Context(), "s3://bkt/p", create, env)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.String(), "s3cr3t") || strings.Contains(s.String(), "AKID") {
		t.Fatalf("String() leaks credentials: %q", s.String())
	}
}

func TestOpenRejects(t *testing.T) {
	badURLs := []string{"gs://bucket", "s3://", "s3:///prefix", "s3://Bucket_Upper/p", "s3://bkt/../escape",
		"s3://bkt/a//b", "s3://bkt/.hidden", "file://", "s3:/x", "s3:x", "file:/tmp/x", "file:x", "http://host/x", "c:x"}
	for _, u := range badURLs {
		_, err := openEnv(t.Context(), u, create, envOf(nil))
		if !errors.Is(err, ErrInvalid) || ExitCode(err) != 65 || !strings.Contains(err.Error(), "s3://") && !strings.Contains(err.Error(), "prefix") && !strings.Contains(err.Error(), "bucket") {
			t.Errorf("Open(%q) = %v, want ErrInvalid naming the accepted forms", u, err)
		}
	}
	badEnv := []map[string]string{
		{"FORMATION_S3_ENDPOINT": "ftp://host"},
		{"FORMATION_S3_ENDPOINT": "http://user:pw@host"},
		{"FORMATION_S3_ENDPOINT": "http://host/path"},
		{"FORMATION_S3_INSECURE": "maybe"},
		{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE"},
		{"AWS_SECRET_ACCESS_KEY": "s3cr3t-value"},
		{"AWS_ACCESS_KEY_ID": "AKID EXAMPLE", "AWS_SECRET_ACCESS_KEY": "s3cr3t-value"},
	}
	for _, env := range badEnv {
		_, err := openEnv(t.Context(), "s3://bkt", create, envOf(env))
		if !errors.Is(err, ErrConfig) || ExitCode(err) != 78 {
			t.Errorf("Open(s3://bkt, %v) = %v, want ErrConfig (78)", env, err)
		}
		if err != nil && (strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "s3cr3t")) {
			t.Errorf("error leaks a secret: %v", err)
		}
	}
}

// A plain path may hold a ':' after its first '/'.
func TestOpenPlainPathWithColon(t *testing.T) {
	dir := t.TempDir()
	s, err := openEnv(t.Context(), dir+"/a:b", create, envOf(nil))
	if err != nil || s.(*filestore.Store).Dir() != filepath.Join(dir, "a:b") {
		t.Fatalf("Open(%q) = %v, %v", dir+"/a:b", s, err)
	}
}

// OpenExisting never creates a folder: a missing store is ErrNotFound and
// leaves nothing behind; a store Open created opens.
func TestOpenExisting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	for _, u := range []string{dir, "file://" + dir} {
		_, err := openEnv(t.Context(), u, existing, envOf(nil))
		if !errors.Is(err, ErrNotFound) || ExitCode(err) != 66 {
			t.Fatalf("OpenExisting(%q) on nothing = %v, want ErrNotFound", u, err)
		}
		if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
			t.Fatalf("OpenExisting(%q) created the folder", u)
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := openEnv(t.Context(), dir, existing, envOf(nil)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("OpenExisting on an empty folder = %v, want ErrNotFound", err)
	}
	if _, err := openEnv(t.Context(), dir, create, envOf(nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := openEnv(t.Context(), dir, existing, envOf(nil)); err != nil {
		t.Fatalf("OpenExisting on a store: %v", err)
	}
}

func TestOpenS3Deadlines(t *testing.T) {
	for _, c := range []struct {
		timeout, budget string
		wantT, wantB    time.Duration
	}{
		{"", "", 0, 0}, // the backend's defaults (30s, 60s)
		{"2s", "90s", 2 * time.Second, 90 * time.Second},
		{"1m", "0s", time.Minute, -1}, // a zero budget: one attempt only
	} {
		cfg, err := s3Config("bkt", envOf(map[string]string{"FORMATION_S3_TIMEOUT": c.timeout, "FORMATION_S3_RETRY_BUDGET": c.budget}))
		if err != nil || cfg.Timeout != c.wantT || cfg.RetryBudget != c.wantB {
			t.Errorf("timeout %q budget %q: %v %v %v", c.timeout, c.budget, cfg.Timeout, cfg.RetryBudget, err)
		}
	}
	for _, bad := range []map[string]string{
		{"FORMATION_S3_TIMEOUT": "30"}, {"FORMATION_S3_TIMEOUT": "0s"}, {"FORMATION_S3_TIMEOUT": "-1s"},
		{"FORMATION_S3_RETRY_BUDGET": "soon"}, {"FORMATION_S3_RETRY_BUDGET": "-5s"},
	} {
		_, err := openEnv(t.Context(), "s3://bkt", create, envOf(bad))
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%v: %v, want ErrConfig", bad, err)
		}
	}
}
