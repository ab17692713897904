package queue_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"formation/audit"
	"formation/internal/testutil"
	"formation/runtime/epistemic"
	"formation/runtime/knowledge"
	"formation/store"
	"formation/teaching"
	"formation/teaching/queue"
)

const trace = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// backends runs fn on a file store and on the real S3 server.
func backends(t *testing.T, fn func(t *testing.T, s store.Store)) {
	t.Run("file", func(t *testing.T) {
		s, err := store.Open(context.Background(), "file://"+t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		fn(t, s)
	})
	t.Run("s3", func(t *testing.T) {
		srv := testutil.StartS3(t)
		srv.SetEnv(t)
		s, err := store.Open(context.Background(), "s3://"+srv.Bucket+"/q")
		if err != nil {
			t.Fatal(err)
		}
		fn(t, s)
	})
}

func proposal(i int) teaching.Proposal {
	tails := []string{"refraction", "heat", "colour", "shadow"}
	return teaching.NewRelation(teaching.Triple{Head: "lens", Relation: "causes", Tail: tails[i]}, false,
		"No, a lens causes "+tails[i]+".", trace, "session-1", i)
}

// newQueue's audit clock starts at t0 and moves a nanosecond a batch: the
// records keep t0's second, and audit.List can order the batches (batches
// of one instant have no order but their digests').
func newQueue(s store.Store) queue.Queue {
	var ticks atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(ticks.Add(1))) }
	return queue.Queue{Store: s, Audit: &audit.Writer{Store: s, Now: now, CodeVersion: "test"}}
}

func decide(t *testing.T, q queue.Queue, id string, accept bool, reason teaching.Reason) (queue.Entry, error) {
	t.Helper()
	e, err := q.Get(context.Background(), id)
	if err != nil {
		return queue.Entry{}, err
	}
	k, _ := knowledge.NewKnowledge(nil, nil)
	rev := teaching.Reviewer{ID: "curator", Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))}
	d, err := teaching.Decide(e.Record, id, accept, reason, teaching.Judge(e.Record, k), rev, t0)
	if err != nil {
		return queue.Entry{}, err
	}
	return q.Decide(context.Background(), id, d)
}

func refsOutside(t *testing.T, s store.Store) []string {
	t.Helper()
	all, err := s.ListRefs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range all {
		if !strings.HasPrefix(n, queue.Prefix) && !strings.HasPrefix(n, "audit/") {
			out = append(out, n)
		}
	}
	return out
}

func teachingReason(err error) string {
	var e *teaching.Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// Recording is create-only and idempotent; a decision is a new record the
// ref moves to once; nothing but proposals/ and audit/ refs is written.
func TestRecordDecide(t *testing.T) {
	backends(t, func(t *testing.T, s store.Store) {
		ctx := context.Background()
		q := newQueue(s)
		id, created, err := q.Record(ctx, proposal(0))
		if err != nil || !created {
			t.Fatalf("record: %v created=%v", err, created)
		}
		if want, _ := proposal(0).Digest(); id != want {
			t.Fatalf("id %s is not the proposal's digest %s", id, want)
		}
		if again, created, err := q.Record(ctx, proposal(0)); err != nil || created || again != id {
			t.Fatalf("recording again: %s %v %v", again, created, err)
		}
		before, _ := s.Get(ctx, id)
		e, err := decide(t, q, id, true, teaching.Coheres)
		if err != nil {
			t.Fatal(err)
		}
		if e.Head == id || e.Record.EpistemicStatus != epistemic.Coherent {
			t.Fatalf("decided entry %+v", e)
		}
		after, _ := s.Get(ctx, id)
		if !bytes.Equal(before, after) {
			t.Fatal("the proposal object changed")
		}
		got, err := q.Get(ctx, id)
		if err != nil || got.Head != e.Head || got.Record.Decision.Verdict != teaching.Accepted {
			t.Fatalf("get after decide: %+v %v", got, err)
		}
		if _, err := decide(t, q, id, false, teaching.NotAClaim); teachingReason(err) != teaching.ReasonAlreadyDecided {
			t.Fatalf("second decision: %v", err)
		}
		if out := refsOutside(t, s); len(out) != 0 {
			t.Fatalf("the queue wrote refs outside proposals/ and audit/: %v", out)
		}
		recs, err := audit.List(ctx, s, audit.Filter{Subject: queue.AuditSubject})
		if err != nil || len(recs) != 2 || recs[0].ReasonCode != "proposal_recorded" || recs[1].ReasonCode != "proposal_accepted" {
			t.Fatalf("audit records: %+v %v", recs, err)
		}
	})
}

// Of two curators deciding one proposal at once, exactly one wins.
func TestDecideRace(t *testing.T) {
	backends(t, func(t *testing.T, s store.Store) {
		q := newQueue(s)
		id, _, err := q.Record(context.Background(), proposal(1))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				reason := []teaching.Reason{teaching.NotAClaim, teaching.Duplicate}[i%2]
				_, errs[i] = decide(t, q, id, false, reason)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case teachingReason(err) != teaching.ReasonAlreadyDecided:
				t.Fatalf("unexpected: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d decisions won, want 1", won)
		}
	})
}

