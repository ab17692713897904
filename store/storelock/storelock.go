// Package storelock is the lock protocol that lets garbage collection run
// beside writers on both backends, as restic does it: lock objects in the
// store itself, under the ref prefix locks/.
//
// Every command that may write takes a shared lock for as long as it runs;
// `formation gc` takes an exclusive one. Taking a lock is: create the lock
// ref, then list locks/ and look for conflicts (the listing of both backends
// is consistent with the writes before it). Of two lockers that conflict,
// at least one sees the other, because each created its own lock before
// listing; so a writer and gc never both go on:
//
//   - a shared locker that sees a live exclusive lock removes its own, waits
//     and tries again;
//   - an exclusive locker that sees a live exclusive lock with a smaller name
//     (an earlier one; names start with the creation time) removes its own,
//     waits and tries again; otherwise it keeps its lock, so that new writers
//     stay out, and waits until no live shared lock is left.
//
// A lock records its owner and when it was last refreshed. Its holder
// refreshes it every RefreshEvery; a lock not refreshed for StaleAfter
// (by the reader's clock) is stale: its holder is presumed dead, lockers
// ignore it and gc removes it. A holder that cannot refresh its lock for
// longer than StaleAfter - RefreshEvery, or finds it removed, is told the
// lock is lost and must stop (the command's context is cancelled). The
// protocol thus assumes clocks agree to well within StaleAfter.
//
// A waiter gives up after its wait limit with an error that exits 75.
package storelock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/store"
)

// Prefix is the ref prefix of every lock.
const Prefix = "locks/"

// Protocol timing defaults.
const (
	StaleAfter   = 30 * time.Minute
	RefreshEvery = 5 * time.Minute
	waitMin      = 50 * time.Millisecond
	waitMax      = 2 * time.Second
)

// Kind is shared (writers) or exclusive (gc).
type Kind string

// The kinds of lock.
const (
	Shared    Kind = "shared"
	Exclusive Kind = "exclusive"
)

// Record is a lock ref's value.
type Record struct {
	Kind      Kind   `json:"kind"`
	Owner     string `json:"owner"` // what holds it, e.g. "autorun optics"
	Host      string `json:"host"`
	PID       int    `json:"pid"`
	Created   string `json:"created"`   // RFC 3339, UTC
	Refreshed string `json:"refreshed"` // RFC 3339 with nanoseconds, UTC
}

// Options adjust Acquire; zero values take the defaults.
type Options struct {
	Owner        string
	Wait         time.Duration    // give up after waiting this long for conflicting locks; 0: at once
	StaleAfter   time.Duration    // default StaleAfter
	RefreshEvery time.Duration    // default RefreshEvery
	Now          func() time.Time // default time.Now
	// OnLost is called (once, from the refresher) when the lock is lost.
	OnLost func(error)
}

