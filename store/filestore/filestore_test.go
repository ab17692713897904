package filestore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"formation/store"
	"formation/store/filestore"
	"formation/store/storetest"
)

func TestMain(m *testing.M) {
	storetest.HelperMain()
	crashHelperMain()
	os.Exit(m.Run())
}

func openTemp(t *testing.T) store.Store {
	t.Helper()
	s, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// raw reaches the store's files behind its back, as a disk fault, a stray
// editor or an older binary would.
var raw = storetest.Raw{
	Read: func(t *testing.T, s store.Store, key string) ([]byte, bool) {
		b, err := os.ReadFile(rawPath(s, key))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return b, err == nil
	},
	Write: func(t *testing.T, s store.Store, key string, data []byte) {
		t.Helper()
		p := rawPath(s, key)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	},
	Delete: func(t *testing.T, s store.Store, key string) {
		if err := os.Remove(rawPath(s, key)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	},
}

func rawPath(s store.Store, key string) string {
	return filepath.Join(s.(*filestore.Store).Dir(), filepath.FromSlash(key))
}

func openCapped(t *testing.T, maxObject int64) store.Store {
	t.Helper()
	s, err := filestore.OpenWith(t.TempDir(), filestore.Options{MaxObjectSize: maxObject})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, openTemp, storetest.WithRaw(raw), storetest.WithCapped(openCapped))
}

func TestStringReopens(t *testing.T) {
	dir := t.TempDir()
	s, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	if want := "file://" + filepath.ToSlash(abs); s.String() != want {
		t.Fatalf("String() = %q, want %q", s.String(), want)
	}
	d, err := s.Put(t.Context(), []byte("reopen"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := store.Open(t.Context(), s.String())
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := again.Has(t.Context(), d); !ok || err != nil {
		t.Fatalf("reopened store lacks %s: %v", d, err)
	}
}

func TestObjectsAreReadOnly(t *testing.T) {
	s, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Put(t.Context(), []byte("ro"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(s.Dir(), "objects", "sha256", d[:2], d))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("object mode %v is writable", fi.Mode())
	}
}

// Writers opening one new folder at once agree on its format: one of them
// writes the marker, the others read it, and every object they write is
// readable by all.
func TestConcurrentCreationAgreesOnFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	const n = 8
	stores := make([]*filestore.Store, n)
	errs := make(chan error, n)
	for i := range n {
		go func() {
			s, err := filestore.Open(dir)
			stores[i] = s
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range stores {
		if s.Format() != 2 {
			t.Fatalf("store %d opened as format %d", i, s.Format())
		}
		data := []byte{byte(i), 'x'}
		d, err := s.Put(t.Context(), data)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := stores[(i+1)%n].Get(t.Context(), d); err != nil || string(got) != string(data) {
			t.Fatalf("object of writer %d: %q, %v", i, got, err)
		}
	}
	if m, _ := os.ReadFile(filepath.Join(dir, "format")); string(m) != "formation-store/2\n" {
		t.Fatalf("marker %q", m)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) != 0 {
		t.Fatalf("creating the marker left temp files: %v", left)
	}
}

// A read-only folder holding an empty store without a marker still opens
// for reading (as format 1: it holds nothing to read). Permissions do not
// stop root, so under root the folder's tmp/ leads nowhere instead: the
// marker's temp file cannot be made, which is what a read-only folder
// gives the store too (it cannot make tmp/).
func TestReadOnlyEmptyStoreOpens(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"objects/sha256", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "tmp")); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	}
	s, err := filestore.OpenExisting(dir)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := s.ListObjects(t.Context()); err != nil || len(list) != 0 || s.Format() != 1 {
		t.Fatalf("read-only empty store: %v, %v, format %d", list, err, s.Format())
	}
}

// A large object is compressed while Put hashes it, and a large ref hashed
// while SetRef writes it; both behave as the small ones do: the object
// reads back, a second Put of it is a no-op, a damaged stored copy is
// ErrCorrupt and never overwritten, an object past the cap is ErrTooLarge,
// and a ref's version is the one GetRef reports.
func TestLargeWritesAreTheSmallOnes(t *testing.T) {
	ctx := context.Background()
	var big []byte
	for i := 0; len(big) < 3<<20; i++ {
		big = fmt.Appendf(big, `{"head":"term%d","relation":"is","tail":"thing%d"},`, i, i*7)
	}
	for _, data := range [][]byte{big[:1000], big} {
		s := openTemp(t)
		d, err := s.Put(ctx, data)
		if err != nil || d != store.DigestOf(data) {
			t.Fatalf("%d bytes: put %s, %v", len(data), d, err)
		}
		if got, err := s.Get(ctx, d); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes, %v", len(data), len(got), err)
		}
		if again, err := s.Put(ctx, data); err != nil || again != d {
			t.Fatalf("%d bytes: second put %s, %v", len(data), again, err)
		}
		stored, _ := raw.Read(t, s, "objects/sha256/"+d[:2]+"/"+d)
		damaged := bytes.Clone(stored)
		damaged[len(damaged)/2] ^= 0x55
		raw.Write(t, s, "objects/sha256/"+d[:2]+"/"+d, damaged)
		if _, err := s.Put(ctx, data); !errors.Is(err, store.ErrCorrupt) {
			t.Fatalf("%d bytes: put over a damaged copy: %v", len(data), err)
		}
		if kept, _ := raw.Read(t, s, "objects/sha256/"+d[:2]+"/"+d); !bytes.Equal(kept, damaged) {
			t.Fatalf("%d bytes: the damaged copy was overwritten", len(data))
		}
		if _, err := openCapped(t, int64(len(data)-1)).Put(ctx, data); !errors.Is(err, store.ErrTooLarge) {
			t.Fatalf("%d bytes past the cap: %v", len(data), err)
		}
		name := fmt.Sprintf("audit/optics/forge/batch-%d", len(data))
		version, err := s.SetRef(ctx, name, "", data)
		if err != nil {
			t.Fatal(err)
		}
		if value, got, err := s.GetRef(ctx, name); err != nil || got != version || !bytes.Equal(value, data) {
			t.Fatalf("%d bytes: ref version %s, GetRef %s (%d bytes), %v", len(data), version, got, len(value), err)
		}
		if _, err := s.SetRef(ctx, name, "", data); !errors.Is(err, store.ErrPrecondition) {
			t.Fatalf("%d bytes: a second create of the ref: %v", len(data), err)
		}
	}
}