// Prune drops the words of proposals decided before the cutoff, keeps
// their id and decision, and leaves undecided proposals whole.
func TestPrune(t *testing.T) {
	backends(t, func(t *testing.T, s store.Store) {
		ctx := context.Background()
		q := newQueue(s)
		var ids []string
		for i := range 3 {
			id, _, err := q.Record(ctx, proposal(i))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if _, err := decide(t, q, ids[0], true, teaching.Coheres); err != nil {
			t.Fatal(err)
		}
		if _, err := decide(t, q, ids[1], false, teaching.NotAClaim); err != nil {
			t.Fatal(err)
		}
		if got, err := q.Prune(ctx, t0, t0.Add(time.Hour)); err != nil || len(got) != 0 {
			t.Fatalf("a cutoff at the decision time pruned %v (%v)", got, err)
		}
		got, err := q.Prune(ctx, t0.Add(time.Minute), t0.Add(time.Hour))
		if err != nil || len(got) != 2 {
			t.Fatalf("pruned %v, %v", got, err)
		}
		all, _ := q.List(ctx)
		for _, e := range all {
			decided := e.ID != ids[2]
			if decided && (e.Record.Words != "" || e.Record.Decision == nil || e.Record.Proposal != e.ID) {
				t.Fatalf("pruned record %+v", e.Record)
			}
			if !decided && e.Record.Words == "" {
				t.Fatal("an undecided proposal lost its words")
			}
		}
		acc, err := q.Accepted(ctx)
		if err != nil || len(acc) != 1 || acc[0].ID != ids[0] || acc[0].Decided.Words != "" {
			t.Fatalf("accepted after prune: %+v %v", acc, err)
		}
	})
}

// Accepted lists only accepted proposals, each with its own bytes; a
// decision whose signature does not verify stops the listing (77).
func TestAcceptedVerifies(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	q := newQueue(s)
	var ids []string
	for i := range 3 {
		id, _, _ := q.Record(ctx, proposal(i))
		ids = append(ids, id)
	}
	decide(t, q, ids[0], true, teaching.Coheres)
	decide(t, q, ids[1], false, teaching.Duplicate)
	acc, err := q.Accepted(ctx)
	if err != nil || len(acc) != 1 || acc[0].ID != ids[0] || store.DigestOf(acc[0].Raw) != ids[0] {
		t.Fatalf("accepted: %+v %v", acc, err)
	}
	// A hand-made record that says "accepted" with someone else's statement.
	e, _ := q.Get(ctx, ids[2])
	forged := e.Record.WithStatus(epistemic.Coherent)
	forged.Proposal = ids[2]
	good, _ := q.Get(ctx, ids[0])
	forged.Decision = good.Record.Decision
	raw, _ := forged.Canonical()
	head, _ := s.Put(ctx, raw)
	if err := store.SetRefValue(ctx, s, queue.Ref(ids[2]), []byte(head)); err != nil {
		t.Fatal(err)
	}
	_, err = q.Accepted(ctx)
	var te *teaching.Error
	if !errors.As(err, &te) || te.Code != 77 {
		t.Fatalf("a forged decision was listed: %v", err)
	}
}

func TestGetRefusals(t *testing.T) {
	s, _ := store.Open(context.Background(), "file://"+t.TempDir())
	q := newQueue(s)
	for id, want := range map[string]int{"nope": 2, strings.Repeat("e", 64): 66} {
		_, err := q.Get(context.Background(), id)
		var te *teaching.Error
		if !errors.As(err, &te) || te.Code != want {
			t.Errorf("Get(%q): %v, want exit %d", id, err, want)
		}
	}
}
