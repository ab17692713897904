// Package storegc is root-based garbage collection of a store, as
// `formation gc` runs it.
//
// Roots are every ref but the stage cache's action records: the subjects'
// stage refs, the reviewed state (knowledge/state: every state of its chain
// and every object each names), lane results, audit batches, packs,
// proposals, and the cache's notes of the latest run of each subject and
// stage (cache/last/…, cache/runs/…). Everything reachable from them through
// the artifacts' digests is kept (package reach walks each kind). An action
// record (cache/<stage>/<key>) is kept while it is the latest record of some
// subject's stage; older ones are removed with whatever only they reached,
// and the next run that needs them recomputes. A validated-set lookup
// (index/validated/<sha>) is kept while a kept object names its sha.
//
// Safety beside running writers is the lock protocol of store/storelock:
// gc holds the exclusive lock from before it lists anything until it has
// deleted everything, and every writing command holds a shared one for as
// long as it runs, so no writer can be between storing an object and naming
// it while gc decides. The grace period is a margin on top: an object, temp
// file or upload younger than it is never removed. Stale locks (holders
// that stopped refreshing them) are removed too. Read-only commands take no
// lock: one that read a ref before a writer moved it, and reads the old
// object only after a gc that followed removed it, fails (exit 66) and
// succeeds when run again.
//
// gc refuses to delete anything (exit 65) when a ref or a reachable object
// cannot be read as what it should be: what it names is unknown.
package storegc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"formation/canon"
	"formation/internal/exitcode"
	"formation/reach"
	"formation/store"
	"formation/store/storelock"
)

// TempMinAge protects temp files of commands that take no lock (read-only
// commands write audit records): younger ones are kept whatever the grace.
const TempMinAge = time.Minute

// DefaultGrace is the grace period of `formation gc`.
const DefaultGrace = time.Hour

// Options say how to collect.
type Options struct {
	DryRun bool          // report what would go; change nothing (and take no lock)
	Grace  time.Duration // keep anything younger
	Wait   time.Duration // wait this long for running writers' locks
	Owner  string        // written into the lock
	Now    func() time.Time
	Lock   storelock.Options // the lock's timing (tests shorten it); Owner and Wait above win
}

// Report is what a collection did (or, dry, would do).
type Report struct {
	DryRun           bool           `json:"dry_run"`
	Grace            string         `json:"grace"`
	Roots            int            `json:"roots"`
	ObjectsListed    int            `json:"objects_listed"`
	ObjectsKept      int            `json:"objects_kept"`
	ObjectsDeleted   int            `json:"objects_deleted"`
	BytesDeleted     int64          `json:"bytes_deleted"`
	BytesKept        int64          `json:"bytes_kept"`
	WithinGrace      int            `json:"unreachable_within_grace"`
	RefsDeleted      []string       `json:"refs_deleted"`
	LeftoversRemoved []LeftoverNote `json:"leftovers_removed"`
	Missing          []string       `json:"missing_objects"` // named by a kept artifact, not stored: see `formation check`
}

// LeftoverNote is one removed leftover.
type LeftoverNote struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// RefusedError stops gc before it deletes anything.
type RefusedError struct {
	Reason string
	Detail string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("gc: refused (%s): %s; nothing was deleted; run `formation check`", e.Reason, e.Detail)
}

// ExitCode is 65: the store holds something gc cannot read.
func (e *RefusedError) ExitCode() int { return exitcode.Rejected }

// Reasons of a refusal.
const (
	ReasonUndecodableRef    = "undecodable_ref"
	ReasonUndecodableObject = "undecodable_object"
	ReasonCorruptObject     = "corrupt_object"
)

