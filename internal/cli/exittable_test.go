package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"formation/internal/exitcode"
	"formation/internal/testutil"
	"formation/store"
	"formation/store/s3store"
)

// buildFormation builds the formation binary into a folder every user may
// read (the unwritable-folder rows run it as another user).
func buildFormation(t *testing.T) string {
	t.Helper()
	dir := sharedDir(t)
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "formation")
	cmd := exec.Command(gobin, "build", "-o", bin, "formation/cmd/formation")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sharedDir is a temporary folder other users may read and traverse.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "formation-exit-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		_ = os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// world is one backend's working folder: the courses (with a public
// question set no knowledge answers, for the eval row), the packs, the
// store URL and the environment the binary runs in.
type world struct {
	bin, dir, store string
	env             []string
	s3              *testutil.S3Server
}

func newWorld(t *testing.T, bin string, srv *testutil.S3Server) *world {
	t.Helper()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := sharedDir(t)
	for _, d := range []string{"courses", "packs"} {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join(root, d))); err != nil {
			t.Fatal(err)
		}
	}
	bad := `{"id":"pub-def-unicorn","question":"What is a unicorn?","kind":"definition","expect":{"term":"unicorn","definition":"a horse with one horn"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "courses", "optics", "questions", "public.jsonl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &world{bin: bin, dir: dir, store: "file://" + filepath.Join(dir, "store"), s3: srv}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FORMATION_") && !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "CORE_ALLOW") {
			w.env = append(w.env, kv)
		}
	}
	w.env = append(w.env, "FORMATION_COURSES_DIR="+filepath.Join(dir, "courses"), "FORMATION_PACKS_DIR="+filepath.Join(dir, "packs"), "CI=true")
	if srv != nil {
		w.store = "s3://" + srv.Bucket + "/" + filepath.Base(dir)
		w.env = append(w.env, srv.Env()...)
	}
	return w
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// run runs the binary with args, the world's store and env plus extra
// variables (a later one wins).
func (w *world) run(t *testing.T, extra []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.bin, append([]string{"--store", w.store}, args...)...)
	cmd.Dir = w.dir
	cmd.Env = append(slices.Clone(w.env), extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// open opens the world's store in the test process.
func (w *world) open(t *testing.T) store.Store {
	t.Helper()
	if w.s3 != nil {
		w.s3.SetEnv(t)
	}
	s, err := store.OpenExisting(t.Context(), w.store)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ref reads a ref's value.
func (w *world) ref(t *testing.T, name string) string {
	t.Helper()
	v, _, err := w.open(t).GetRef(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(v))
}

// row is one exit-code condition, provoked for real.
type row struct {
	code int
	name string
	run  func(t *testing.T, w *world) result
	want string // a fragment of stderr
}

// The exit-code table, one row per code on each backend where the
// condition exists, each provoked through the binary against a real
// condition. Rows run in order on one store per backend (the promotion
// the eval row needs comes first). Codes that only a fault-injecting S3
// proxy can provoke (a timeout against a frozen server: 75) belong with
// that proxy's suite; fileOnly and s3Only say which rows a backend lacks.
func TestExitCodeTable(t *testing.T) {
	bin := buildFormation(t)
	seen := map[string][]int{}
	for _, backend := range []string{"file", "s3"} {
		t.Run(backend, func(t *testing.T) {
			var srv *testutil.S3Server
			if backend == "s3" {
				s := testutil.StartS3(t)
				srv = &s
			}
			w := newWorld(t, bin, srv)
			rows := commonRows()
			if srv == nil {
				rows = append(rows, fileOnlyRows()...)
			} else {
				rows = append(rows, s3OnlyRows()...)
			}
			for _, r := range rows {
				res := r.run(t, w)
				if res.code != r.code || !strings.Contains(res.stderr, r.want) {
					t.Errorf("%s: exit %d, want %d with %q on stderr\nstderr: %.1500s", r.name, res.code, r.code, r.want, res.stderr)
					continue
				}
				seen[backend] = append(seen[backend], r.code)
				t.Logf("%3d  %s", r.code, r.name)
			}
		})
	}
	for _, r := range exitcode.Table() {
		if !slices.Contains(seen["file"], r.Code) && !slices.Contains(seen["s3"], r.Code) {
			t.Errorf("exit %d (%s) has no passing row on any backend", r.Code, r.Meaning)
		}
	}
}

func commonRows() []row {
	return []row{
		{exitcode.OK, "autorun of the example subject", func(t *testing.T, w *world) result {
			return w.run(t, nil, "autorun", "optics")
		}, "ratified"},
		{exitcode.Usage, "a surplus argument", func(t *testing.T, w *world) result {
			return w.run(t, nil, "mine", "optics", "optics2")
		}, `unexpected argument(s) "optics2"`},
		{exitcode.Usage, "a mistyped store URL", func(t *testing.T, w *world) result {
			return w.run(t, nil, "--store", "s3:/x", "status", "optics")
		}, "not a store URL"},
		{exitcode.NotFound, "autorun of a subject that does not exist", func(t *testing.T, w *world) result {
			return w.run(t, nil, "autorun", "nosuch")
		}, "no folder"},
		{exitcode.NotFound, "status of a subject nobody knows", func(t *testing.T, w *world) result {
			return w.run(t, nil, "status", "nosuch")
		}, "unknown subject nosuch"},
		{exitcode.SealInvalid, "promote signed by a key that is not trusted", func(t *testing.T, w *world) result {
			for _, k := range []string{"curator.key", "other.key"} {
				if r := w.run(t, nil, "keygen", "--out", filepath.Join(w.dir, k)); r.code != 0 {
					t.Fatalf("keygen: %+v", r)
				}
			}
			return w.run(t, nil, "promote", w.ref(t, "subjects/optics/ratify"), "--key", filepath.Join(w.dir, "other.key"),
				"--trusted-keys", filepath.Join(w.dir, "curator.key.pub"))
		}, "untrusted_key"},
		{exitcode.GatesFailed, "an eval lane stored but failing its thresholds", func(t *testing.T, w *world) result {
			if r := w.run(t, nil, "promote", w.ref(t, "subjects/optics/ratify"), "--key", filepath.Join(w.dir, "curator.key"),
				"--trusted-keys", filepath.Join(w.dir, "curator.key.pub")); r.code != 0 {
				t.Fatalf("promote: %+v", r)
			}
			return w.run(t, nil, "eval", "domain_qa", "--domain", "optics", "--split", "public", "--trusted-keys", filepath.Join(w.dir, "curator.key.pub"))
		}, "eval:"},
		{exitcode.Rejected, "a corrupt stored object", func(t *testing.T, w *world) result {
			corrupt(t, w, w.ref(t, "subjects/optics/smelt"))
			return w.run(t, nil, "smelt", "optics")
		}, "corrupt_object"},
		{exitcode.Rejected, "a stored object whose zstd frame is damaged", func(t *testing.T, w *world) result {
			corruptWith(t, w, w.ref(t, "subjects/optics/smelt"), func(stored []byte) []byte {
				stored[len(stored)/2] ^= 0x40
				return stored
			})
			return w.run(t, nil, "smelt", "optics")
		}, "corrupt_object"},
		{exitcode.Internal, "a cache record that contradicts its recomputation (an injected fault)", func(t *testing.T, w *world) result {
			injectCacheConflict(t, w, "optics", "mine")
			return w.run(t, nil, "mine", "optics")
		}, "cache_conflict"},
	}
}

// corrupt overwrites a stored object with other bytes, behind the store's back.
func corrupt(t *testing.T, w *world, digest string) {
	t.Helper()
	corruptWith(t, w, digest, func([]byte) []byte { return []byte("not the bytes this digest names") })
}

// corruptWith replaces a stored object's bytes at rest with what damage
// makes of them, behind the store's back.
func corruptWith(t *testing.T, w *world, digest string, damage func(stored []byte) []byte) {
	t.Helper()
	if w.s3 == nil {
		p := filepath.Join(strings.TrimPrefix(w.store, "file://"), "objects", "sha256", digest[:2], digest)
		stored, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, damage(stored), 0o444); err != nil {
			t.Fatal(err)
		}
		return
	}
	s := w.open(t).(*s3store.Store)
	key := s.Key("objects/sha256/" + digest[:2] + "/" + digest)
	obj, err := w.s3.Client(t).GetObject(t.Context(), w.s3.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := io.ReadAll(obj)
	_ = obj.Close()
	if err != nil {
		t.Fatal(err)
	}
	bad := damage(stored)
	if _, err := w.s3.Client(t).PutObject(t.Context(), w.s3.Bucket, key, bytes.NewReader(bad), int64(len(bad)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
}

// injectCacheConflict points the subject's recorded cache entry for a stage
// at an output that does not exist: the next run finds the entry, cannot
// serve it, recomputes, and finds another output recorded under the same
// key, which is an internal error (the cache's own consistency check).
func injectCacheConflict(t *testing.T, w *world, subject, stage string) {
	t.Helper()
	s := w.open(t)
	var rec map[string]any
	if err := json.Unmarshal([]byte(w.ref(t, "cache/last/"+subject+"/"+stage)), &rec); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("cache/%s/%s", stage, rec["key"])
	rec["output"] = strings.Repeat("0", 64)
	body, _ := json.Marshal(rec)
	if err := store.SetRefValue(t.Context(), s, name, body); err != nil {
		t.Fatal(err)
	}
}

func fileOnlyRows() []row {
	return []row{
		{exitcode.Config, "a store folder the process may not write", func(t *testing.T, w *world) result {
			parent := filepath.Join(w.dir, "locked")
			if err := os.Mkdir(parent, 0o555); err != nil {
				t.Fatal(err)
			}
			return w.asOtherUser(t, []string{"--store", filepath.Join(parent, "store"), "autorun", "optics"})
		}, "not writable"},
		{exitcode.Rejected, "check of a read-only store with a corrupt object: the audit write fails, the code stays", func(t *testing.T, w *world) result {
			return w.asOtherUser(t, []string{"check", "--read-data"})
		}, "warning: the audit record(s) of check could not be written"},
		{exitcode.Interrupted, "SIGINT to a chat waiting for its next line", func(t *testing.T, w *world) result {
			return w.interruptChat(t)
		}, ""},
	}
}

// asOtherUser runs the binary as a user who may read the world but not
// write the store (as root: the user nobody; otherwise the test's own user
// after the store is made read-only).
func (w *world) asOtherUser(t *testing.T, args []string) result {
	t.Helper()
	storeDir := strings.TrimPrefix(w.store, "file://")
	cmd := exec.Command(w.bin, append([]string{"--store", w.store}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.env
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		setWritable(t, storeDir, false)
		defer setWritable(t, storeDir, true)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

func setWritable(t *testing.T, dir string, on bool) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			mode := os.FileMode(0o555)
			if on {
				mode = 0o755
			}
			_ = os.Chmod(p, mode)
		}
		return nil
	})
}

// interruptChat starts a chat, waits for its answer to one line, then sends
// SIGINT while it waits for the next.
func (w *world) interruptChat(t *testing.T) result {
	t.Helper()
	cmd := exec.Command(w.bin, "--store", w.store, "chat")
	cmd.Dir, cmd.Env = w.dir, w.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	answered := make(chan struct{})
	var out, errb bytes.Buffer
	cmd.Stdout = &signalWriter{w: &out, once: answered}
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, "What does refraction cause?")
	select {
	case <-answered:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("chat did not answer")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// signalWriter closes once on its first write.
type signalWriter struct {
	w    *bytes.Buffer
	once chan struct{}
}

func (s *signalWriter) Write(p []byte) (int, error) {
	select {
	case <-s.once:
	default:
		close(s.once)
	}
	return s.w.Write(p)
}

// s3OnlyRows are the conditions only S3 has. The rows that need a
// fault-injecting proxy in front of the server (75 after a per-request
// timeout against a frozen server, within the retry budget) belong here too,
// appended by the suite that provides the proxy; the SIGINT row below stops
// its hung request before any deadline.
func s3OnlyRows() []row {
	return []row{
		{exitcode.SealInvalid, "a wrong secret key", func(t *testing.T, w *world) result {
			return w.run(t, []string{"AWS_SECRET_ACCESS_KEY=not-the-secret"}, "status", "optics")
		}, "credentials refused"},
		{exitcode.SealInvalid, "an access key the server does not know", func(t *testing.T, w *world) result {
			return w.run(t, []string{"AWS_ACCESS_KEY_ID=NOSUCHKEY"}, "status", "optics")
		}, "credentials refused"},
		{exitcode.Config, "no credentials anywhere", func(t *testing.T, w *world) result {
			return w.run(t, []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "HOME=" + w.dir,
				"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(w.dir, "no-credentials")}, "status", "optics")
		}, "no S3 credentials found"},
		{exitcode.Config, "an access key without its secret", func(t *testing.T, w *world) result {
			return w.run(t, []string{"AWS_SECRET_ACCESS_KEY="}, "status", "optics")
		}, "must be set together"},
		{exitcode.Config, "https against the plain-http server", func(t *testing.T, w *world) result {
			return w.run(t, []string{"FORMATION_S3_ENDPOINT=https://" + w.s3.Endpoint}, "status", "optics")
		}, "store misconfigured"},
		{exitcode.Config, "an endpoint that is not an S3 server (it answers 404)", func(t *testing.T, w *world) result {
			notS3 := httptest.NewServer(http.NotFoundHandler())
			defer notS3.Close()
			return w.run(t, []string{"FORMATION_S3_ENDPOINT=" + notS3.URL}, "autorun", "optics")
		}, "not an S3 server"},
		{exitcode.Unavailable, "an endpoint that refuses connections", func(t *testing.T, w *world) result {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			return w.run(t, []string{"FORMATION_S3_ENDPOINT=" + addr}, "status", "optics")
		}, "store unavailable"},
		{exitcode.Interrupted, "SIGINT while the endpoint never answers", func(t *testing.T, w *world) result {
			return w.interruptHungS3(t)
		}, ""},
	}
}

// interruptHungS3 points the binary at an endpoint that accepts connections
// and never replies, waits until the request is in flight, and sends SIGINT.
func (w *world) interruptHungS3(t *testing.T) result {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	cmd := exec.Command(w.bin, "--store", w.store, "status", "optics")
	cmd.Dir = w.dir
	cmd.Env = append(slices.Clone(w.env), "FORMATION_S3_ENDPOINT="+l.Addr().String())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("no request reached the endpoint")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}
