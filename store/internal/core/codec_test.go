package core

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"formation/internal/pipehash"
)

func TestParseMarker(t *testing.T) {
	if v, err := ParseMarker("s", MarkerBytes(Format2)); v != Format2 || err != nil {
		t.Fatalf("ParseMarker(current) = %d, %v", v, err)
	}
	for _, bad := range []string{"", "formation-store/", "formation-store/02\n", "formation-store/2 \n", "formation-store/3\n", "zstd\n", "formation-store/1\n"} {
		if _, err := ParseMarker("s", []byte(bad)); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseMarker(%q) = %v, want ErrConfig", bad, err)
		}
	}
}

// A frame asking for a window past 8 MiB is refused before the decoder
// allocates it, whether it declares the window or (single segment) its
// content size.
func TestCodecRefusesLargeWindows(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuv"), (9<<20)/32)
	c := NewCodec(Format2, 0)
	if got, err := c.ReadVerified("get", DigestOf(data), bytes.NewReader(c.Encode(data)), 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("our own 9 MiB object: %d bytes, %v", len(got), err)
	}
	wide, err := zstd.NewWriter(nil, zstd.WithWindowSize(32<<20))
	if err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer
	wide.Reset(&stream)
	if _, err := wide.Write(data); err != nil || wide.Close() != nil {
		t.Fatal(err)
	}
	for name, frame := range map[string][]byte{"window": stream.Bytes(), "single segment": wide.EncodeAll(data, nil)} {
		_, err := c.ReadVerified("get", DigestOf(data), bytes.NewReader(frame), 0)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "zstd") {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// A failure of the reader under the codec is passed on as it is: a failing
// disk or connection says nothing about the object.
func TestCodecPassesSourceErrors(t *testing.T) {
	c := NewCodec(Format2, 0)
	data := []byte(strings.Repeat("x", 5000))
	boom := errors.New("disk gone")
	src := &failAfter{b: c.Encode(data), n: 6, err: boom}
	_, err := c.ReadVerified("get", DigestOf(data), src, 0)
	if !errors.Is(err, boom) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("ReadVerified over a failing source = %v, want %v and not ErrCorrupt", err, boom)
	}
}

type failAfter struct {
	b   []byte
	n   int
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := copy(p[:min(len(p), f.n)], f.b)
	f.b, f.n = f.b[k:], f.n-k
	return k, nil
}

// A large streamed object (no content size in its frame) is read into one
// allocation of its size (to the allocator's rounding), counted by a first pass; a damaged one is
// still ErrCorrupt, and so is one whose last byte is cut.
func TestCodecSizesStreamedObjects(t *testing.T) {
	c := NewCodec(Format2, 0)
	var data []byte
	for i := 0; len(data) < 12<<20; i++ {
		data = fmt.Appendf(data, `{"step":%d,"hash":"%x"},`, i, i*2654435761)
	}
	var stored bytes.Buffer
	w := c.NewWriter(&stored)
	if _, err := w.Write(data); err != nil || w.Close() != nil {
		t.Fatal(err)
	}
	if stored.Len() < countPassFrom {
		t.Fatalf("stored %d bytes: too small to take the counting pass", stored.Len())
	}
	got, err := c.ReadVerified("get", DigestOf(data), bytes.NewReader(stored.Bytes()), int64(stored.Len()))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("streamed %d bytes: read %d, %v", len(data), len(got), err)
	}
	if cap(got) > len(data)+len(data)/100 { // the allocator rounds up to its size class
		t.Errorf("read into %d bytes of capacity for %d", cap(got), len(data))
	}
	// Written whole, a frame that compresses past the ratio its declared
	// size is believed to is counted too.
	block := make([]byte, 96<<10)
	rand.NewChaCha8([32]byte{1}).Read(block)
	repetitive := bytes.Repeat(block, 128)
	whole := c.Encode(repetitive)
	if int64(len(repetitive)) <= 64*int64(len(whole))+1<<20 || len(whole) < countPassFrom {
		t.Fatalf("%d bytes stored as %d: not past the believed ratio, or too small to count", len(repetitive), len(whole))
	}
	got, err = c.ReadVerified("get", DigestOf(repetitive), bytes.NewReader(whole), int64(len(whole)))
	if err != nil || !bytes.Equal(got, repetitive) || cap(got) > len(repetitive)+len(repetitive)/100 {
		t.Errorf("repetitive object: %d bytes read into %d of capacity, %v", len(got), cap(got), err)
	}
	damaged := bytes.Clone(stored.Bytes())
	damaged[len(damaged)/2] ^= 0x55
	cut := stored.Bytes()[:stored.Len()-1]
	for name, b := range map[string][]byte{"damaged": damaged, "cut": cut} {
		if _, err := c.ReadVerified("get", DigestOf(data), bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// An object written whole is compressed at the default level below
// fastestFrom, from there at the fastest level with every block's literals
// entropy-coded: one-shot up to the window, then by a stream encoder. Each
// frame declares the object's size and reads back as the object.
func TestCodecEncodesLargeObjectsFastest(t *testing.T) {
	c := NewCodec(Format2, 0)
	var data []byte
	for i := 0; len(data) < window+1<<20; i++ {
		data = fmt.Appendf(data, `{"head":"term%d","relation":"is","tail":"thing%d"},`, i, i*7)
	}
	// Hex digests with hardly a repeat: without entropy-coded literals the
	// fastest level stores them raw.
	var hexes []byte
	for i := 0; len(hexes) < fastestFrom+1<<10; i++ {
		hexes = fmt.Appendf(hexes, `"%064x",`, sha256.Sum256(fmt.Append(nil, i)))
	}
	def := newEncoder(1, true, zstd.SpeedDefault, window)
	fast := newEncoder(1, true, zstd.SpeedFastest, window)
	for _, obj := range [][]byte{data[:fastestFrom-1], data[:fastestFrom], data[:window], hexes} {
		want := fast.EncodeAll(obj, nil)
		if len(obj) < fastestFrom {
			want = def.EncodeAll(obj, nil)
		}
		if stored := c.Encode(obj); !bytes.Equal(stored, want) {
			t.Errorf("%d bytes: stored as %d bytes, not as the expected level's %d", len(obj), len(stored), len(want))
		}
	}
	if stored := c.Encode(hexes); len(stored) > len(hexes)*6/10 {
		t.Errorf("hex digests: %d bytes stored as %d, the literals not entropy-coded", len(hexes), len(stored))
	}
	for _, obj := range [][]byte{data[:fastestFrom-1], data[:fastestFrom], data[:window], data, hexes} {
		stored := c.Encode(obj)
		var h zstd.Header
		if err := h.Decode(stored); err != nil || !h.HasFCS || h.FrameContentSize != uint64(len(obj)) {
			t.Fatalf("%d bytes: frame header %+v, %v; want the declared size", len(obj), h, err)
		}
		got, err := c.ReadVerified("get", DigestOf(obj), bytes.NewReader(stored), int64(len(stored)))
		if err != nil || !bytes.Equal(got, obj) {
			t.Fatalf("%d bytes: read %d, %v", len(obj), len(got), err)
		}
	}
}

// onlyReader hides everything of a reader but Read, so that presize can
// only guess from the stored size.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// A large read hashes what it decompresses on another goroutine
// (readPiped); it returns what the plain read (verify into a buffer)
// returns, whether the size it was told is exact, too small or too large,
// and fails where the plain read fails, the same way.
func TestPipedReadIsThePlainRead(t *testing.T) {
	c := NewCodec(Format2, 0)
	var long []byte
	for i := 0; len(long) < 16<<20; i++ {
		long = fmt.Appendf(long, `{"head":"term%d","relation":"is","tail":"thing%d"},`, i, i*7)
	}
	text := long[:6<<20]
	noisy := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{2}).Read(noisy)
	streamed := func(data []byte) []byte {
		var b bytes.Buffer
		w := c.NewWriter(&b)
		if _, err := w.Write(data); err != nil || w.Close() != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	damaged := bytes.Clone(c.Encode(text))
	damaged[len(damaged)/2] ^= 0x55
	boom := errors.New("disk gone")
	for _, tc := range []struct {
		name   string
		data   []byte
		stored []byte
		digest string
		hide   bool // presize guesses from the stored size alone
		fail   bool // the source fails halfway
	}{
		{name: "declared size", data: text, stored: c.Encode(text)},
		{name: "size frame", data: text, stored: streamed(text)},
		{name: "guessed too small", data: long, stored: streamed(long), hide: true},
		{name: "guessed too large", data: noisy, stored: streamed(noisy), hide: true},
		{name: "wrong digest", data: text, stored: c.Encode(text), digest: DigestOf(noisy)},
		{name: "damaged", data: text, stored: damaged},
		{name: "source fails", data: long, stored: c.Encode(long), fail: true},
	} {
		digest := tc.digest
		if digest == "" {
			digest = DigestOf(tc.data)
		}
		src := func() io.Reader {
			var r io.Reader = bytes.NewReader(tc.stored)
			switch {
			case tc.fail:
				r = &failAfter{b: tc.stored, n: len(tc.stored) / 2, err: boom}
			case tc.hide:
				r = onlyReader{r}
			}
			return r
		}
		if size := c.presize(src(), int64(len(tc.stored))); size < pipehash.From {
			t.Fatalf("%s: presize %d, too small for the piped read", tc.name, size)
		}
		var plain bytes.Buffer
		wantErr := c.verify("get", digest, src(), &plain)
		got, err := c.ReadVerified("get", digest, src(), int64(len(tc.stored)))
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() ||
			errors.Is(err, ErrCorrupt) != errors.Is(wantErr, ErrCorrupt) || errors.Is(err, boom) != errors.Is(wantErr, boom) {
			t.Errorf("%s: piped read %v, plain read %v", tc.name, err, wantErr)
			continue
		}
		if err == nil && (!bytes.Equal(got, plain.Bytes()) || !bytes.Equal(got, tc.data)) {
			t.Errorf("%s: piped read %d bytes, plain %d, object %d", tc.name, len(got), plain.Len(), len(tc.data))
		}
		if tc.name == "declared size" && cap(got) > len(got)+len(got)/100 {
			t.Errorf("%s: %d bytes read into %d of capacity", tc.name, len(got), cap(got))
		}
	}
}
