package mining

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"
	"time"

	"formation/internal/exitcode"
	"formation/runtime/knowledge"
	"formation/store"
	"formation/teaching"
	"formation/teaching/queue"
)

const proposalTrace = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

// proposalQueue is a real queue over a file store holding the given
// relation proposals; accept[i] says whether the curator accepts the i-th.
func proposalQueue(t *testing.T, triples [][3]string, accept []bool) (queue.Queue, []string) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	q := queue.Queue{Store: s}
	k, _ := knowledge.NewKnowledge(nil, nil)
	rev := teaching.Reviewer{ID: "curator", Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32))}
	var ids []string
	for i, tr := range triples {
		p := teaching.NewRelation(teaching.Triple{Head: tr[0], Relation: tr[1], Tail: tr[2]}, false, "No, "+strings.Join(tr[:], " ")+".", proposalTrace, "s", i)
		id, _, err := q.Record(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if accept[i] {
			d, err := teaching.Decide(p, id, true, teaching.Coheres, teaching.Judge(p, k), rev, time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := q.Decide(ctx, id, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	return q, ids
}

var proposalsSource = src("id", "taught", "adapter", "proposals", "citation", "Taught")

// Each accepted proposal is one entry: its canonical bytes are the source
// (source_sha is its id) and its text the sentence that states it.
func TestMineProposals(t *testing.T) {
	q, ids := proposalQueue(t, [][3]string{{"lens", "causes", "refraction"}, {"lens", "causes", "heat"}, {"prism", "produces", "spectrum"}},
		[]bool{true, false, true})
	subj := subjectDir(t, proposalsSource, nil)
	w := newMemStore()
	res, err := Mine(context.Background(), subj, w, Options{Proposals: q})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bundle.Entries) != 2 {
		t.Fatalf("entries %+v", res.Bundle.Entries)
	}
	texts := map[string]string{ids[0]: "lens causes refraction.", ids[2]: "prism produces spectrum."}
	for _, e := range res.Bundle.Entries {
		want, ok := texts[e.SourceSHA]
		if !ok || e.Adapter != "proposals" || e.URL != "proposal:"+e.SourceSHA || string(w.get(t, e.TextSHA)) != want ||
			sha(string(w.get(t, e.SourceSHA))) != e.SourceSHA || !strings.HasPrefix(e.Citation, "Taught: teaching proposal ") ||
			e.RetrievedAt != "2026-05-16T00:00:00Z" {
			t.Fatalf("entry %+v", e)
		}
	}
	again, err := Mine(context.Background(), subj, newMemStore(), Options{Proposals: q, Jobs: 1})
	if err != nil || again.Digest != res.Digest {
		t.Fatalf("mining the same proposals again: %v", err)
	}
}

// A proposals source that finds no accepted proposal is refused, never an
// empty bundle.
func TestMineProposalsNoneAccepted(t *testing.T) {
	none, _ := proposalQueue(t, [][3]string{{"lens", "causes", "heat"}}, []bool{false})
	_, err := Mine(context.Background(), subjectDir(t, proposalsSource, nil), newMemStore(), Options{Proposals: none})
	var re *RefusedError
	if !errors.As(err, &re) || len(re.Refusals) != 1 || re.Refusals[0].Code != CodeNoProposals {
		t.Fatalf("want refusal %s, got %v", CodeNoProposals, err)
	}
}

// A decision whose signature does not verify halts the mine with exit 77:
// a proposal is never mined on an unchecked decision.
func TestMineProposalsVerifiesDecisions(t *testing.T) {
	q, ids := proposalQueue(t, [][3]string{{"lens", "causes", "refraction"}, {"lens", "causes", "heat"}}, []bool{true, false})
	ctx := context.Background()
	good, _ := q.Get(ctx, ids[0])
	other, _ := q.Get(ctx, ids[1])
	forged := other.Record.WithStatus(good.Record.EpistemicStatus)
	forged.Proposal, forged.Decision = ids[1], good.Record.Decision
	raw, _ := forged.Canonical()
	head, _ := q.Store.Put(ctx, raw)
	if err := store.SetRefValue(ctx, q.Store, queue.Ref(ids[1]), []byte(head)); err != nil {
		t.Fatal(err)
	}
	_, err := Mine(ctx, subjectDir(t, proposalsSource, nil), newMemStore(), Options{Proposals: q})
	if exitcode.Of(err) != exitcode.SealInvalid {
		t.Fatalf("a forged decision: exit %d (%v)", exitcode.Of(err), err)
	}
}
