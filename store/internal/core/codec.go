package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"

	"formation/internal/freelist"
	"formation/internal/pipehash"
)

// DefaultMaxObjectSize is the cap on an object's canonical size: no store
// takes a larger object, and a read stops with ErrCorrupt as soon as an
// object decompresses past it, so a hostile or damaged object cannot expand
// without bound.
const DefaultMaxObjectSize int64 = 4 << 30

// window is the largest zstd window either direction uses: no encoder
// refers further back, so the decoder refuses frames that ask for more
// (8 MiB is what every zstd decoder is expected to support).
const window = 8 << 20

// streamWindow is the window of a stream encoder. A stream encoder keeps
// twice its window of history (see newEncoder), and the run stage streams
// its plan and its events at once: at 8 MiB that was 32 MB live through the
// whole stage. The stages' streams repeat themselves within a few
// kilobytes, so 1 MiB compresses them as small (10,000 relations: the
// events object 3,456,418 bytes against 3,461,798, the run record 2,522,218
// against 2,520,581) and as fast.
const streamWindow = 1 << 20

// fastestFrom is the canonical size from which an object written whole is
// compressed at zstd's fastest level (see newEncoder).
const fastestFrom = 1 << 20

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Codec turns an object's canonical bytes into its stored bytes and back,
// for one store and its format. It is safe for concurrent use: one-shot
// encodes share two encoders (whose EncodeAll may run concurrently), streams
// take an encoder or decoder from the store's own pools.
type Codec struct {
	format int
	max    int64
	all    *zstd.Encoder // one-shot, below fastestFrom
	large  *zstd.Encoder // one-shot, from fastestFrom up to the window
	// encs and decs keep a few stream encoders and decoders between
	// uses. Not sync.Pools: a pool is emptied by every other garbage
	// collection, and a stream encoder's history is 16 MiB, allocated
	// and cleared anew each time (at 10,000 relations, about 47 MB per
	// back half on each side, most of it cleared memory).
	encs freelist.List[*zstd.Encoder]
	decs freelist.List[*zstd.Decoder]
}

// keptCoders is how many stream encoders, and how many decoders, a codec
// keeps for reuse: a stage streams at most two objects at once (the run
// stage's plan and events).
const keptCoders = 2

// NewCodec returns the codec of a store of the given format; maxObject <= 0
// means DefaultMaxObjectSize.
func NewCodec(format int, maxObject int64) *Codec {
	if maxObject <= 0 {
		maxObject = DefaultMaxObjectSize
	}
	c := &Codec{format: format, max: maxObject}
	if format == Format1 {
		return c
	}
	c.all = newEncoder(0, true, zstd.SpeedDefault, window)
	c.large = newEncoder(0, true, zstd.SpeedFastest, window)
	c.encs = freelist.New[*zstd.Encoder](keptCoders)
	c.decs = freelist.New[*zstd.Decoder](keptCoders)
	return c
}

// streamEncoder takes a kept stream encoder, or makes one.
func (c *Codec) streamEncoder() *zstd.Encoder {
	if e, ok := c.encs.Get(); ok {
		return e
	}
	return newEncoder(streamConcurrency, false, zstd.SpeedFastest, streamWindow)
}

// keepEncoder keeps e, reset, for the next stream, unless enough are kept.
func (c *Codec) keepEncoder(e *zstd.Encoder) {
	e.Reset(nil)
	c.encs.Put(e)
}

// streamDecoder takes a kept decoder, or makes one.
func (c *Codec) streamDecoder() *zstd.Decoder {
	if d, ok := c.decs.Get(); ok {
		return d
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(window), zstd.WithDecoderMaxMemory(window))
	if err != nil {
		panic(fmt.Sprintf("store: zstd decoder options: %v", err)) // constant options
	}
	return d
}

// keepDecoder keeps d, reset, for the next read, unless enough are kept.
func (c *Codec) keepDecoder(d *zstd.Decoder) {
	_ = d.Reset(nil)
	c.decs.Put(d)
}

