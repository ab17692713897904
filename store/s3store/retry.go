package s3store

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"

	"formation/store/internal/core"
)

// Retry policy. Every operation of the store (one Get, one Put, one SetRef …)
// is a series of attempts: each attempt is bounded by Config.Timeout, and a
// transient failure (a timeout, a reset or refused connection, a lost reply,
// a 5xx, throttling) is retried after a pause that doubles from backoffBase
// up to backoffCap, half of it random so that clients that failed together
// do not retry together. No attempt starts once Config.RetryBudget has
// passed since the operation began, so an operation facing a dead endpoint
// ends within Timeout + RetryBudget with an ErrUnavailable error (exit 75).
const (
	backoffBase = 50 * time.Millisecond
	backoffCap  = 2 * time.Second
)

// attempt is one try of an operation; ctx carries the attempt's deadline.
type attempt func(ctx context.Context) error

// outcome is what do reports besides the error.
type outcome struct {
	// uncertain: an earlier attempt failed without a definite answer from
	// the server (a timeout, a dropped connection), so it may have been
	// applied. A conditional write that then fails its precondition must
	// check whether the write that "failed" is the one it finds.
	uncertain bool
}

// do runs an operation under the retry policy and returns its error mapped
// to a store error kind (mapErr) and refined with what only the store knows
// (classify: a 404 from an endpoint without the bucket is configuration).
func (s *Store) do(ctx context.Context, op, key string, try attempt) (outcome, error) {
	var out outcome
	if err := s.gaveUp.check(op, key); err != nil {
		return out, err
	}
	start := time.Now()
	for n := 0; ; n++ {
		actx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		err := try(actx)
		timedOut := actx.Err() != nil && ctx.Err() == nil
		cancel()
		if err == nil {
			return out, nil
		}
		if timedOut {
			err = fmt.Errorf("no answer within %v: %w", s.cfg.Timeout, err)
		}
		mapped := mapErr(op, key, err)
		retry, definite := transient(mapped)
		if !retry || ctx.Err() != nil {
			return out, s.classify(ctx, mapped)
		}
		out.uncertain = out.uncertain || !definite
		pause := backoff(n)
		left := s.cfg.RetryBudget - time.Since(start)
		if left <= 0 {
			gave := core.E(op, key, core.ErrUnavailable,
				fmt.Errorf("gave up after %d attempts in %v (retry budget %v): %w", n+1, time.Since(start).Round(time.Millisecond), s.cfg.RetryBudget, err))
			s.gaveUp.set(gave, s.cfg.RetryBudget)
			return out, gave
		}
		if err := sleep(ctx, min(pause, left)); err != nil {
			return out, core.E(op, key, nil, err)
		}
	}
}

// backoff is the pause before retry n+1: doubling from backoffBase up to
// backoffCap, the second half of it random.
func backoff(n int) time.Duration {
	d := backoffBase << min(n, 16)
	if d > backoffCap || d <= 0 {
		d = backoffCap
	}
	half := d / 2
	return half + rand.N(half+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// transient says whether a mapped error is worth another attempt and, if
// so, whether the failed attempt certainly changed nothing (definite: the
// server refused it, or it never reached the server).
func transient(err error) (retry, definite bool) {
	if !errors.Is(err, core.ErrUnavailable) || permanent(err) {
		return false, true
	}
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && resp.StatusCode != 0 {
		refused := resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests ||
			resp.Code == "SlowDown"
		return true, refused
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true, true
	}
	return true, false
}

// permanent recognises transport failures that no retry can cure: a TLS
// client talking to a plain-http server or the other way round, and
// certificates that do not verify.
func permanent(err error) bool {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "server gave HTTP response to HTTPS client") ||
		strings.Contains(msg, "first record does not look like a TLS handshake") ||
		strings.Contains(msg, "malformed HTTP response")
}

// latch remembers that an operation spent its whole retry budget. For as
// long again, every operation fails at once: a command facing a dead
// endpoint then ends within one operation's bound instead of paying it again
// for each of its remaining operations (its audit record included).
type latch struct {
	mu    sync.Mutex
	until time.Time
	cause error
}

func (l *latch) set(cause error, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.until, l.cause = time.Now().Add(d), cause
}

func (l *latch) check(op, key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cause == nil || time.Now().After(l.until) {
		return nil
	}
	return core.E(op, key, core.ErrUnavailable, fmt.Errorf("not tried: an earlier operation gave up on the endpoint: %w", l.cause))
}
