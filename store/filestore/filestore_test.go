package filestore_test

import (
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

// corruptFile rewrites an object's file in place, as a disk fault or a stray
// editor would.
func corruptFile(t *testing.T, s store.Store, digest string, data []byte) {
	t.Helper()
	fs := s.(*filestore.Store)
	p := filepath.Join(fs.Dir(), "objects", "sha256", digest[:2], digest)
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, openTemp, storetest.WithCorrupter(corruptFile))
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