func (o Options) withDefaults() Options {
	if o.StaleAfter <= 0 {
		o.StaleAfter = StaleAfter
	}
	if o.RefreshEvery <= 0 {
		o.RefreshEvery = RefreshEvery
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// ErrLost is the cause a lost lock reports.
var ErrLost = errors.New("storelock: the lock was lost")

// LockedError is a wait that ran out: other live locks still conflict.
type LockedError struct {
	Kind    Kind
	Holders []string // "locks/… (owner, host, pid)"
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("storelock: the store is locked (%s lock wanted): held by %s; retry later",
		e.Kind, strings.Join(e.Holders, ", "))
}

// ExitCode is 75: the same command, run later, may succeed.
func (e *LockedError) ExitCode() int { return exitcode.Unavailable }

// Lock is a held lock.
type Lock struct {
	m    store.Maintainer
	name string
	rec  Record
	opts Options

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// Name is the lock's ref name.
func (l *Lock) Name() string { return l.name }

// Acquire takes a lock of kind on the store, waiting up to opts.Wait for
// conflicting locks to go.
func Acquire(ctx context.Context, m store.Maintainer, kind Kind, opts Options) (*Lock, error) {
	opts = opts.withDefaults()
	deadline := opts.Now().Add(opts.Wait)
	for n := 0; ; n++ {
		l, err := create(ctx, m, kind, opts)
		if err != nil {
			return nil, err
		}
		holders, err := l.await(ctx, deadline)
		if err == nil && holders == nil {
			l.startRefresh()
			return l, nil
		}
		if rerr := l.remove(context.WithoutCancel(ctx)); err == nil {
			err = rerr
		}
		if err != nil {
			return nil, err
		}
		if !opts.Now().Before(deadline) {
			return nil, &LockedError{Kind: kind, Holders: holders}
		}
		if err := pause(ctx, n); err != nil {
			return nil, err
		}
	}
}

// createAttempts bounds the retries of a lock's creation refused as a name
// clash. Lock names are fresh and flat (locks/<kind>-<time>-<random>), so no
// such clash is real: a posix-backed S3 server removes the folder locks/
// when its last lock is deleted, and a creation racing that removal is
// refused as if the name were a folder. Trying again succeeds.
const createAttempts = 5

func create(ctx context.Context, m store.Maintainer, kind Kind, opts Options) (*Lock, error) {
	for n := 0; ; n++ {
		l, err := createOnce(ctx, m, kind, opts)
		if err == nil || !errors.Is(err, store.ErrInvalid) || n+1 == createAttempts {
			return l, err
		}
		if err := pause(ctx, n); err != nil {
			return nil, err
		}
	}
}

func createOnce(ctx context.Context, m store.Maintainer, kind Kind, opts Options) (*Lock, error) {
	now := opts.Now().UTC()
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("storelock: %w", err)
	}
	host, _ := os.Hostname()
	l := &Lock{m: m, opts: opts,
		name: fmt.Sprintf("%s%s-%019d-%s", Prefix, kind, now.UnixNano(), hex.EncodeToString(rnd[:])),
		rec: Record{Kind: kind, Owner: opts.Owner, Host: host, PID: os.Getpid(),
			Created: now.Format(time.RFC3339), Refreshed: now.Format(time.RFC3339Nano)}}
	body, err := canon.Marshal(l.rec)
	if err != nil {
		return nil, fmt.Errorf("storelock: %w", err)
	}
	if _, err := m.SetRef(ctx, l.name, "", body); err != nil {
		return nil, fmt.Errorf("storelock: create %s: %w", l.name, err)
	}
	return l, nil
}

// await checks for conflicts after creating the lock. It returns nil
// holders when the lock is held; holders when this locker must yield (its
// lock to be removed) or its wait ran out. An exclusive locker that only
// waits for shared holders keeps its lock and waits here.
func (l *Lock) await(ctx context.Context, deadline time.Time) ([]string, error) {
	for n := 0; ; n++ {
		others, err := Live(ctx, l.m, l.opts.StaleAfter, l.opts.Now)
		if err != nil {
			return nil, err
		}
		var holders []string
		yield := false
		for _, o := range others {
			if o.Name == l.name || l.rec.Kind == Shared && o.Kind == Shared {
				continue
			}
			holders = append(holders, o.String())
			if l.rec.Kind == Shared || o.Kind == Exclusive && o.Name < l.name {
				yield = true
			}
		}
		if holders == nil {
			return nil, nil
		}
		if yield || !l.opts.Now().Before(deadline) {
			return holders, nil
		}
		if err := pause(ctx, n); err != nil {
			return nil, err
		}
	}
}

// Info is one lock as others see it.
type Info struct {
	Record
	Name  string
	Stale bool
}

func (i Info) String() string {
	return fmt.Sprintf("%s (%s, host %s, pid %d)", i.Name, i.Owner, i.Host, i.PID)
}

// List reads every lock; a lock whose record cannot be read is stale, as
// nobody can be refreshing it.
func List(ctx context.Context, s store.Store, staleAfter time.Duration, now func() time.Time) ([]Info, error) {
	names, err := s.ListRefs(ctx, Prefix)
	if err != nil {
		return nil, fmt.Errorf("storelock: list: %w", err)
	}
	var out []Info
	for _, name := range names {
		val, _, err := s.GetRef(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			continue // released since the listing
		}
		if err != nil && !errors.Is(err, store.ErrCorrupt) {
			return nil, fmt.Errorf("storelock: read %s: %w", name, err)
		}
		info := Info{Name: name, Stale: true}
		var rec Record
		if err == nil && canon.Unmarshal(val, &rec) == nil {
			if t, perr := time.Parse(time.RFC3339Nano, rec.Refreshed); perr == nil {
				info.Record, info.Stale = rec, now().Sub(t) > staleAfter
			}
		}
		out = append(out, info)
	}
	return out, nil
}

// Live lists the locks that are not stale.
func Live(ctx context.Context, s store.Store, staleAfter time.Duration, now func() time.Time) ([]Info, error) {
	all, err := List(ctx, s, staleAfter, now)
	return slices.DeleteFunc(all, func(i Info) bool { return i.Stale }), err
}

// startRefresh keeps the lock fresh until Release.
func (l *Lock) startRefresh() {
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		last := l.opts.Now()
		t := time.NewTicker(l.opts.RefreshEvery)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
			err := l.refresh()
			switch {
			case err == nil:
				last = l.opts.Now()
				continue
			case errors.Is(err, ErrLost):
			case l.opts.Now().Sub(last) < l.opts.StaleAfter-l.opts.RefreshEvery:
				continue // try again at the next tick, while the lock is still fresh
			default:
				err = fmt.Errorf("%w: not refreshed since %s: %v", ErrLost, last.UTC().Format(time.RFC3339), err)
			}
			if l.opts.OnLost != nil {
				l.opts.OnLost(err)
			}
			return
		}
	}()
}

// refresh writes the current time into the lock.
func (l *Lock) refresh() error {
	ctx, cancel := context.WithTimeout(context.Background(), l.opts.RefreshEvery)
	defer cancel()
	_, _, err := store.UpdateRef(ctx, l.m, l.name, func(old []byte, exists bool) ([]byte, error) {
		if !exists {
			return nil, fmt.Errorf("%w: %s was removed (stale?)", ErrLost, l.name)
		}
		rec := l.rec
		rec.Refreshed = l.opts.Now().UTC().Format(time.RFC3339Nano)
		return canon.Marshal(rec)
	})
	return err
}

// Release stops refreshing and removes the lock.
func (l *Lock) Release(ctx context.Context) error {
	var err error
	l.once.Do(func() {
		if l.stop != nil {
			close(l.stop)
			<-l.done
		}
		err = l.remove(ctx)
	})
	return err
}

func (l *Lock) remove(ctx context.Context) error {
	if err := l.m.DeleteRef(ctx, l.name); err != nil {
		return fmt.Errorf("storelock: release %s: %w", l.name, err)
	}
	return nil
}

// pause waits before retry n with doubling, jittered backoff.
func pause(ctx context.Context, n int) error {
	d := min(waitMin<<min(n, 10), waitMax)
	var b [1]byte
	_, _ = rand.Read(b[:])
	d = d/2 + d/2*time.Duration(b[0])/255
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