// streamConcurrency lets a stream encoder compress a block on a goroutine
// of its own while the writer fills the next: the run record is written
// after the passes, with nothing else to do, and its 15 MB at 10,000
// relations took 66-75 ms with the compression on the writer's goroutine,
// 51-59 ms beside it. Blocks are still compressed one after another, over
// the same history, so the stream is compressed as before.
const streamConcurrency = 2

// newEncoder makes an encoder; concurrency 1 keeps a stream on the
// caller's goroutine, 2 compresses a block beside it (streamConcurrency),
// 0 lets EncodeAll run on every core. A stream encoder
// does not take the low-memory option: that sizes the history at the
// window plus one block, so past its first window a stream's encoder moved
// a window of history down for every 128 KiB block it took (at an 8 MiB
// window, a tenth of the run stage's CPU at 100,000 relations); at twice
// the window it moves once per window. The one-shot encoders take it,
// since Encode gives them nothing longer than the window, and so hold half
// the memory.
//
// Streams, and objects of fastestFrom bytes or more, are compressed at
// zstd's fastest level, smaller ones at its default: a stream is written
// while the stage that produces it runs (the run stage's events, about 9 % of its CPU at
// the default level), and its long runs of repeated JSON keys compress well
// at either level (store-size.sh: 19.5x the sources for a 10,000-relation
// subject instead of 17.6x; the demo store 17.5x instead of 17.3x). The level
// is the writer's choice alone: every level decodes the same, and digests
// are over the canonical bytes.
//
// Objects written whole from fastestFrom up are stage outputs too (forge's
// validated set and compose's YAML, 6.5 and 7.3 MB at 10,000 relations;
// ratify's report, 1.7 MB), and there the fastest level is quicker and as
// small or smaller (best of 7: 8.4 -> 6.8 ms and 210 -> 145 KB; 18.2 ->
// 13.7 ms and 272 -> 204 KB; 24.7 -> 7.8 ms and 887 -> 888 KB). The
// fastest level entropy-codes the literals of every block, even of a block
// in which it finds no match: by default it stores such a block raw, which
// left the report, hex trace hashes with few repeats, uncompressed.
func newEncoder(concurrency int, lowMem bool, level zstd.EncoderLevel, window int) *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithWindowSize(window),
		zstd.WithEncoderConcurrency(concurrency), zstd.WithLowerEncoderMem(lowMem), zstd.WithEncoderCRC(true), zstd.WithZeroFrames(true),
		zstd.WithAllLitEntropyCompression(level == zstd.SpeedFastest))
	if err != nil {
		panic(fmt.Sprintf("store: zstd encoder options: %v", err)) // constant options
	}
	return e
}

// Format is the store format the codec writes and reads.
func (c *Codec) Format() int { return c.format }

// MaxObjectSize is the cap on an object's canonical size.
func (c *Codec) MaxObjectSize() int64 { return c.max }

// CheckSize refuses an object of n canonical bytes past the cap.
func (c *Codec) CheckSize(op, key string, n int64) error {
	if n > c.max {
		return Errorf(op, key, ErrTooLarge, fmt.Sprintf("%d bytes or more, past the cap of %d", n, c.max))
	}
	return nil
}

// Encode returns the stored bytes of an object.
func (c *Codec) Encode(data []byte) []byte {
	if c.format == Format1 {
		return data
	}
	if len(data) < fastestFrom {
		return c.all.EncodeAll(data, make([]byte, 0, len(data)/4+64))
	}
	if len(data) <= window {
		return c.large.EncodeAll(data, make([]byte, 0, len(data)/4+64))
	}
	// Past the window, the one-shot encoders' short history would move
	// the window down for every block: a stream encoder does it once per
	// window, and the frame still declares the object's size.
	var buf bytes.Buffer
	buf.Grow(len(data)/4 + 64)
	e := c.streamEncoder()
	defer c.keepEncoder(e)
	e.ResetContentSize(&buf, int64(len(data)))
	if _, err := e.Write(data); err != nil {
		panic(fmt.Sprintf("store: zstd encode into memory: %v", err)) // a bytes.Buffer does not fail
	}
	if err := e.Close(); err != nil {
		panic(fmt.Sprintf("store: zstd encode into memory: %v", err))
	}
	return buf.Bytes()
}

