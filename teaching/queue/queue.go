// Package queue keeps teaching proposals in the object store, apart from
// everything reviewed: every record is a canonical-JSON object, and each
// proposal has one ref, proposals/<id>, whose value is the digest of its
// current record.
//
// The ref is created once, by store.CreateRef, naming the proposal itself
// (its value is its own id): recording the same proposal again changes
// nothing. A decision never rewrites a record: it stores the decided copy
// (teaching.Decide) as a new object and moves the ref to it by one
// compare-and-swap (store.UpdateRef) that succeeds only while the ref still
// names the undecided proposal, so a proposal is decided at most once.
// Pruning stores one more copy, without the user's words, and moves the ref
// the same way; the objects that held the words are then referenced by no
// ref of the queue.
//
// The queue writes nothing but objects, proposals/ refs and audit records:
// no knowledge, index, subject or pack ref.
package queue

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"formation/audit"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/store"
	"formation/teaching"
)

// Prefix is the ref prefix of proposals.
const Prefix = "proposals/"

// Ref is the ref of the proposal id.
func Ref(id string) string { return Prefix + id }

// Audit subject and stages of the queue's records.
const (
	AuditSubject = "_proposals"
	StageChat    = "chat"
	StageReview  = "review"
)

// Queue is the proposals of one store.
type Queue struct {
	Store store.Store
	// Audit receives one record per proposal recorded, decided or pruned;
	// nil writes none.
	Audit *audit.Writer
}

// Entry is one proposal as the queue holds it.
type Entry struct {
	ID     string            // the proposal's id
	Head   string            // the digest of its current record
	Record teaching.Proposal // the current record
}

// Record stores an original proposal and creates its ref. It returns the
// proposal's id and whether this call created it (false: the very same
// proposal was recorded before, and nothing changed).
func (q Queue) Record(ctx context.Context, p teaching.Proposal) (string, bool, error) {
	if !p.Original() {
		return "", false, &teaching.Error{Code: exitcode.Rejected, Reason: teaching.ReasonInvalid, Detail: "only an undecided proposal is recorded"}
	}
	if err := p.Check(); err != nil {
		return "", false, err
	}
	raw, err := p.Canonical()
	if err != nil {
		return "", false, err
	}
	id, err := q.Store.Put(ctx, raw)
	if err != nil {
		return "", false, fmt.Errorf("teaching: record proposal: %w", err)
	}
	created, err := store.CreateRef(ctx, q.Store, Ref(id), []byte(id))
	if err != nil {
		return "", false, fmt.Errorf("teaching: record proposal: %w", err)
	}
	if created {
		err = q.audit(ctx, StageChat, audit.KindNote, "proposal_recorded", id,
			fmt.Sprintf("%s: %s (session %s, turn %d)", p.Kind, p.Claim(), p.SessionID, p.Turn))
	}
	return id, created, err
}

// Propose records p and returns its id (the runtime's Teacher).
func (q Queue) Propose(ctx context.Context, p teaching.Proposal) (string, error) {
	id, _, err := q.Record(ctx, p)
	return id, err
}

// Standing is where the proposal id stands now (the runtime's Teacher).
func (q Queue) Standing(ctx context.Context, id string) (teaching.Standing, error) {
	e, err := q.Get(ctx, id)
	if err != nil {
		return teaching.Standing{}, err
	}
	return e.Record.Standing(), nil
}

// Get reads the proposal id: its ref, then its current record, checked to
// be the proposal itself or a record derived from it.
func (q Queue) Get(ctx context.Context, id string) (Entry, error) {
	if !ident.ValidDigest(id) {
		return Entry{}, &teaching.Error{Code: exitcode.Usage, Reason: teaching.ReasonNotFound, Detail: fmt.Sprintf("%q is not a proposal id (64 lowercase hex)", id)}
	}
	val, _, err := q.Store.GetRef(ctx, Ref(id))
	if errors.Is(err, store.ErrNotFound) {
		return Entry{}, &teaching.Error{Code: exitcode.NotFound, Reason: teaching.ReasonNotFound, Detail: "no proposal " + id}
	}
	if err != nil {
		return Entry{}, fmt.Errorf("teaching: read %s: %w", Ref(id), err)
	}
	return q.entry(ctx, id, string(val))
}

