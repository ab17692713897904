package runtime

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"formation/canon"
	"formation/runtime/epistemic"
	"formation/runtime/knowledge"
	"formation/runtime/refusal"
	"formation/store"
	"formation/teaching"
	"formation/teaching/queue"
)

const srcLens = "1111111111111111111111111111111111111111111111111111111111111111"

// lensKnowledge: lens and light are defined; lens produces image, light
// causes heat and refraction; "mirror causes refraction" is false.
func lensKnowledge(t testing.TB) *knowledge.Knowledge {
	t.Helper()
	c := []knowledge.Citation{{SourceSHA: srcLens, Span: "Lenses."}}
	ok := epistemic.Coherent // as promote leaves reviewed records
	k, err := knowledge.NewKnowledge(
		[]knowledge.Concept{{Term: "lens", Definition: "a curved piece of glass", Sources: c, Status: ok},
			{Term: "light", Definition: "what we see by", Sources: c, Status: ok}},
		[]knowledge.Triple{{Head: "lens", Relation: "produces", Tail: "image", Sources: c, Status: ok},
			{Head: "light", Relation: "causes", Tail: "heat", Sources: c, Status: ok},
			{Head: "light", Relation: "causes", Tail: "refraction", Sources: c, Status: ok}},
		knowledge.Triple{Head: "mirror", Relation: "causes", Tail: "refraction", Sources: c, Status: epistemic.Falsified})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// teachingWorld is a runtime over lensKnowledge and a real proposal queue
// in a file store.
type teachingWorld struct {
	rt *Runtime
	k  *knowledge.Knowledge
	s  store.Store
	q  queue.Queue
}

func newTeachingWorld(t testing.TB) teachingWorld {
	t.Helper()
	s, err := store.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	k := lensKnowledge(t)
	return teachingWorld{rt: newFixture(t, k, nil).rt, k: k, s: s, q: queue.Queue{Store: s}}
}

// script is a conversation: seven statements the knowledge does not confirm
// (one of each shape a proposal takes), two it does, and questions that use
// what the conversation proposed.
var script = []string{
	"What is a lens?",                        // 0 answered from the knowledge
	"No, a lens causes refraction.",          // 1 proposal: relation, terms known
	"A lens produces an image.",              // 2 confirmed: no proposal
	"What does a lens cause?",                // 3 rests on proposal 1
	"Actually, a prism causes dispersion.",   // 4 proposal: relation, terms unknown
	"In fact, a lens does not produce heat.", // 5 proposal: counter-claim, ungrounded
	"A lens does not produce an image.",      // 6 proposal: counter-claim contradicting the knowledge
	"A mirror causes refraction.",            // 7 proposal: relation a counter-claim denies
	"A mirror is a polished surface.",        // 8 proposal: definition
	"Rather, a lens is a mirror.",            // 9 proposal: definition the knowledge contradicts
	"Light causes heat.",                     // 10 confirmed: no proposal
	"What is a mirror?",                      // 11 rests on proposal 8
	"Does a prism cause dispersion?",         // 12 rests on proposal 4 (a question: never a proposal)
}

var scriptProposals = map[int]teaching.Kind{1: teaching.Relation, 4: teaching.Relation, 5: teaching.CounterClaim,
	6: teaching.CounterClaim, 7: teaching.Relation, 8: teaching.Definition, 9: teaching.Definition}

func runScript(t *testing.T, w teachingWorld, session string) []ChatResponse {
	t.Helper()
	s := w.rt.NewTeachingSession(w.q, session)
	var out []ChatResponse
	for _, in := range script {
		out = append(out, turn(t, s, in))
	}
	return out
}

// A teaching session records exactly the statements the knowledge does not
// confirm, each as a proposal of the contract's shape, and answers later
// questions from them marked speculative.
func TestTeachingSessionRecordsProposals(t *testing.T) {
	w := newTeachingWorld(t)
	rs := runScript(t, w, "")
	for i, r := range rs {
		kind, want := scriptProposals[i]
		if want != (r.TeachingProposal != "") || want != (r.Kind == KindProposal) {
			t.Fatalf("turn %d %q: kind %s, proposal %q (want a proposal: %v)\n%s", i, script[i], r.Kind, r.TeachingProposal, want, r.Surface)
		}
		if !want {
			continue
		}
		e, err := w.q.Get(context.Background(), r.TeachingProposal)
		if err != nil {
			t.Fatal(err)
		}
		p := e.Record
		if p.Kind != kind || p.Words != script[i] || p.TraceHash != r.TraceHash || p.SessionID != rs[0].TraceHash ||
			p.Turn != i || p.EpistemicStatus != epistemic.Speculative || !strings.Contains(r.Surface, "teaching proposal") || r.Refused() {
			t.Fatalf("turn %d: proposal %+v for response %+v", i, p, r)
		}
	}
	if got := mustList(t, w.q); len(got) != len(scriptProposals) {
		t.Fatalf("%d proposals recorded, want %d", len(got), len(scriptProposals))
	}
	for i, want := range map[int]string{3: "refraction", 11: "polished surface", 12: "dispersion"} {
		r := rs[i]
		if !strings.HasPrefix(r.Surface, SpeculativeMarker) || !strings.Contains(r.Surface, want) ||
			r.TeachingEpistemicStatus != "speculative" || !cites(r, rs[map[int]int{3: 1, 11: 8, 12: 4}[i]].TeachingProposal) {
			t.Fatalf("turn %d %q does not rest on its lesson, marked speculative: %+v", i, script[i], r)
		}
	}
	// What the knowledge and reviewed answers say is untouched.
	if rs[3].Surface != SpeculativeMarker+"Lens causes refraction." || rs[2].Surface != "Yes: lens produces image." {
		t.Fatalf("surfaces: %q / %q", rs[3].Surface, rs[2].Surface)
	}
	if rs[6].EpistemicStatus != epistemic.Contested || rs[9].EpistemicStatus != epistemic.Contested {
		t.Fatal("a proposal that contradicts the knowledge is not contested in the session")
	}
}

func mustList(t *testing.T, q queue.Queue) []queue.Entry {
	t.Helper()
	all, err := q.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func cites(r ChatResponse, sha string) bool {
	for _, c := range r.Citations {
		if c.SourceSHA == sha {
			return true
		}
	}
	return false
}

// The shared knowledge index, the manifold and any other session never see
// a proposal; a plain session (ask, run, eval) records nothing, and a turn
// that neither records nor uses a proposal hashes exactly as in a plain
// session.
func TestTeachingTouchesNothingShared(t *testing.T) {
	w := newTeachingWorld(t)
	before, _ := canon.Marshal(w.k.Triples())
	defsBefore := fmt.Sprint(w.k.Definitions("lens"), w.k.Definitions("mirror"), w.k.Stats())
	manifold, frame := w.rt.ManifoldHash(), w.rt.cfg.Frame
	taught := runScript(t, w, "")
	after, _ := canon.Marshal(w.k.Triples())
	if !bytes.Equal(before, after) || fmt.Sprint(w.k.Definitions("lens"), w.k.Definitions("mirror"), w.k.Stats()) != defsBefore ||
		w.rt.cfg.Manifold.Hash() != manifold || w.rt.cfg.Frame != frame {
		t.Fatal("a teaching session changed the shared knowledge, the manifold or the frame")
	}
	plain := w.rt.NewSession()
	for i, in := range script {
		r := turn(t, plain, in)
		if r.TeachingProposal != "" || r.Kind == KindProposal {
			t.Fatalf("a plain session recorded turn %d", i)
		}
		_, captured := scriptProposals[i]
		if !captured && taught[i].TeachingEpistemicStatus == "" && r.TraceHash != taught[i].TraceHash {
			t.Fatalf("turn %d %q hashes differently in a teaching session", i, in)
		}
	}
	if got := mustList(t, w.q); len(got) != len(scriptProposals) {
		t.Fatalf("the plain session changed the proposals: %d", len(got))
	}
	for in, taughtWord := range map[string]string{"What does a lens cause?": "refraction", "What is a mirror?": "polished"} {
		if r := turn(t, plain, in); strings.Contains(r.Surface, taughtWord) {
			t.Fatalf("another session sees a proposal: %q", r.Surface)
		}
	}
}

// Replaying a teaching session gives the same trace hashes and proposal
// ids and records nothing new; after a curator decides a proposal, the
// replay's hash of the turn that rested on it changes, and only that.
func TestTeachingReplay(t *testing.T) {
	w := newTeachingWorld(t)
	first := runScript(t, w, "")
	refs, _ := w.s.ListRefs(context.Background(), "")
	again := runScript(t, w, "")
	refsAgain, _ := w.s.ListRefs(context.Background(), "")
	for i := range first {
		if first[i].TraceHash != again[i].TraceHash || first[i].TeachingProposal != again[i].TeachingProposal {
			t.Fatalf("replayed turn %d differs", i)
		}
	}
	if strings.Join(refs, ",") != strings.Join(refsAgain, ",") {
		t.Fatal("the replay wrote refs")
	}
	decide(t, w, first[1].TeachingProposal, true, teaching.Coheres)
	reviewed := runScript(t, w, "")
	for i := range first {
		changed := first[i].TraceHash != reviewed[i].TraceHash
		if changed != (i == 3) {
			t.Fatalf("after review, turn %d %q changed=%v", i, script[i], changed)
		}
	}
	if reviewed[3].TeachingEpistemicStatus != "coherent" || reviewed[3].Surface != first[3].Surface {
		t.Fatalf("the replayed turn 3: %+v", reviewed[3])
	}
	// A proposal a curator falsified is no longer used.
	decide(t, w, first[4].TeachingProposal, false, teaching.Falsified)
	last := runScript(t, w, "")
	if r := last[12]; r.TeachingEpistemicStatus != "" || strings.Contains(r.Surface, "dispersion") && !r.Refused() {
		t.Fatalf("a falsified proposal was rested on: %+v", r)
	}
}

func decide(t *testing.T, w teachingWorld, id string, accept bool, reason teaching.Reason) {
	t.Helper()
	ctx := context.Background()
	e, err := w.q.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rev := teaching.Reviewer{ID: "curator", Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))}
	d, err := teaching.Decide(e.Record, id, accept, reason, teaching.Judge(e.Record, w.k), rev, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.q.Decide(ctx, id, d); err != nil {
		t.Fatal(err)
	}
}

// A given session id names the proposals; two sessions with different ids
// record different proposals for the same words.
func TestTeachingSessionID(t *testing.T) {
	w := newTeachingWorld(t)
	a := turn(t, w.rt.NewTeachingSession(w.q, "alice"), "A lens causes refraction.")
	b := turn(t, w.rt.NewTeachingSession(w.q, "bob"), "A lens causes refraction.")
	if a.TeachingProposal == b.TeachingProposal || a.TraceHash != b.TraceHash {
		t.Fatalf("ids %s %s, hashes %s %s", a.TeachingProposal, b.TeachingProposal, a.TraceHash, b.TraceHash)
	}
	e, _ := w.q.Get(context.Background(), a.TeachingProposal)
	if e.Record.SessionID != "alice" {
		t.Fatalf("session id %q", e.Record.SessionID)
	}
}

// A session records at most teaching.MaxPerSession proposals; the next
// statement is refused with a typed reason and recorded nowhere.
func TestTeachingSessionLimit(t *testing.T) {
	w := newTeachingWorld(t)
	s := w.rt.NewTeachingSession(w.q, "busy")
	for i := range teaching.MaxPerSession {
		if r := turn(t, s, fmt.Sprintf("A lens causes glare%d.", i)); r.TeachingProposal == "" {
			t.Fatalf("statement %d was not recorded: %s", i, r.Surface)
		}
	}
	r := turn(t, s, "A lens causes sparkle.")
	if r.RefusalReason != refusal.TeachingLimit || r.TeachingProposal != "" {
		t.Fatalf("statement past the limit: %+v", r)
	}
	if got := mustList(t, w.q); len(got) != teaching.MaxPerSession {
		t.Fatalf("%d proposals stored", len(got))
	}
}

// A proposal the store cannot take fails the turn loudly (*TeachingError)
// after the complete response and its event.
func TestTeachingStoreFailure(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	// Objects cannot be written where a file stands in for their folder.
	os.RemoveAll(filepath.Join(dir, "objects"))
	if err := os.WriteFile(filepath.Join(dir, "objects"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, lensKnowledge(t), nil)
	sess := f.rt.NewTeachingSession(queue.Queue{Store: s}, "s")
	r, err := sess.Turn(context.Background(), "A lens causes refraction.", nil)
	var te *TeachingError
	if !errors.As(err, &te) || r.TraceHash == "" || r.TeachingProposal != "" || len(f.events.Events()) != 1 {
		t.Fatalf("turn: %v, %+v", err, r)
	}
}
