package filestore_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/store"
	"formation/store/filestore"
)

// The crash writer is this test binary re-executed with these variables.
const (
	envCrashDir  = "FORMATION_FILESTORE_CRASH_DIR"
	envCrashMode = "FORMATION_FILESTORE_CRASH_MODE"
	crashRef     = "cache/crash/last"
)

// crashHelperMain is the writer process: it writes objects (some several MB,
// some streamed) and moves a ref after each, printing "ok <digest>" once a
// write has returned. In mode "block" it instead stalls half way through a
// stream, after printing "mid", so that the kill lands inside a write.
func crashHelperMain() {
	dir := os.Getenv(envCrashDir)
	if dir == "" {
		return
	}
	s, err := filestore.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	if os.Getenv(envCrashMode) == "block" {
		d, _ := s.Put(ctx, []byte("before the stall"))
		fmt.Println("ok", d)
		_, _, err := s.PutReader(ctx, io.MultiReader(bytes.NewReader(payload(0, 2<<20)), stallReader{}))
		fmt.Fprintln(os.Stderr, "stall ended:", err)
		os.Exit(3)
	}
	version := ""
	for i := 0; ; i++ {
		d, err := writeOne(ctx, s, i)
		if err == nil {
			version, err = s.SetRef(ctx, crashRef, version, []byte(d))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("ok", d)
	}
}

func writeOne(ctx context.Context, s *filestore.Store, i int) (string, error) {
	if i%3 == 0 {
		d, _, err := s.PutReader(ctx, bytes.NewReader(payload(i, 3<<20+i)))
		return d, err
	}
	return s.Put(ctx, payload(i, 1000+i*997))
}

func payload(i, n int) []byte {
	out := make([]byte, 0, n+sha256.Size)
	block := sha256.Sum256(fmt.Appendf(nil, "crash-%d", i))
	for len(out) < n {
		out = append(out, block[:]...)
		block = sha256.Sum256(block[:])
	}
	return out[:n]
}

// stallReader announces the stall and never returns.
type stallReader struct{}

func (stallReader) Read([]byte) (int, error) {
	fmt.Println("mid")
	time.Sleep(time.Hour)
	return 0, io.EOF
}

// startWriter launches the writer and kills it with SIGKILL once stop says
// so, returning the digests it acknowledged.
func startWriter(t *testing.T, dir, mode string, stop func(line string, acked int) bool) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashMode+"="+mode)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "ok "); ok {
			acked = append(acked, d)
		}
		if stop(line, len(acked)) {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if len(acked) == 0 {
		t.Fatalf("writer acknowledged nothing; stderr: %s", stderr.String())
	}
	return acked
}

// checkAfterCrash verifies that every visible object is complete, every
// acknowledged one is visible, and nothing but objects sits in objects/.
func checkAfterCrash(t *testing.T, dir string, acked []string) *filestore.Store {
	t.Helper()
	s, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	listed, err := s.ListObjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range acked {
		if !slices.Contains(listed, d) {
			t.Errorf("acknowledged object %s missing after the crash", d)
		}
	}
	for _, d := range listed {
		if _, err := s.Get(ctx, d); err != nil {
			t.Errorf("object visible after the crash does not verify: %v", err)
		}
	}
	err = filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && (!store.ValidDigest(e.Name()) || filepath.Base(filepath.Dir(p)) != e.Name()[:2]) {
			t.Errorf("stray file among objects: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCrashMidStream(t *testing.T) {
	dir := t.TempDir()
	acked := startWriter(t, dir, "stream", func(_ string, n int) bool { return n >= 12 })
	s := checkAfterCrash(t, dir, acked)
	// The ref survived intact, names a stored object, and its lock died with
	// the writer.
	val, ver, err := s.GetRef(t.Context(), crashRef)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), string(val)); err != nil {
		t.Fatalf("ref points at %s: %v", val, err)
	}
	if _, err := s.SetRef(t.Context(), crashRef, ver, []byte("after")); err != nil {
		t.Fatalf("ref not writable after the crash: %v", err)
	}
	t.Logf("killed after %d acknowledged writes", len(acked))
}

func TestCrashInsideWrite(t *testing.T) {
	dir := t.TempDir()
	acked := startWriter(t, dir, "block", func(line string, _ int) bool { return line == "mid" })
	s := checkAfterCrash(t, dir, acked)
	listed, _ := s.ListObjects(t.Context())
	if !slices.Equal(listed, acked) {
		t.Fatalf("objects after a kill inside a write = %v, want only %v", listed, acked)
	}
	// The half-written stream is a temp file: invisible, listed as a
	// leftover, and removed by RemoveLeftover.
	left, err := s.Leftovers(t.Context())
	if err != nil || len(left) != 1 || left[0].Kind != "temp_file" || left[0].Size == 0 {
		t.Fatalf("want the killed write's temp file as the one leftover, got %+v, %v", left, err)
	}
	if err := s.RemoveLeftover(t.Context(), left[0]); err != nil {
		t.Fatal(err)
	}
	if temps, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(temps) != 0 {
		t.Fatalf("tmp/ not empty after RemoveLeftover: %d entries", len(temps))
	}
}