// Collect runs garbage collection on s.
func Collect(ctx context.Context, s store.Store, opts Options) (Report, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	rep := Report{DryRun: opts.DryRun, Grace: opts.Grace.String(), RefsDeleted: []string{},
		LeftoversRemoved: []LeftoverNote{}, Missing: []string{}}
	m, err := store.AsMaintainer(s)
	if err != nil {
		return rep, err
	}
	if !opts.DryRun {
		lo := opts.Lock
		lo.Owner, lo.Wait, lo.Now = opts.Owner, opts.Wait, opts.Now
		lock, err := storelock.Acquire(ctx, m, storelock.Exclusive, lo)
		if err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
		defer func() { _ = lock.Release(context.WithoutCancel(ctx)) }()
	}
	c := &collector{m: m, opts: opts, rep: &rep, kept: map[string]bool{}, readAs: map[string]map[reach.Kind]bool{},
		keptRefs: map[string]bool{}}
	if err := c.run(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}

type collector struct {
	m        store.Maintainer
	opts     Options
	rep      *Report
	objects  []store.ObjectInfo
	stored   map[string]bool
	kept     map[string]bool                // objects reached
	readAs   map[string]map[reach.Kind]bool // the kinds each object was read and walked as
	keptRefs map[string]bool                // lookup and cache refs to keep
	refs     []string
}

func (c *collector) run(ctx context.Context) error {
	var err error
	// Objects are listed first: anything stored after the listing is not
	// a candidate, even in a dry run that holds no lock.
	if c.objects, err = c.m.ObjectInfos(ctx); err != nil {
		return fmt.Errorf("gc: list objects: %w", err)
	}
	c.rep.ObjectsListed = len(c.objects)
	c.stored = make(map[string]bool, len(c.objects))
	for _, o := range c.objects {
		c.stored[o.Digest] = true
	}
	if c.refs, err = c.m.ListRefs(ctx, ""); err != nil {
		return fmt.Errorf("gc: list refs: %w", err)
	}
	if err := c.mark(ctx); err != nil {
		return err
	}
	c.rep.Missing = slices.Compact(slices.Sorted(slices.Values(c.rep.Missing)))
	return c.sweep(ctx)
}

// frontier is what mark has yet to visit: objects, and validated_set_sha
// values whose lookup refs lead to more.
type frontier struct {
	edges   []reach.Edge
	lookups []string
}

func (f *frontier) add(n reach.Names) {
	f.edges = append(f.edges, n.Objects...)
	f.lookups = append(f.lookups, n.Validated...)
}

// mark walks from the roots and marks every object and ref to keep.
func (c *collector) mark(ctx context.Context) error {
	f, err := c.roots(ctx)
	if err != nil {
		return err
	}
	for len(f.edges) > 0 || len(f.lookups) > 0 {
		var n reach.Names
		if k := len(f.lookups); k > 0 {
			sha := f.lookups[k-1]
			f.lookups = f.lookups[:k-1]
			n, err = c.lookup(ctx, sha)
		} else {
			e := f.edges[len(f.edges)-1]
			f.edges = f.edges[:len(f.edges)-1]
			n, err = c.visit(ctx, e)
		}
		if err != nil {
			return err
		}
		f.add(n)
	}
	return nil
}

// roots reads every root ref (and the action records still latest) and
// returns what they name.
func (c *collector) roots(ctx context.Context) (*frontier, error) {
	latest, err := c.latestRecords(ctx)
	if err != nil {
		return nil, err
	}
	f := &frontier{}
	for _, name := range c.refs {
		role := reach.RoleOf(name)
		if role == reach.Lock || role == reach.ValidatedLookup || role == reach.CacheRecord && !latest[name] {
			continue
		}
		if role == reach.CacheRecord {
			c.keptRefs[name] = true
		}
		n, found, err := c.refNames(ctx, name)
		if err != nil {
			return nil, err
		}
		if found {
			c.rep.Roots++
			f.add(n)
		}
	}
	return f, nil
}

// lookup keeps the ref index/validated/<sha>, once, and returns what it names.
func (c *collector) lookup(ctx context.Context, sha string) (reach.Names, error) {
	name := reach.ValidatedPrefix + sha
	if c.keptRefs[name] {
		return reach.Names{}, nil
	}
	n, found, err := c.refNames(ctx, name)
	if found {
		c.keptRefs[name] = true
	}
	return n, err
}

// latestRecords returns the action records some cache/last note points at.
func (c *collector) latestRecords(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range c.refs {
		if !strings.HasPrefix(name, reach.LastPrefix) {
			continue
		}
		val, _, err := c.m.GetRef(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, refErr(name, err)
		}
		// A note in a format without key and stage keeps no action record;
		// its output is a root all the same.
		if key, stage := recordKey(val); key != "" && stage != "" {
			out["cache/"+stage+"/"+key] = true
		}
	}
	return out, nil
}

// refNames reads a ref and returns what it names; found is false for a ref
// removed since the listing.
func (c *collector) refNames(ctx context.Context, name string) (reach.Names, bool, error) {
	val, _, err := c.m.GetRef(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return reach.Names{}, false, nil
	}
	if err != nil {
		return reach.Names{}, false, refErr(name, err)
	}
	n, err := reach.OfRef(name, val)
	if err != nil {
		return reach.Names{}, false, &RefusedError{Reason: ReasonUndecodableRef, Detail: err.Error()}
	}
	return n, true, nil
}

func refErr(name string, err error) error {
	if errors.Is(err, store.ErrCorrupt) {
		return &RefusedError{Reason: ReasonUndecodableRef, Detail: err.Error()}
	}
	return fmt.Errorf("gc: read %s: %w", name, err)
}

// visit marks an object and returns what it names. Leaves are not read.
// An object reached as several kinds is read as each of them, so that a
// ref pointing at the wrong kind of object stops gc even when the object is
// also reached correctly.
func (c *collector) visit(ctx context.Context, e reach.Edge) (reach.Names, error) {
	if !c.stored[e.Digest] {
		// Not in the listing: missing, or stored after it (then it is no
		// candidate either). Either way there is nothing to walk.
		c.rep.Missing = append(c.rep.Missing, e.Digest)
		return reach.Names{}, nil
	}
	c.kept[e.Digest] = true
	switch e.Kind {
	case reach.Source, reach.CourseYAML, reach.TurnEvents:
		return reach.Names{}, nil
	}
	seen := c.readAs[e.Digest]
	if seen[e.Kind] || e.Kind == reach.Unknown && len(seen) > 0 {
		return reach.Names{}, nil
	}
	raw, err := c.m.Get(ctx, e.Digest)
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return reach.Names{}, &RefusedError{Reason: ReasonCorruptObject, Detail: err.Error()}
	case errors.Is(err, store.ErrNotFound):
		c.rep.Missing = append(c.rep.Missing, e.Digest)
		return reach.Names{}, nil
	case err != nil:
		return reach.Names{}, fmt.Errorf("gc: read %s: %w", e.Digest, err)
	}
	kind, n, err := reach.Of(e.Kind, raw)
	if err != nil {
		return reach.Names{}, &RefusedError{Reason: ReasonUndecodableObject, Detail: fmt.Sprintf("%s: %v", e.Digest, err)}
	}
	if seen == nil {
		seen = map[reach.Kind]bool{}
		c.readAs[e.Digest] = seen
	}
	seen[e.Kind], seen[kind] = true, true
	return n, nil
}

