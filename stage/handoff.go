package stage

import (
	"io"
	"sync"
)

// handoffChunk is the size of the chunks a handoff passes: what PutStream
// buffered before it wrote to its pipe.
const handoffChunk = 256 << 10

// handoffDepth is how many full chunks wait for the reader at most. With
// io.Pipe the writer waited while the store compressed and hashed every
// chunk it wrote, so a stream's encoding and its storing took turns on one
// CPU (the run record at 10,000 relations: 0.1 s at one core). Queued
// chunks let the two run side by side; a few cover the jitter between
// them, and bound what a stream holds beside its store's own buffers.
const handoffDepth = 4

// handoff is a one-way pipe whose writer does not wait for the reader to
// take each chunk: it fills a chunk, queues it and goes on with the next.
// Like io.Pipe it is for one writer goroutine and one reader goroutine;
// unlike io.Pipe it buffers up to handoffDepth+1 chunks (the one being
// filled too).
type handoff struct {
	full chan []byte   // chunks written, in order; closed when the writer closes
	free chan []byte   // chunks the reader has emptied, for the writer to fill again
	done chan struct{} // closed when the reader closes

	// werr is the writer's close error, set before full is closed; rerr
	// the reader's, set before done is closed.
	werr, rerr error
	once       sync.Once
}

func newHandoff() *handoff {
	return &handoff{
		full: make(chan []byte, handoffDepth),
		free: make(chan []byte, handoffDepth+2),
		done: make(chan struct{}),
	}
}

// readerErr is what the writer sees once the reader has closed: its error,
// or io.ErrClosedPipe when it closed without one.
func (h *handoff) readerErr() error {
	if h.rerr != nil {
		return h.rerr
	}
	return io.ErrClosedPipe
}

// handoffWriter is the writing end.
type handoffWriter struct {
	h      *handoff
	buf    []byte // the chunk being filled; nil when none is
	made   int    // chunks allocated so far
	closed bool
}

// Write copies p into chunks, queuing each one as it fills. It fails once
// the reader has closed, at the latest when a chunk is queued: a failed
// store stops the producer within a chunk, as it did through io.Pipe
// behind a buffer of the same size.
func (w *handoffWriter) Write(p []byte) (int, error) {
	if w.closed {
		return 0, io.ErrClosedPipe
	}
	n := 0
	for len(p) > 0 {
		if w.buf == nil {
			b, err := w.chunk()
			if err != nil {
				return n, err
			}
			w.buf = b
		}
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf, p, n = w.buf[:len(w.buf)+k], p[k:], n+k
		if len(w.buf) == cap(w.buf) {
			if err := w.queue(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// chunk is an empty chunk: one the reader gave back, a new one while fewer
// than the queue holds exist, or else the next one the reader gives back.
func (w *handoffWriter) chunk() ([]byte, error) {
	select {
	case b := <-w.h.free:
		return b[:0], nil
	default:
	}
	if w.made < handoffDepth+2 {
		w.made++
		return make([]byte, 0, handoffChunk), nil
	}
	select {
	case b := <-w.h.free:
		return b[:0], nil
	case <-w.h.done:
		return nil, w.h.readerErr()
	}
}

// queue hands the chunk being filled to the reader.
func (w *handoffWriter) queue() error {
	b := w.buf
	w.buf = nil
	select {
	case <-w.h.done:
		return w.h.readerErr()
	default:
	}
	select {
	case w.h.full <- b:
		return nil
	case <-w.h.done:
		return w.h.readerErr()
	}
}

// CloseWithError ends the stream: the reader reads what was queued, then
// io.EOF (err nil) or err. With nil, the chunk being filled is queued
// first; when the reader is gone by then, its error is returned.
func (w *handoffWriter) CloseWithError(err error) error {
	if w.closed {
		return nil
	}
	w.closed = true
	var qerr error
	if err == nil && len(w.buf) > 0 {
		qerr = w.queue()
	}
	w.h.werr = err
	close(w.h.full)
	return qerr
}

// handoffReader is the reading end.
type handoffReader struct {
	h     *handoff
	chunk []byte // the chunk being read, to give back once empty
	rest  []byte // what is left of it
}

// Read reads from the oldest queued chunk, waiting for one when none is.
// Once the writer has closed and every chunk is read, it returns the
// writer's error, or io.EOF when it closed without one.
func (r *handoffReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if r.chunk != nil {
			r.h.free <- r.chunk // never blocks: free has room for every chunk there is
			r.chunk = nil
		}
		b, ok := <-r.h.full
		if !ok {
			if r.h.werr != nil { // set before full was closed
				return 0, r.h.werr
			}
			return 0, io.EOF
		}
		r.chunk, r.rest = b, b
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// CloseWithError tells the writer the reader is gone, with err (nil: it
// stopped without one); the writer's next hand-off fails with it.
func (r *handoffReader) CloseWithError(err error) {
	r.h.once.Do(func() {
		r.h.rerr = err
		close(r.h.done)
	})
}