// NewWriter returns a writer that stores what is written to it into w.
// Close flushes it (it does not close w); call it on every path, failed
// ones included, to return its encoder.
func (c *Codec) NewWriter(w io.Writer) io.WriteCloser {
	if c.format == Format1 {
		return nopCloser{w}
	}
	e := c.streamEncoder()
	e.Reset(w)
	return &writer{c: c, e: e, dst: w}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

type writer struct {
	c   *Codec
	e   *zstd.Encoder
	dst io.Writer
	n   int64 // canonical bytes taken
}

func (w *writer) Write(p []byte) (int, error) {
	if w.e == nil {
		return 0, errors.New("store: write after close")
	}
	n, err := w.e.Write(p)
	w.n += int64(n)
	return n, err
}

// Close ends the frame and appends the size frame (see sizeFrame).
func (w *writer) Close() error {
	if w.e == nil {
		return nil
	}
	err := w.e.Close()
	if err == nil {
		_, err = w.dst.Write(sizeFrame(w.n))
	}
	w.c.keepEncoder(w.e)
	w.e = nil
	return err
}

// DataError is a stored object that cannot be what its name says: not a
// zstd frame, a damaged one, or one that expands past the cap. Backends
// report it as ErrCorrupt; failures of the reader underneath are passed on
// as they are, since they say nothing about the object.
type DataError struct{ Reason string }

func (e *DataError) Error() string { return e.Reason }

// NewReader returns the canonical bytes of the object whose stored bytes r
// yields. Reads end with a *DataError on a stored object that does not
// decompress or that expands past the cap. Close returns its decoder.
func (c *Codec) NewReader(r io.Reader) io.ReadCloser {
	if c.format == Format1 {
		return io.NopCloser(r)
	}
	return &reader{c: c, src: &sourceReader{r: r}}
}

type reader struct {
	c   *Codec
	src *sourceReader
	dec *zstd.Decoder
	n   int64
	err error
}

// sourceReader remembers the error of the stored bytes' reader, to tell a
// failing disk or connection from a damaged object. It has no Bytes method,
// so the decoder always streams and the window bound holds.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.dec == nil {
		if r.err = r.start(); r.err != nil {
			return 0, r.err
		}
	}
	n, err := r.dec.Read(p)
	r.n += int64(n)
	switch {
	case r.n > r.c.max:
		r.err = &DataError{Reason: fmt.Sprintf("decompresses past the cap of %d bytes", r.c.max)}
		return 0, r.err
	case err == io.EOF:
		return n, err
	case err != nil && r.src.err != nil:
		r.err = r.src.err
	case err != nil:
		r.err = &DataError{Reason: "not a valid zstd frame: " + err.Error()}
	}
	return n, r.err
}

// start checks the magic number, so that a stored object which is not zstd
// at all (an empty file, raw bytes written behind the store's back) is named
// as such, then hands the stream to a decoder.
func (r *reader) start() error {
	head := make([]byte, len(zstdMagic))
	if _, err := io.ReadFull(r.src, head); err != nil || !bytes.Equal(head, zstdMagic) {
		if r.src.err != nil {
			return r.src.err
		}
		return &DataError{Reason: "stored bytes are not a zstd frame (format 2 stores every object as one)"}
	}
	r.dec = r.c.streamDecoder()
	if err := r.dec.Reset(io.MultiReader(bytes.NewReader(head), r.src)); err != nil {
		return &DataError{Reason: "not a valid zstd frame: " + err.Error()}
	}
	return nil
}