func (q Queue) entry(ctx context.Context, id, head string) (Entry, error) {
	bad := func(format string, args ...any) error {
		return &teaching.Error{Code: exitcode.Rejected, Reason: teaching.ReasonInvalid, Detail: Ref(id) + ": " + fmt.Sprintf(format, args...)}
	}
	if !ident.ValidDigest(head) {
		return Entry{}, bad("the ref holds %q, not a digest", head)
	}
	raw, err := q.Store.Get(ctx, head)
	if err != nil {
		return Entry{}, fmt.Errorf("teaching: read %s: %w", Ref(id), err)
	}
	rec, err := teaching.Decode(raw)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", Ref(id), err)
	}
	switch {
	case head == id && !rec.Original():
		return Entry{}, bad("the proposal object is a derived record")
	case head != id && rec.Proposal != id:
		return Entry{}, bad("the current record derives from %q", rec.Proposal)
	}
	return Entry{ID: id, Head: head, Record: rec}, nil
}

// List reads every proposal, ordered by session, turn and id.
func (q Queue) List(ctx context.Context) ([]Entry, error) {
	names, err := q.Store.ListRefs(ctx, Prefix)
	if err != nil {
		return nil, fmt.Errorf("teaching: list proposals: %w", err)
	}
	out := make([]Entry, 0, len(names))
	for _, name := range names {
		e, err := q.Get(ctx, strings.TrimPrefix(name, Prefix))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Record, out[j].Record
		if a.SessionID != b.SessionID {
			return a.SessionID < b.SessionID
		}
		if a.Turn != b.Turn {
			return a.Turn < b.Turn
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Decide stores the decided copy of the proposal id and moves its ref to it,
// once: a proposal that is decided already (or is decided by someone else
// meanwhile) is refused with ReasonAlreadyDecided.
func (q Queue) Decide(ctx context.Context, id string, decided teaching.Proposal) (Entry, error) {
	if decided.Proposal != id || decided.Decision == nil {
		return Entry{}, &teaching.Error{Code: exitcode.Rejected, Reason: teaching.ReasonInvalid, Detail: "the record does not decide proposal " + id}
	}
	if err := teaching.VerifyDecision(decided); err != nil {
		return Entry{}, err
	}
	head, err := q.put(ctx, decided)
	if err != nil {
		return Entry{}, err
	}
	if err := q.move(ctx, id, id, head, teaching.ReasonAlreadyDecided); err != nil {
		return Entry{}, err
	}
	d := decided.Decision
	kind := audit.KindNote
	if d.Verdict == teaching.Rejected {
		kind = audit.KindRejection
	}
	err = q.audit(ctx, StageReview, kind, "proposal_"+string(d.Verdict), id,
		fmt.Sprintf("%s (%s → %s) by %s, key %s", d.Reason, d.Coherence.Status, decided.EpistemicStatus, d.Reviewer, d.KeyID[:12]))
	return Entry{ID: id, Head: head, Record: decided}, err
}

// Prune drops the user's words from every proposal decided before cutoff:
// each gets a pruned copy (teaching.Pruned, stamped now) as its current
// record. Undecided proposals are kept whole. It returns the ids pruned.
func (q Queue) Prune(ctx context.Context, cutoff, now time.Time) ([]string, error) {
	all, err := q.List(ctx)
	if err != nil {
		return nil, err
	}
	var pruned []string
	for _, e := range all {
		d := e.Record.Decision
		if d == nil || e.Record.PrunedAt != "" {
			continue
		}
		at, err := time.Parse(teaching.TimeLayout, d.DecidedAt)
		if err != nil || !at.Before(cutoff) {
			continue
		}
		rec, err := teaching.Pruned(e.Record, now)
		if err != nil {
			return pruned, err
		}
		head, err := q.put(ctx, rec)
		if err != nil {
			return pruned, err
		}
		if err := q.move(ctx, e.ID, e.Head, head, teaching.ReasonMoved); err != nil {
			var te *teaching.Error
			if errors.As(err, &te) && te.Reason == teaching.ReasonMoved {
				continue // pruned by someone else meanwhile
			}
			return pruned, err
		}
		if err := q.audit(ctx, StageReview, audit.KindDrop, "proposal_pruned", e.ID, "the user's words were dropped; decision "+string(d.Verdict)+" kept"); err != nil {
			return pruned, err
		}
		pruned = append(pruned, e.ID)
	}
	return pruned, nil
}

// Accepted is one accepted proposal, as the proposals mining adapter reads
// it: the proposal's own canonical bytes (whose digest is its id) and the
// decided record that accepted it.
type Accepted struct {
	ID       string
	Raw      []byte            // the proposal's canonical bytes
	Proposal teaching.Proposal // the proposal as recorded
	Decided  teaching.Proposal // the current, accepted record
}

// Accepted lists the accepted proposals in List order. Every decision is
// verified (its signature over its statement, teaching.VerifyDecision) and
// every proposal re-read by its id; any failure stops the listing.
func (q Queue) Accepted(ctx context.Context) ([]Accepted, error) {
	all, err := q.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []Accepted
	for _, e := range all {
		if d := e.Record.Decision; d == nil || d.Verdict != teaching.Accepted {
			continue
		}
		if err := teaching.VerifyDecision(e.Record); err != nil {
			return nil, fmt.Errorf("%s: %w", Ref(e.ID), err)
		}
		raw, err := q.Store.Get(ctx, e.ID)
		if err != nil {
			return nil, fmt.Errorf("teaching: proposal %s: %w", e.ID, err)
		}
		p, err := teaching.Decode(raw)
		if err != nil || !p.Original() {
			return nil, fmt.Errorf("teaching: proposal %s is not an original proposal: %v", e.ID, err)
		}
		out = append(out, Accepted{ID: e.ID, Raw: raw, Proposal: p, Decided: e.Record})
	}
	return out, nil
}

func (q Queue) put(ctx context.Context, rec teaching.Proposal) (string, error) {
	raw, err := rec.Canonical()
	if err != nil {
		return "", err
	}
	d, err := q.Store.Put(ctx, raw)
	if err != nil {
		return "", fmt.Errorf("teaching: store record: %w", err)
	}
	return d, nil
}

// move points the proposal's ref at next, only while it still names from.
func (q Queue) move(ctx context.Context, id, from, next, raced string) error {
	_, _, err := store.UpdateRef(ctx, q.Store, Ref(id), func(old []byte, exists bool) ([]byte, error) {
		switch {
		case !exists:
			return nil, &teaching.Error{Code: exitcode.NotFound, Reason: teaching.ReasonNotFound, Detail: "no proposal " + id}
		case string(old) != from:
			return nil, &teaching.Error{Code: exitcode.Rejected, Reason: raced,
				Detail: fmt.Sprintf("proposal %s moved on meanwhile (its record is %s)", id[:12], string(old))}
		}
		return []byte(next), nil
	})
	return err
}

func (q Queue) audit(ctx context.Context, stage, kind, reason, id, detail string) error {
	if q.Audit == nil {
		return nil
	}
	err := q.Audit.Append(ctx, audit.Record{Stage: stage, Subject: AuditSubject, Kind: kind, ReasonCode: reason,
		Key: Ref(id), Detail: detail, InputDigests: []string{id}})
	if err != nil {
		return fmt.Errorf("teaching: audit: %w", err)
	}
	return nil
}
