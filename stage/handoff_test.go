package stage

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// TestHandoffCarriesEverything: what the writer writes, in pieces of any
// size, is what the reader reads, in reads of any size, whether the reader
// keeps up or lags behind a full queue.
func TestHandoffCarriesEverything(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 9*handoffChunk+4321)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, piece := range []int{1, 1000, handoffChunk - 1, handoffChunk, len(data)} {
		for _, read := range []int{7, 32 << 10, 3 * handoffChunk} {
			h := newHandoff()
			got := make(chan []byte, 1)
			go func() { got <- readAll(&handoffReader{h: h}, read) }()
			w := &handoffWriter{h: h}
			for rest := data; len(rest) > 0; {
				n := min(piece, len(rest))
				if _, err := w.Write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if err := w.CloseWithError(nil); err != nil {
				t.Fatal(err)
			}
			if b := <-got; !bytes.Equal(b, data) {
				t.Fatalf("pieces of %d, reads of %d: read %d bytes, not the %d written", piece, read, len(b), len(data))
			}
		}
	}
}

// readAll reads r to its end in reads of size bytes.
func readAll(r io.Reader, size int) []byte {
	var out bytes.Buffer
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			return out.Bytes()
		}
	}
}

// TestHandoffErrors: a writer's error reaches the reader after what was
// queued; a reader that closes stops the writer with its error, or with
// io.ErrClosedPipe when it had none.
func TestHandoffErrors(t *testing.T) {
	werr := errors.New("writer failed")
	h := newHandoff()
	w := &handoffWriter{h: h}
	if _, err := w.Write(make([]byte, 2*handoffChunk+1)); err != nil {
		t.Fatal(err)
	}
	_ = w.CloseWithError(werr)
	n, err := io.Copy(io.Discard, &handoffReader{h: h})
	if err != werr || n != 2*handoffChunk {
		t.Fatalf("reader got %d bytes and %v, want the two full chunks and the writer's error", n, err)
	}
	if _, err := w.Write([]byte("late")); err != io.ErrClosedPipe {
		t.Fatalf("write after close: %v", err)
	}

	for _, rerr := range []error{errors.New("reader failed"), nil} {
		h := newHandoff()
		(&handoffReader{h: h}).CloseWithError(rerr)
		w := &handoffWriter{h: h}
		want := rerr
		if want == nil {
			want = io.ErrClosedPipe
		}
		_, err := w.Write(make([]byte, handoffChunk))
		if err != want {
			t.Fatalf("write to a closed reader: %v, want %v", err, want)
		}
		w = &handoffWriter{h: h}
		if _, err := w.Write([]byte("part")); err != nil {
			t.Fatalf("a part of a chunk is not handed off yet: %v", err)
		}
		if err := w.CloseWithError(nil); err != want {
			t.Fatalf("close to a closed reader: %v, want %v", err, want)
		}
	}
}