func (r *reader) Close() error {
	if r.dec != nil {
		r.c.keepDecoder(r.dec)
		r.dec = nil
	}
	if r.err == nil {
		r.err = errors.New("store: read after close")
	}
	return nil
}

// ReadVerified decodes the stored bytes r yields (stored of them, when
// known), re-hashes the canonical bytes and returns them. A damaged object
// or one that does not hash to digest is ErrCorrupt; a failure of r itself
// is returned as it is, for the backend to classify.
func (c *Codec) ReadVerified(op, digest string, r io.Reader, stored int64) ([]byte, error) {
	size := c.presize(r, stored)
	if size >= pipehash.From {
		return c.readPiped(op, digest, r, size)
	}
	var buf bytes.Buffer
	buf.Grow(int(size))
	if err := c.verify(op, digest, r, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readStep bounds one read of readPiped, so that the decompressed bytes
// reach the hash in parts while the rest decompresses.
const readStep = 256 << 10

// readPiped is ReadVerified for an object of about size canonical bytes
// or more: what is decompressed is hashed in parts on another goroutine
// meanwhile (pipehash), instead of each 32 KiB twice in turn on one, so
// that a large read costs about its decompression (at 10,000 relations
// the forge reads a 6.5 MB bundle, decompressed in about 8 ms and hashed
// in 4). The bytes are returned only once the whole hashes to digest.
func (c *Codec) readPiped(op, digest string, r io.Reader, size int64) ([]byte, error) {
	dr := c.NewReader(r)
	defer dr.Close()
	var h pipehash.SHA256
	defer h.Stop()
	buf := make([]byte, 0, size)
	for {
		err := readMore(dr, &buf)
		if len(buf)-h.Len() >= pipehash.From {
			h.Add(buf[h.Len():len(buf):len(buf)])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readErr(op, digest, err)
		}
	}
	if got := h.Sum(buf); got != digest {
		return nil, Errorf(op, digest, ErrCorrupt, "content hashes to "+got)
	}
	return buf, nil
}

// readMore reads up to readStep more bytes from r onto the end of *buf.
// A full buffer is grown only when r has more to give, so that an object
// whose size was known exactly is read into one allocation; a grown buffer
// is a copy, and the old one keeps the bytes a hash was handed.
func readMore(r io.Reader, buf *[]byte) error {
	b := *buf
	if len(b) == cap(b) {
		var probe [1]byte
		n, err := r.Read(probe[:])
		*buf = append(b, probe[:n]...)
		return err
	}
	n, err := r.Read(b[len(b):min(cap(b), len(b)+readStep)])
	*buf = b[:len(b)+n]
	return err
}

// readErr classifies a failed read of an object: a damaged one is
// ErrCorrupt, a failure of the reader underneath is returned as it is.
func readErr(op, digest string, err error) error {
	var de *DataError
	if errors.As(err, &de) {
		return E(op, digest, ErrCorrupt, de)
	}
	return err
}

// presize guesses the canonical size to allocate it at once. A frame
// written whole declares its content size; that is believed only up to a
// ratio no honest object needs to exceed for one allocation (a bigger one
// still reads, growing as it goes), so a forged header cannot make a tiny
// object allocate the cap. A streamed frame declares none, and a canonical
// object can compress past that ratio (a 100,000-relation course's YAML):
// then, when r can seek and the object is large, a first pass decodes it
// without keeping it to count its bytes, because growing by doubling would
// hold up to three times the object at once (a 100,000-relation run
// record: 240 MB live for 80).
func (c *Codec) presize(r io.Reader, stored int64) int64 {
	if c.format == Format1 || stored <= 0 {
		return min(max(stored, 0), c.max)
	}
	guess := min(4*stored, c.max)
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return guess
	}
	head := make([]byte, zstd.HeaderMaxSize)
	n, _ := ra.ReadAt(head, 0)
	var h zstd.Header
	if h.Decode(head[:n]) != nil {
		return guess
	}
	believed := min(c.max, 64*stored+1<<20)
	if h.HasFCS && h.FrameContentSize <= uint64(believed) {
		return int64(h.FrameContentSize)
	}
	if n, ok := readSizeFrame(ra, stored); ok && !h.HasFCS && n <= believed {
		return n
	}
	if rs, ok := r.(io.ReadSeeker); ok && stored >= countPassFrom {
		return c.countedSize(rs, guess)
	}
	if h.HasFCS {
		return min(int64(min(h.FrameContentSize, uint64(c.max))), 64*stored+1<<20)
	}
	return guess
}

// sizeFrameLen is the length of a size frame: a skippable frame's magic
// number and length, then sizeTag and the size.
const sizeFrameLen = 4 + 4 + len(sizeTag) + 8

// sizeTag starts a size frame's payload, telling it from any other
// skippable frame.
const sizeTag = "formation-size/1"

// sizeFrame is the zstd skippable frame (RFC 8878, 3.1.2: magic number
// 0x184D2A5E, payload length, payload) that a stream writer appends after
// its frame, naming the canonical size the frame decompresses to. A
// streamed frame cannot declare its size in its header, which is written
// before the size is known, so a whole read (presize) would otherwise
// decode the object once only to count it. Every zstd decoder skips the
// frame, so readers that do not know it, older binaries included, read the
// object as before. The size is a hint for one allocation and nothing
// more: what a read keeps is still only what decompresses and re-hashes.
func sizeFrame(n int64) []byte {
	b := make([]byte, 0, sizeFrameLen)
	b = binary.LittleEndian.AppendUint32(b, 0x184D2A5E)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(sizeTag)+8))
	b = append(b, sizeTag...)
	return binary.LittleEndian.AppendUint64(b, uint64(n))
}

