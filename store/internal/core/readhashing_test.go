package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// failingAfter is a stored object's reader that fails after n bytes.
type failingAfter struct {
	r   io.Reader
	n   int
	err error
}

func (f *failingAfter) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

// TestReadHashingIsReadPlain holds the read that hashes beside the decoder
// to the one that hashes as it decodes: for objects around the chunk size,
// buffers sized exactly, too small or too large, damaged frames, a wrong
// digest and a failing source, the same bytes or the same error.
func TestReadHashingIsReadPlain(t *testing.T) {
	c := NewCodec(Format2, 0)
	var cases []struct {
		name   string
		digest string
		stored func() io.Reader
		size   int64
	}
	add := func(name, digest string, stored []byte, size int64) {
		cases = append(cases, struct {
			name   string
			digest string
			stored func() io.Reader
			size   int64
		}{name, digest, func() io.Reader { return bytes.NewReader(stored) }, size})
	}
	for _, n := range []int{0, 1, hashChunk - 1, hashChunk, hashChunk + 1, 3*hashChunk + 17, 5 << 20} {
		data := streamData()
		for len(data) < n {
			data = append(data, data...)
		}
		data = data[:n]
		d := DigestOf(data)
		for _, stored := range map[string][]byte{"whole": c.Encode(data), "streamed": streamed(t, c, data)} {
			for _, size := range []int64{int64(n), int64(n / 3), int64(2*n + 5), 0} {
				add(fmt.Sprintf("%d bytes, buffer %d", n, size), d, stored, size)
			}
			add(fmt.Sprintf("%d bytes, wrong digest", n), DigestOf([]byte("other")), stored, int64(n))
			if len(stored) > 20 {
				cut := stored[:len(stored)/2]
				add(fmt.Sprintf("%d bytes, cut short", n), d, cut, int64(n))
				flipped := bytes.Clone(stored)
				flipped[len(flipped)/2] ^= 0x40
				add(fmt.Sprintf("%d bytes, flipped", n), d, flipped, int64(n))
			}
		}
		stored := c.Encode(data)
		boom := errors.New("disk gone")
		cases = append(cases, struct {
			name   string
			digest string
			stored func() io.Reader
			size   int64
		}{fmt.Sprintf("%d bytes, failing source", n), d, func() io.Reader {
			return &failingAfter{r: bytes.NewReader(stored), n: len(stored) / 2, err: boom}
		}, int64(n)})
	}
	for _, cs := range cases {
		want, wantErr := c.readPlain("get", cs.digest, cs.stored(), cs.size)
		got, err := c.readHashing("get", cs.digest, cs.stored(), cs.size)
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) ||
			(err != nil && (err.Error() != wantErr.Error() || errors.Is(err, ErrCorrupt) != errors.Is(wantErr, ErrCorrupt))) {
			t.Fatalf("%s: hashing beside read %d bytes, %v; plain %d bytes, %v", cs.name, len(got), err, len(want), wantErr)
		}
	}
}
