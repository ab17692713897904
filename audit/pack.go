package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// A large batch is stored as one zstd frame of its canonical encoding, a
// small one as the encoding itself. The frame's magic number tells them
// apart: a batch's JSON starts with '[' or '{', never with 0x28. The
// batch's name still ends with the SHA-256 of its canonical encoding.
//
// Compressing exists for the same stage as the shared form: forge's batch
// at 10,000 relations of the original's shape is 4 MB of notes (16,000
// records that differ in a key and a source digest), and its synced write
// took 15 ms, most of the audit's share of the stage's frame. Compressed it
// is about a tenth of that (TestLargeBatchesAreStoredPacked). Small batches,
// the halts and rejections a person reads, stay plain JSON.

// packFrom is the encoded size from which a batch is stored compressed.
const packFrom = 64 << 10

// MaxBatchBytes caps the canonical size of a stored batch: a compressed
// batch that would expand past it does not decode, so a damaged or hostile
// ref cannot make a reader allocate without bound. It is far above any
// batch a stage writes (forge's at 100,000 relations is about 40 MB).
const MaxBatchBytes = 1 << 30

// packWindow is the window the batch's compression looks back over:
// records repeat their neighbours' reason codes, keys and digests within a
// few hundred bytes, so a small window compresses them as well as a large
// one, and a writer that starts in a fresh process touches a quarter of a
// megabyte of history rather than megabytes.
const packWindow = 256 << 10

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// pack returns the stored bytes of a batch whose canonical encoding is body.
func pack(body []byte) ([]byte, error) {
	if len(body) < packFrom {
		return body, nil
	}
	return compress(body)
}

// compress returns body as one zstd frame.
func compress(body []byte) ([]byte, error) {
	// A stream encoder, not EncodeAll: the one-shot path keeps a window of
	// history and moves it down for every block once the input is longer,
	// a stream keeps twice the window and moves it once per window.
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(packWindow), zstd.WithEncoderCRC(true), zstd.WithZeroFrames(true))
	if err != nil {
		return nil, fmt.Errorf("audit: compressor: %w", err)
	}
	var out bytes.Buffer
	out.Grow(len(body)/8 + 64)
	e.ResetContentSize(&out, int64(len(body)))
	if _, err := e.Write(body); err != nil {
		return nil, fmt.Errorf("audit: compress: %w", err)
	}
	if err := e.Close(); err != nil {
		return nil, fmt.Errorf("audit: compress: %w", err)
	}
	return out.Bytes(), nil
}

// Unpack returns the canonical encoding of a stored batch: the stored bytes
// themselves, or what their zstd frame holds. A frame that is damaged, or
// that would expand past MaxBatchBytes, is an error. The frame is read as a
// stream, so what a frame's header claims about its size allocates nothing.
func Unpack(stored []byte) ([]byte, error) { return unpack(stored, MaxBatchBytes) }

// unpack is Unpack with the cap as a parameter.
func unpack(stored []byte, limit int64) ([]byte, error) {
	if !bytes.HasPrefix(stored, zstdMagic) {
		return stored, nil
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(uint64(limit)), zstd.WithDecoderMaxWindow(8<<20))
	if err != nil {
		return nil, fmt.Errorf("audit: decompressor: %w", err)
	}
	defer d.Close()
	if err := d.Reset(bytes.NewReader(stored)); err != nil {
		return nil, fmt.Errorf("audit: a compressed batch does not decompress: %w", err)
	}
	var body bytes.Buffer
	body.Grow(min(16*len(stored), 64<<20))
	n, err := io.Copy(&body, io.LimitReader(d, limit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("audit: a compressed batch does not decompress: %w", err)
	case n > limit:
		return nil, fmt.Errorf("audit: a compressed batch expands past %d bytes", limit)
	case bytes.HasPrefix(body.Bytes(), zstdMagic):
		// One frame holds the batch's JSON, never another frame.
		return nil, errors.New("audit: a compressed batch holds another compressed one")
	}
	return body.Bytes(), nil
}