// readSizeFrame reads the size frame that ends stored bytes of the given
// length, if they end with one; anything else (an object stored before
// size frames existed, damaged bytes, a size past int64) is no size.
func readSizeFrame(ra io.ReaderAt, stored int64) (int64, bool) {
	if stored < int64(sizeFrameLen) {
		return 0, false
	}
	tail := make([]byte, sizeFrameLen)
	if n, _ := ra.ReadAt(tail, stored-int64(sizeFrameLen)); n != sizeFrameLen {
		return 0, false
	}
	want := sizeFrame(0)
	if !bytes.Equal(tail[:sizeFrameLen-8], want[:sizeFrameLen-8]) {
		return 0, false
	}
	n := binary.LittleEndian.Uint64(tail[sizeFrameLen-8:])
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// countPassFrom is the stored size from which a streamed object is decoded
// once to count it before it is decoded to keep: below it, a wrong guess
// costs less than a second decode. It is low because canonical objects
// compress far past the guess's 4:1 (a 100,000-relation course's YAML, 30
// MB, is stored in under 1 MiB).
const countPassFrom = 64 << 10

// countedSize decodes the stored bytes rs yields, keeping none of them, and
// rewinds rs; it returns their canonical size, or guess when the first pass
// fails (the pass that keeps the bytes reports the fault).
func (c *Codec) countedSize(rs io.ReadSeeker, guess int64) int64 {
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return guess
	}
	dr := c.NewReader(rs)
	n, err := io.Copy(io.Discard, dr)
	dr.Close()
	if _, serr := rs.Seek(start, io.SeekStart); serr != nil {
		return guess // the keeping pass then reads from where this one stopped and fails
	}
	if err != nil {
		return guess
	}
	return n
}

// Verify re-hashes the object r yields without holding it, as ReadVerified
// does.
func (c *Codec) Verify(op, digest string, r io.Reader) error {
	return c.verify(op, digest, r, io.Discard)
}

func (c *Codec) verify(op, digest string, r io.Reader, to io.Writer) error {
	dr := c.NewReader(r)
	defer dr.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(h, to), dr); err != nil {
		return readErr(op, digest, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		return Errorf(op, digest, ErrCorrupt, "content hashes to "+got)
	}
	return nil
}
