package mining

import (
	"context"
	"errors"
	"io"
	"runtime"
	"syscall"
	"time"
)

// StageVersion is the mine stage's version; it changes whenever the bundle
// Mine produces for the same sources could change.
const StageVersion = "1"

// ObjectWriter stores bytes under their SHA-256 and returns the digest and
// size. store.Store satisfies it.
type ObjectWriter interface {
	PutReader(ctx context.Context, r io.Reader) (digest string, size int64, err error)
}

// Options tune a mine. The zero value is valid: NumCPU workers, LLM sources
// off, three attempts for transient faults, no progress reports.
type Options struct {
	// Jobs bounds the worker pool; 0 means runtime.NumCPU().
	Jobs int
	// EnableLLM lets llm sources run (--enable-llm-source). While it is
	// false, an llm source in subject.yaml is refused, never skipped.
	EnableLLM bool
	// LLM generates the text of llm sources; nil means RecordedLLM, which
	// reads the output file the source names.
	LLM LLMProvider
	// Retry is how often a transient fault is retried.
	Retry RetryPolicy
	// IsTransient says whether an error may go away on retry. nil means
	// DefaultIsTransient. The command adds the store's "unavailable" kind.
	IsTransient func(error) bool
	// Proposals reads the accepted teaching proposals for a proposals
	// source (teaching/queue over the store); a proposals source needs it.
	Proposals ProposalReader
	// Progress, when set, is called after every finished work item from a
	// single goroutine (it need not be safe for concurrent use), and once
	// more at the end when the listing finished after the last item did:
	// the last report always has Listed set.
	Progress func(Progress)
}

// Progress reports how far a mine has come.
type Progress struct {
	Done       int64 // work items finished: files, tables, LLM sources
	Discovered int64 // work items found so far
	Listed     bool  // every source has been listed: Discovered is the total
	Bytes      int64 // raw bytes read so far
	Refused    int64 // refusals so far
}

// RetryPolicy bounds retries of transient faults. Zero fields take the
// defaults (3 attempts, 50 ms first delay, doubling).
type RetryPolicy struct {
	Attempts  int
	BaseDelay time.Duration
}

func (o Options) jobs() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return runtime.NumCPU()
}

func (o Options) llm() LLMProvider {
	if o.LLM != nil {
		return o.LLM
	}
	return RecordedLLM{}
}

func (o Options) transient(err error) bool {
	if o.IsTransient != nil && o.IsTransient(err) {
		return true
	}
	return DefaultIsTransient(err)
}

// DefaultIsTransient accepts errors that declare themselves temporary and
// the interrupted/busy/timed-out system errors; a refusal, a missing file or
// a cancelled context is never transient.
func DefaultIsTransient(err error) bool {
	var r *refusal
	if err == nil || errors.As(err, &r) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var t interface{ Temporary() bool }
	if errors.As(err, &t) && t.Temporary() {
		return true
	}
	var tr interface{ Transient() bool }
	if errors.As(err, &tr) && tr.Transient() {
		return true
	}
	return errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) ||
		errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.ETIMEDOUT)
}

// retry runs fn until it succeeds, fails for good, or the attempts run out.
// Only transient errors are retried; the wait between attempts doubles.
func (o Options) retry(ctx context.Context, fn func() error) error {
	attempts, delay := o.Retry.Attempts, o.Retry.BaseDelay
	if attempts <= 0 {
		attempts = 3
	}
	if delay <= 0 {
		delay = 50 * time.Millisecond
	}
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil || !o.transient(err) || i == attempts-1 {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay *= 2
	}
	return err
}
