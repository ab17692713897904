package storetest

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"formation/store"
)

// The store formats every backend must honour: a new store is format 2
// (marker "formation-store/2\n" at its root, every object one zstd frame of
// its canonical bytes); a store without a marker that holds anything is
// format 1 (objects as their bytes) and stays so; digests name the
// canonical bytes in both.

const marker2 = "formation-store/2\n"

// zstdFrame compresses data as any zstd encoder would.
func zstdFrame(t *testing.T, data []byte) []byte {
	t.Helper()
	e, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(data, nil)
}

func unzstd(t *testing.T, stored []byte) []byte {
	t.Helper()
	d, err := zstd.NewReader(bytes.NewReader(stored))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := io.ReadAll(d)
	if err != nil {
		t.Fatalf("stored bytes do not decompress: %v", err)
	}
	return out
}

// testCompressed: a new store carries the format 2 marker, and every object
// (put whole or streamed, small or spooled) is at rest as one zstd frame of
// its canonical bytes, named by the canonical bytes' digest.
func (s *suite) testCompressed(t *testing.T) {
	raw := s.needRaw(t)
	st, ctx := s.open(t), context.Background()
	text := []byte(strings.Repeat(`{"relation":"causes","from":"refraction","to":"dispersion"}`, 2000))
	d1, err := st.Put(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("streamed past the memory buffer "), (9<<20)/32+3)
	d2, n, err := st.PutReader(ctx, bytes.NewReader(big))
	if err != nil || n != int64(len(big)) {
		t.Fatalf("PutReader: %d, %v", n, err)
	}
	if m, ok := raw.Read(t, st, "format"); !ok || string(m) != marker2 {
		t.Fatalf("format marker = %q (present %v), want %q", m, ok, marker2)
	}
	for d, data := range map[string][]byte{d1: text, d2: big} {
		if d != digestOf(data) {
			t.Fatalf("digest %s is not the canonical bytes' %s", d, digestOf(data))
		}
		stored, ok := raw.Read(t, st, objectKey(d))
		if !ok || !bytes.HasPrefix(stored, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			t.Fatalf("object %s is not stored as a zstd frame: % x", d, stored[:min(8, len(stored))])
		}
		if len(stored)*10 > len(data) {
			t.Errorf("object of %d repetitive bytes stored in %d", len(data), len(stored))
		}
		if !bytes.Equal(unzstd(t, stored), data) {
			t.Fatalf("object %s does not decompress to its bytes", d)
		}
		if got, err := st.Get(ctx, d); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Get(%s): %d bytes, %v", d, len(got), err)
		}
	}
	// An object written by another zstd encoder (other level, no checksum,
	// several frames) reads too: the format is zstd, not this encoder.
	other := []byte("written by another encoder")
	d3 := digestOf(other)
	two := append(zstdFrame(t, other[:10]), zstdFrame(t, other[10:])...)
	raw.Write(t, st, objectKey(d3), two)
	if got, err := st.Get(ctx, d3); err != nil || !bytes.Equal(got, other) {
		t.Fatalf("Get of a two-frame object: %q, %v", got, err)
	}
}

// testCompressedCorruption: a stored object that does not decompress, or
// decompresses to other bytes, is ErrCorrupt (exit 65) on Get and on a
// second Put of its bytes, never repaired.
func (s *suite) testCompressedCorruption(t *testing.T) {
	s.needRaw(t)
	st, ctx := s.open(t), context.Background()
	data := []byte(strings.Repeat("a compressible object, to be damaged at rest. ", 200))
	d, err := st.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := s.raw.Read(t, st, objectKey(d))
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	cases := map[string][]byte{
		"flipped byte":     flipped,
		"truncated frame":  good[:len(good)-5],
		"trailing garbage": append(slices.Clone(good), 1, 2, 3, 4, 5, 6, 7, 8, 9),
		"other content":    zstdFrame(t, []byte("some other object")),
		"raw bytes":        data,
		"empty":            {},
		"magic only":       {0x28, 0xb5, 0x2f, 0xfd},
	}
	for name, bad := range cases {
		s.corrupt(t, st, d, bad)
		_, err := st.Get(ctx, d)
		if t.Run(name, func(t *testing.T) { wantKind(t, err, store.ErrCorrupt, 65) }) {
			_, err = st.Put(ctx, data)
			wantKind(t, err, store.ErrCorrupt, 65)
		}
	}
}