// A ref that must not exist yet is written before its lock is taken; a
// create that fails, on an existing ref or on a name that cannot be a ref,
// fails as SetRef does and leaves no file behind.
func TestFailedCreatesLeaveNothing(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if _, err := s.SetRef(ctx, "subjects/optics/forge", "", []byte("one")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]error{
		"subjects/optics/forge":       store.ErrPrecondition, // exists
		"subjects/optics/forge/inner": store.ErrInvalid,      // under a ref
		"subjects/optics":             store.ErrInvalid,      // a folder of refs
	} {
		if _, err := s.SetRef(ctx, name, "", bytes.Repeat([]byte("v"), 2<<20)); !errors.Is(err, want) {
			t.Errorf("create %s: %v, want %v", name, err, want)
		}
	}
	left, err := s.(store.Maintainer).Leftovers(ctx)
	if err != nil || len(left) != 0 {
		t.Fatalf("leftovers %+v, %v", left, err)
	}
	if v, _, _ := s.GetRef(ctx, "subjects/optics/forge"); string(v) != "one" {
		t.Fatalf("the ref holds %q", v)
	}
}

// endingCtx is a context whose Err reports it cancelled from its nth call
// on: a read let go while it runs.
type endingCtx struct {
	context.Context
	calls, n int
}

func (c *endingCtx) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// A Get whose context ends while it reads stops with the context's error,
// not a corruption and not the whole object; the object still reads.
func TestGetStopsWhenItsContextEnds(t *testing.T) {
	var big []byte
	for i := 0; len(big) < 3<<20; i++ {
		big = fmt.Appendf(big, `{"head":"term%d","relation":"is","tail":"thing%d"},`, i, i*7)
	}
	s := openTemp(t)
	d, err := s.Put(context.Background(), big)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &endingCtx{Context: context.Background(), n: 3}
	got, err := s.Get(ctx, d)
	if !errors.Is(err, context.Canceled) || errors.Is(err, store.ErrCorrupt) || got != nil {
		t.Fatalf("a Get let go: %d bytes, %v", len(got), err)
	}
	if ctx.calls > 10 {
		t.Fatalf("the Get read on for %d checks after its context ended", ctx.calls-ctx.n)
	}
	if again, err := s.Get(context.Background(), d); err != nil || !bytes.Equal(again, big) {
		t.Fatalf("the object afterwards: %d bytes, %v", len(again), err)
	}
}
