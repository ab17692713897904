// Package storetest is the conformance suite every store backend must pass.
// A backend's test calls Run with a function that opens a fresh, empty store;
// its TestMain calls HelperMain first, so that the suite can re-execute the
// test binary as a second writer process.
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"formation/store"
)

// Raw reaches a store's keys behind its back, by layout key ("format",
// "objects/sha256/ab/abcd…"), as a disk fault, a stray editor or an older
// binary would.
type Raw struct {
	// Read returns the stored bytes under key, and whether there are any.
	Read func(t *testing.T, s store.Store, key string) ([]byte, bool)
	// Write replaces (or creates) the stored bytes under key.
	Write func(t *testing.T, s store.Store, key string, data []byte)
	// Delete removes key; a missing key is no error.
	Delete func(t *testing.T, s store.Store, key string)
}

// Option adjusts Run.
type Option func(*suite)

// WithRaw enables the tests of corruption and of the store formats, which
// must run on every backend.
func WithRaw(r Raw) Option { return func(s *suite) { s.raw = &r } }

// WithCapped gives the suite a way to open a fresh, empty store whose cap on
// an object's size is maxObject, for the size-cap tests.
func WithCapped(open func(t *testing.T, maxObject int64) store.Store) Option {
	return func(s *suite) { s.capped = open }
}

// WithIncrements sets how many compare-and-swap increments each concurrent
// worker makes (default 12).
func WithIncrements(n int) Option { return func(s *suite) { s.increments = n } }

type suite struct {
	open       func(t *testing.T) store.Store
	raw        *Raw
	capped     func(t *testing.T, maxObject int64) store.Store
	increments int
}

// Run runs the conformance suite. open must return a new, empty store each
// time; the store's String() must reopen it with store.Open in a child
// process that inherits the environment.
func Run(t *testing.T, open func(t *testing.T) store.Store, opts ...Option) {
	s := &suite{open: open, increments: 12}
	for _, o := range opts {
		o(s)
	}
	t.Run("PutGet", s.testPutGet)
	t.Run("IdempotentPut", s.testIdempotentPut)
	t.Run("InvalidDigest", s.testInvalidDigest)
	t.Run("NotFound", s.testNotFound)
	t.Run("Corruption", s.testCorruption)
	t.Run("PutReader", s.testPutReader)
	t.Run("PutReaderSourceError", s.testPutReaderSourceError)
	t.Run("RefCAS", s.testRefCAS)
	t.Run("RefNoABA", s.testRefNoABA)
	t.Run("RefNesting", s.testRefNesting)
	t.Run("ListRefs", s.testListRefs)
	t.Run("ListObjects", s.testListObjects)
	t.Run("InvalidNames", s.testInvalidNames)
	t.Run("Cancelled", s.testCancelled)
	t.Run("ConcurrentCAS", s.testConcurrentCAS)
	t.Run("UpdateRef", s.testUpdateRef)
	t.Run("Maintenance", s.testMaintenance)
	t.Run("Compressed", s.testCompressed)
	t.Run("CompressedCorruption", s.testCompressedCorruption)
	t.Run("SizeCap", s.testSizeCap)
	t.Run("Format1", s.testFormat1)
	t.Run("UnknownFormat", s.testUnknownFormat)
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Pattern returns n deterministic bytes that do not compress: tests that
// need an object's stored size near its canonical size (spooling, multipart
// uploads) use it.
func Pattern(seed string, n int) []byte { return pattern(seed, n) }

// pattern returns n deterministic, incompressible-looking bytes.
func pattern(seed string, n int) []byte {
	out := make([]byte, 0, n+sha256.Size)
	block := sha256.Sum256([]byte(seed))
	for len(out) < n {
		out = append(out, block[:]...)
		block = sha256.Sum256(block[:])
	}
	return out[:n]
}

func wantKind(t *testing.T, err, kind error, code int) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v: want kind %v", err, kind)
	}
	var se *store.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v is %T, want *store.Error", err, err)
	}
	if got := store.ExitCode(err); got != code {
		t.Fatalf("ExitCode(%v) = %d, want %d", err, got, code)
	}
}

func (s *suite) testPutGet(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	if !strings.Contains(st.String(), "://") {
		t.Fatalf("String() = %q, want a URL", st.String())
	}
	for _, data := range [][]byte{{}, []byte("x"), {0, 0xff, '\n', 0}, pattern("putget", 100_000)} {
		d, err := st.Put(ctx, data)
		if err != nil {
			t.Fatalf("Put(%d bytes): %v", len(data), err)
		}
		if d != digestOf(data) {
			t.Fatalf("Put digest %s, want %s", d, digestOf(data))
		}
		got, err := st.Get(ctx, d)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Get(%s) = %d bytes, %v; want %d bytes", d, len(got), err, len(data))
		}
		if ok, err := st.Has(ctx, d); !ok || err != nil {
			t.Fatalf("Has(%s) = %v, %v", d, ok, err)
		}
	}
}

