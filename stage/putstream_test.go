package stage_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"formation/stage"
	"formation/store"
)

// streamSizes straddle the 256 KiB chunks PutStream queues.
var streamSizes = []int{0, 1, 1000, 256<<10 - 1, 256 << 10, 256<<10 + 1, 7*(256<<10) + 123, 3 << 20}

// TestPutStreamMatchesPut holds PutStream to Put: whatever the sizes of the
// writes, the object streamed is the object stored whole, byte for byte.
func TestPutStreamMatchesPut(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range streamSizes {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.IntN(16)) + 'a' // compressible, not uniform
		}
		for _, piece := range []int{size + 1, 1, 977, 64 << 10} {
			got, err := stage.PutStream(ctx, env.Store, func(w io.Writer) error {
				return writePieces(w, data, piece)
			})
			if err != nil {
				t.Fatalf("size %d in pieces of %d: %v", size, piece, err)
			}
			want, err := env.Store.Put(ctx, data)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("size %d in pieces of %d: streamed %s, stored whole %s", size, piece, got, want)
			}
			back, err := env.Store.Get(ctx, got)
			if err != nil || !bytes.Equal(back, data) {
				t.Fatalf("size %d in pieces of %d: read back %d bytes (%v)", size, piece, len(back), err)
			}
		}
	}
}

func writePieces(w io.Writer, data []byte, piece int) error {
	for len(data) > 0 {
		n := min(piece, len(data))
		if _, err := w.Write(data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// TestPutStreamWriteFails: a writer's own error comes back as it is and
// nothing is stored, however much was queued before it.
func TestPutStreamWriteFails(t *testing.T) {
	ctx := context.Background()
	env, dir := newEnv(t)
	refused := errors.New("refused")
	for _, size := range streamSizes {
		_, err := stage.PutStream(ctx, env.Store, func(w io.Writer) error {
			if _, err := w.Write(bytes.Repeat([]byte{'x'}, size)); err != nil {
				return err
			}
			return refused
		})
		if err != refused {
			t.Fatalf("size %d: got %v, want the writer's own error", size, err)
		}
	}
	if n := countObjects(t, dir); n != 0 {
		t.Fatalf("%d objects stored by writes that failed", n)
	}
}

func countObjects(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, "objects"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// failingPut is a store whose PutReader reads a little and then fails.
type failingPut struct {
	store.Store
	after int64
	err   error
}

func (f failingPut) PutReader(_ context.Context, r io.Reader) (string, int64, error) {
	n, err := io.CopyN(io.Discard, r, f.after)
	if err != nil && err != io.EOF {
		return "", n, err
	}
	return "", n, f.err
}

// TestPutStreamStoreFails: a store that fails stops the writer, whose
// writes then fail, and its error is what PutStream returns.
func TestPutStreamStoreFails(t *testing.T) {
	ctx := context.Background()
	env, _ := newEnv(t)
	broken := errors.New("disk full")
	for _, after := range []int64{0, 1000, 3 << 20} {
		writes := 0
		_, err := stage.PutStream(ctx, failingPut{Store: env.Store, after: after, err: broken}, func(w io.Writer) error {
			chunk := bytes.Repeat([]byte{'y'}, 4096)
			for ; writes < 100_000; writes++ { // 400 MB: far past what any queue holds
				if _, err := w.Write(chunk); err != nil {
					return err
				}
			}
			return nil
		})
		if !errors.Is(err, broken) {
			t.Fatalf("after %d bytes: got %v, want the store's error", after, err)
		}
		if writes == 100_000 {
			t.Fatalf("after %d bytes: the writer was never stopped", after)
		}
	}
	// A store that fails at the very end (after the last byte) fails the
	// put all the same.
	_, err := stage.PutStream(ctx, failingPut{Store: env.Store, after: 1 << 30, err: broken}, func(w io.Writer) error {
		_, err := w.Write([]byte("small"))
		return err
	})
	if !errors.Is(err, broken) {
		t.Fatalf("failure after the end: got %v", err)
	}
}