// testSizeCap: no store takes an object past its cap, and a stored object
// that decompresses past it stops the read with ErrCorrupt.
func (s *suite) testSizeCap(t *testing.T) {
	if s.capped == nil {
		t.Fatal("storetest: the backend gave no capped store (WithCapped)")
	}
	const limit = 1 << 20
	st, ctx := s.capped(t, limit), context.Background()
	at := bytes.Repeat([]byte{'x'}, limit)
	d, err := st.Put(ctx, at)
	if err != nil {
		t.Fatalf("an object at the cap: %v", err)
	}
	past := append(slices.Clone(at), 'x')
	_, err = st.Put(ctx, past)
	wantKind(t, err, store.ErrTooLarge, 65)
	for _, r := range []io.Reader{bytes.NewReader(past), io.MultiReader(bytes.NewReader(at), strings.NewReader("xyz"))} {
		_, _, err = st.PutReader(ctx, r)
		wantKind(t, err, store.ErrTooLarge, 65)
	}
	// A small frame that expands past the cap, stored under the name of an
	// object at the cap: the read stops at the cap instead of expanding.
	bomb := zstdFrame(t, bytes.Repeat([]byte{'x'}, 64*limit))
	if len(bomb) > limit/64 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	s.needRaw(t).Write(t, st, objectKey(d), bomb)
	_, err = st.Get(ctx, d)
	wantKind(t, err, store.ErrCorrupt, 65)
	if !strings.Contains(err.Error(), "cap") {
		t.Fatalf("the error does not name the cap: %v", err)
	}
}

// testFormat1: a store without a marker that already holds objects (as
// every store written before format 2 does) reads them as their bytes, and
// new writes to it stay uncompressed: no store mixes formats.
func (s *suite) testFormat1(t *testing.T) {
	raw := s.needRaw(t)
	st, ctx := s.open(t), context.Background()
	raw.Delete(t, st, "format")
	old := []byte(`{"written":"by an older binary"}`)
	d0 := digestOf(old)
	raw.Write(t, st, objectKey(d0), old)
	reopened, err := store.Open(ctx, st.String())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := reopened.Get(ctx, d0); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("Get of a format 1 object: %q, %v", got, err)
	}
	data := []byte(strings.Repeat("new bytes in an old store ", 100))
	d1, err := reopened.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	big := pattern("old store stream", 9<<20+5)
	d2, _, err := reopened.PutReader(ctx, bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string][]byte{d1: data, d2: big} {
		if stored, _ := raw.Read(t, st, objectKey(d)); !bytes.Equal(stored, want) {
			t.Fatalf("a write to a format 1 store was not stored as its bytes (%d stored, %d canonical)", len(stored), len(want))
		}
	}
	if m, ok := raw.Read(t, st, "format"); ok {
		t.Fatalf("a format 1 store got a marker: %q", m)
	}
	s.corrupt(t, st, d0, append(slices.Clone(old), ' '))
	_, err = reopened.Get(ctx, d0)
	wantKind(t, err, store.ErrCorrupt, 65)
}

// testUnknownFormat: a marker naming a format this binary does not know is
// a configuration error, before any object is misread.
func (s *suite) testUnknownFormat(t *testing.T) {
	raw := s.needRaw(t)
	st, ctx := s.open(t), context.Background()
	raw.Write(t, st, "format", []byte("formation-store/9\n"))
	reopened, err := store.Open(ctx, st.String())
	if err == nil {
		_, err = reopened.Put(ctx, []byte("x"))
	}
	wantKind(t, err, store.ErrConfig, 78)
	if !strings.Contains(err.Error(), "format 9") {
		t.Fatalf("the error does not name the format: %v", err)
	}
}