func (s *suite) testIdempotentPut(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	data := []byte("same bytes twice")
	d1, err1 := st.Put(ctx, data)
	d2, err2 := st.Put(ctx, data)
	d3, n, err3 := st.PutReader(ctx, bytes.NewReader(data))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if d1 != d2 || d1 != d3 || n != int64(len(data)) {
		t.Fatalf("digests %s %s %s size %d", d1, d2, d3, n)
	}
	list, err := st.ListObjects(ctx)
	if err != nil || !slices.Equal(list, []string{d1}) {
		t.Fatalf("ListObjects = %v, %v; want [%s]", list, err, d1)
	}
}

func (s *suite) testInvalidDigest(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	valid := digestOf([]byte("v"))
	bad := []string{"", "abc", strings.ToUpper(valid), valid[:63], valid + "0", valid[:63] + "g",
		"../../../../etc/passwd", strings.Repeat(".", 64), valid[:62] + "/x"}
	for _, d := range bad {
		if store.ValidDigest(d) {
			t.Fatalf("ValidDigest(%q) = true", d)
		}
		_, err := st.Get(ctx, d)
		wantKind(t, err, store.ErrInvalid, 65)
		_, err = st.Has(ctx, d)
		wantKind(t, err, store.ErrInvalid, 65)
	}
	if !store.ValidDigest(valid) {
		t.Fatalf("ValidDigest(%q) = false", valid)
	}
}

func (s *suite) testNotFound(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	missing := digestOf([]byte("never stored"))
	_, err := st.Get(ctx, missing)
	wantKind(t, err, store.ErrNotFound, 66)
	if ok, err := st.Has(ctx, missing); ok || err != nil {
		t.Fatalf("Has(missing) = %v, %v", ok, err)
	}
	_, _, err = st.GetRef(ctx, "subjects/nobody/mine")
	wantKind(t, err, store.ErrNotFound, 66)
	if list, err := st.ListObjects(ctx); err != nil || len(list) != 0 {
		t.Fatalf("ListObjects on empty store = %v, %v", list, err)
	}
	if list, err := st.ListRefs(ctx, ""); err != nil || len(list) != 0 {
		t.Fatalf("ListRefs on empty store = %v, %v", list, err)
	}
}

// needRaw fails a test that needs raw access when the backend gave none.
func (s *suite) needRaw(t *testing.T) *Raw {
	t.Helper()
	if s.raw == nil {
		t.Fatal("storetest: the backend gave no raw access (WithRaw): corruption and formats must be tested on every backend")
	}
	return s.raw
}

// corrupt replaces an object's stored bytes.
func (s *suite) corrupt(t *testing.T, st store.Store, digest string, data []byte) {
	t.Helper()
	s.needRaw(t).Write(t, st, objectKey(digest), data)
}

func objectKey(digest string) string { return "objects/sha256/" + digest[:2] + "/" + digest }

func (s *suite) testCorruption(t *testing.T) {
	s.needRaw(t)
	st, ctx := s.open(t), context.Background()
	data := pattern("corrupt", 4096)
	d, err := st.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(data)
	flipped[100] ^= 0x01
	for _, bad := range [][]byte{flipped, data[:len(data)-1], append(slices.Clone(data), 0)} {
		s.corrupt(t, st, d, bad)
		_, err = st.Get(ctx, d)
		wantKind(t, err, store.ErrCorrupt, 65)
		// Writing the good bytes again must not hide the damage.
		_, err = st.Put(ctx, data)
		wantKind(t, err, store.ErrCorrupt, 65)
	}
}

func (s *suite) testPutReader(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	const size = 9<<20 + 123 // more than one buffer and not a round number
	data := pattern("stream", size)
	// OneByteReader on a prefix, then half reads: odd chunk sizes.
	r := io.MultiReader(iotest.OneByteReader(bytes.NewReader(data[:100])), iotest.HalfReader(bytes.NewReader(data[100:])))
	d, n, err := st.PutReader(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if d != digestOf(data) || n != size {
		t.Fatalf("PutReader = %s, %d; want %s, %d", d, n, digestOf(data), size)
	}
	got, err := st.Get(ctx, d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get after PutReader: %d bytes, %v", len(got), err)
	}
	// Again: already present, same answer.
	if d2, n2, err := st.PutReader(ctx, bytes.NewReader(data)); err != nil || d2 != d || n2 != size {
		t.Fatalf("second PutReader = %s, %d, %v", d2, n2, err)
	}
}

func (s *suite) testPutReaderSourceError(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	boom := errors.New("source broke")
	for _, n := range []int{10, 9 << 20} {
		r := io.MultiReader(bytes.NewReader(pattern("partial", n)), iotest.ErrReader(boom))
		if _, _, err := st.PutReader(ctx, r); !errors.Is(err, boom) {
			t.Fatalf("PutReader with failing source (%d bytes): %v, want %v", n, err, boom)
		}
	}
	if list, err := st.ListObjects(ctx); err != nil || len(list) != 0 {
		t.Fatalf("a failed stream left objects: %v, %v", list, err)
	}
}