// sweep removes (or, dry, counts) what mark did not keep.
func (c *collector) sweep(ctx context.Context) error {
	now := c.opts.Now()
	for _, name := range c.refs {
		role := reach.RoleOf(name)
		if (role == reach.CacheRecord || role == reach.ValidatedLookup) && !c.keptRefs[name] {
			if err := c.deleteRef(ctx, name); err != nil {
				return err
			}
		}
	}
	if err := c.staleLocks(ctx); err != nil {
		return err
	}
	cutoff := now.Add(-c.opts.Grace)
	for _, o := range c.objects {
		if c.kept[o.Digest] {
			c.rep.ObjectsKept++
			c.rep.BytesKept += o.Size
			continue
		}
		if !o.ModTime.Before(cutoff) {
			c.rep.WithinGrace++
			c.rep.BytesKept += o.Size
			continue
		}
		if !c.opts.DryRun {
			if err := c.m.DeleteObject(ctx, o.Digest); err != nil {
				return fmt.Errorf("gc: delete %s: %w", o.Digest, err)
			}
		}
		c.rep.ObjectsDeleted++
		c.rep.BytesDeleted += o.Size
	}
	return c.leftovers(ctx, now)
}

func (c *collector) deleteRef(ctx context.Context, name string) error {
	if !c.opts.DryRun {
		if err := c.m.DeleteRef(ctx, name); err != nil {
			return fmt.Errorf("gc: delete %s: %w", name, err)
		}
	}
	c.rep.RefsDeleted = append(c.rep.RefsDeleted, name)
	return nil
}

// staleLocks removes the locks whose holders stopped refreshing them.
func (c *collector) staleLocks(ctx context.Context) error {
	lo := c.opts.Lock
	if lo.StaleAfter <= 0 {
		lo.StaleAfter = storelock.StaleAfter
	}
	locks, err := storelock.List(ctx, c.m, lo.StaleAfter, c.opts.Now)
	if err != nil {
		return fmt.Errorf("gc: %w", err)
	}
	for _, l := range locks {
		if l.Stale {
			if err := c.deleteRef(ctx, l.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// leftovers removes temp and spool files and incomplete uploads older than
// the grace period (temp files: and than TempMinAge).
func (c *collector) leftovers(ctx context.Context, now time.Time) error {
	left, err := c.m.Leftovers(ctx)
	if err != nil {
		return fmt.Errorf("gc: leftovers: %w", err)
	}
	for _, l := range left {
		age := c.opts.Grace
		if l.Kind == store.LeftoverTempFile {
			age = max(age, TempMinAge)
		}
		if now.Sub(l.Since) < age {
			continue
		}
		if !c.opts.DryRun {
			if err := c.m.RemoveLeftover(ctx, l); err != nil {
				return fmt.Errorf("gc: remove %s %s: %w", l.Kind, l.Name, err)
			}
		}
		c.rep.LeftoversRemoved = append(c.rep.LeftoversRemoved, LeftoverNote{Kind: l.Kind, Name: l.Name, Size: l.Size})
	}
	return nil
}

// recordKey reads the key and stage of a stage-cache record.
func recordKey(val []byte) (key, stage string) {
	doc, err := canon.Decode(val)
	obj, ok := doc.(*canon.Object)
	if err != nil || !ok {
		return "", ""
	}
	key, _ = obj.String("key")
	if ing, ok := obj.Get("ingredients"); ok {
		if o, ok := ing.(*canon.Object); ok {
			stage, _ = o.String("stage")
		}
	}
	return key, stage
}
