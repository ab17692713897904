package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// seekCounter is a stored object's reader that counts rewinds: the
// counting pass of presize is the only reader that seeks.
type seekCounter struct {
	*bytes.Reader
	seeks int
}

func (s *seekCounter) Seek(off int64, whence int) (int64, error) {
	s.seeks++
	return s.Reader.Seek(off, whence)
}

func streamed(t testing.TB, c *Codec, data []byte) []byte {
	t.Helper()
	var stored bytes.Buffer
	w := c.NewWriter(&stored)
	if _, err := w.Write(data); err != nil || w.Close() != nil {
		t.Fatal(err)
	}
	return stored.Bytes()
}

func streamData() []byte {
	var data []byte
	for i := 0; len(data) < 3<<20; i++ {
		data = fmt.Appendf(data, `{"step":%d,"hash":"%x"},`, i, i*2654435761)
	}
	return data
}

// A streamed object ends with a size frame, so a whole read allocates the
// object's size at once without decoding it twice; a stream stored before
// size frames existed is still counted; and a reader that knows nothing of
// size frames (an older binary's decoder) reads the same bytes.
func TestStreamsEndWithTheirSize(t *testing.T) {
	c := NewCodec(Format2, 0)
	data := streamData()
	stored := streamed(t, c, data)
	if !bytes.HasSuffix(stored, sizeFrame(int64(len(data)))) {
		t.Fatalf("a streamed object does not end with its size frame")
	}
	old := stored[:len(stored)-sizeFrameLen] // as written before size frames
	for name, b := range map[string][]byte{"with size frame": stored, "without": old} {
		r := &seekCounter{Reader: bytes.NewReader(b)}
		got, err := c.ReadVerified("get", DigestOf(data), r, int64(len(b)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: read %d bytes, %v", name, len(got), err)
		}
		if cap(got) > len(data)+len(data)/100 {
			t.Errorf("%s: read into %d bytes of capacity for %d", name, cap(got), len(data))
		}
		if counted := r.seeks > 0; counted != (name == "without") {
			t.Errorf("%s: counting pass taken: %v", name, counted)
		}
		plain, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(plain)
		plain.Close()
		if err != nil || !bytes.Equal(all, data) {
			t.Fatalf("%s: a plain zstd reader read %d bytes, %v", name, len(all), err)
		}
	}
	empty := streamed(t, c, nil)
	if got, err := c.ReadVerified("get", DigestOf(nil), bytes.NewReader(empty), int64(len(empty))); err != nil || len(got) != 0 {
		t.Fatalf("empty stream: %q, %v", got, err)
	}
}

// A size frame is a hint for one allocation and nothing more: one that lies
// (too small, too large, past the believed ratio, past int64) or is cut
// leaves the read exactly as right or as refused as without it, and never
// allocates past the ratio a frame header is believed to.
func TestSizeFrameIsOnlyAHint(t *testing.T) {
	c := NewCodec(Format2, 0)
	data := streamData()
	stored := streamed(t, c, data)
	body := stored[:len(stored)-sizeFrameLen]
	believed := 64*int64(len(stored)) + 1<<20
	for _, n := range []int64{0, 1, int64(len(data)) - 1, int64(len(data)) + 1, believed, believed + 1, 1 << 62} {
		b := append(bytes.Clone(body), sizeFrame(n)...)
		got, err := c.ReadVerified("get", DigestOf(data), bytes.NewReader(b), int64(len(b)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size frame saying %d: read %d bytes, %v", n, len(got), err)
		}
		if int64(cap(got)) > max(believed, int64(len(data)))*101/100 { // the allocator rounds up to its size class
			t.Errorf("size frame saying %d: %d bytes of capacity", n, cap(got))
		}
	}
	huge := append(bytes.Clone(body), sizeFrame(0)...)
	copy(huge[len(huge)-8:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) // past int64
	if got, err := c.ReadVerified("get", DigestOf(data), bytes.NewReader(huge), int64(len(huge))); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("size frame past int64: read %d bytes, %v", len(got), err)
	}
	for cut := 1; cut < sizeFrameLen; cut++ {
		b := stored[:len(stored)-cut]
		if _, err := c.ReadVerified("get", DigestOf(data), bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("size frame cut by %d bytes: %v, want ErrCorrupt", cut, err)
		}
	}
}

// FuzzSizeFrame reads stored bytes that end in anything at all (a size
// frame with any size, or any other tail): the read never panics, and it
// returns exactly the object or fails.
func FuzzSizeFrame(f *testing.F) {
	f.Add([]byte("some canonical bytes"), uint64(20), []byte{})
	f.Add([]byte("some canonical bytes"), uint64(1<<40), []byte{})
	f.Add([]byte{}, uint64(0), []byte{0x5e, 0x2a, 0x4d, 0x18})
	f.Add([]byte("x"), uint64(1), []byte("formation-size/1"))
	c := NewCodec(Format2, 1<<24)
	f.Fuzz(func(t *testing.T, data []byte, n uint64, tail []byte) {
		var stored bytes.Buffer
		w := c.NewWriter(&stored)
		if _, err := w.Write(data); err != nil || w.Close() != nil {
			t.Fatal(err)
		}
		b := stored.Bytes()[:stored.Len()-sizeFrameLen]
		frame := sizeFrame(0)
		copy(frame[sizeFrameLen-8:], fmt.Appendf(nil, "%08d", n%100000000)) // any eight bytes
		for _, end := range [][]byte{sizeFrame(int64(n >> 1)), frame, tail} {
			whole := append(bytes.Clone(b), end...)
			got, err := c.ReadVerified("get", DigestOf(data), &seekCounter{Reader: bytes.NewReader(whole)}, int64(len(whole)))
			if err == nil && !bytes.Equal(got, data) {
				t.Fatalf("read %q for %q", got, data)
			}
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("untyped failure: %v", err)
			}
		}
	})
}
