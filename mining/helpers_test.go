package mining

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"formation/courses"
)

// memStore is an in-memory content-addressed store for tests.
type memStore struct {
	mu   sync.Mutex
	objs map[string][]byte
	puts int
}

func newMemStore() *memStore { return &memStore{objs: map[string][]byte{}} }

func (s *memStore) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return "", 0, err
	}
	sum := sha256.Sum256(data)
	d := hex.EncodeToString(sum[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objs[d] = data
	s.puts++
	return d, int64(len(data)), nil
}

func (s *memStore) get(t *testing.T, digest string) []byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.objs[digest]
	if !ok {
		t.Fatalf("object %s was not stored", digest)
	}
	return data
}

func sha(data string) string {
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])
}

// subjectDir builds courses/<id>/ in a temp folder with the given files
// (path → content) and subject.yaml made of header + sources, and loads it.
func subjectDir(t *testing.T, sources string, files map[string]string) *courses.Subject {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	writeFiles(t, dir, files)
	yaml := "subject_id: demo\ntitle: Demo\ntarget_depth: introductory\ntemplate: definition\nretrieved_at: 2026-05-16T00:00:00Z\nsources:\n" + sources
	writeFiles(t, dir, map[string]string{courses.SubjectFile: yaml})
	s, err := courses.Load(context.Background(), dir)
	if err != nil {
		t.Fatalf("load subject: %v", err)
	}
	return s
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// src renders one source entry of subject.yaml from key/value pairs.
func src(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		prefix := "    "
		if i == 0 {
			prefix = "  - "
		}
		switch kv[i] {
		case "max_bytes", "max_files", "max_rows": // integers stay unquoted
			fmt.Fprintf(&b, "%s%s: %s\n", prefix, kv[i], kv[i+1])
		default:
			fmt.Fprintf(&b, "%s%s: %q\n", prefix, kv[i], kv[i+1])
		}
	}
	return b.String()
}
