package promote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"

	"formation/artifact"
	"formation/audit"
	"formation/internal/testutil"
	"formation/reviewed"
	"formation/signing"
	"formation/store"
)

var errKilled = errors.New("killed")

// crashingStore lets the first n writes through and fails every later one,
// as a process killed between two writes leaves a store: each write is atomic
// on both backends (temp file and rename; one PUT), so what happened before
// the kill is whole and nothing after it happened.
type crashingStore struct {
	store.Store
	mu     sync.Mutex
	left   int
	writes []string
}

func (c *crashingStore) allow(what string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left == 0 {
		return errKilled
	}
	c.left--
	c.writes = append(c.writes, what)
	return nil
}

func (c *crashingStore) Put(ctx context.Context, data []byte) (string, error) {
	if err := c.allow("object " + store.DigestOf(data)[:12]); err != nil {
		return "", err
	}
	return c.Store.Put(ctx, data)
}

func (c *crashingStore) PutReader(ctx context.Context, r io.Reader) (string, int64, error) {
	if err := c.allow("streamed object"); err != nil {
		return "", 0, err
	}
	return c.Store.PutReader(ctx, r)
}

func (c *crashingStore) SetRef(ctx context.Context, name, old string, value []byte) (string, error) {
	if err := c.allow("ref " + name); err != nil {
		return "", err
	}
	return c.Store.SetRef(ctx, name, old, value)
}

// TestPromotionKilledAtEveryWrite kills a promotion after each of its writes
// in turn, on both backends: readers then see the state before it or the
// state after it, whole, never a mix; promoting again finishes it into the
// very state an uninterrupted promotion makes.
func TestPromotionKilledAtEveryWrite(t *testing.T) {
	backends := map[string]func(t *testing.T, n int) store.Store{
		"file": func(t *testing.T, _ int) store.Store {
			s, err := store.Open(context.Background(), "file://"+t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	var srv testutil.S3Server
	backends["s3"] = func(t *testing.T, n int) store.Store {
		s, err := store.Open(context.Background(), fmt.Sprintf("s3://%s/crash-%s-%d", srv.Bucket, t.Name(), n))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, name := range []string{"file", "s3"} {
		t.Run(name, func(t *testing.T) {
			if name == "s3" {
				srv = testutil.StartS3(t)
				srv.SetEnv(t)
			}
			open := backends[name]
			clean := crashRound(t, open(t, -1), -1)
			if len(clean.writes) < 4 {
				t.Fatalf("a promotion made only %d writes: %v", len(clean.writes), clean.writes)
			}
			t.Logf("an uninterrupted promotion makes %d writes: %v", len(clean.writes), clean.writes)
			for n := 0; n < len(clean.writes); n++ {
				got := crashRound(t, open(t, n), n)
				if got.final != clean.final {
					t.Fatalf("killed after %d writes (%v), then finished: state %s, an uninterrupted promotion makes %s",
						n, got.writes, got.final, clean.final)
				}
			}
		})
	}
}

type round struct {
	writes []string // the writes the promotion made before it was killed
	final  string   // the state head once the promotion finished
}

// crashRound promotes course A, then promotes course B through a store
// killed after n writes (n < 0: never), checks what readers see, and
// finishes the promotion.
func crashRound(t *testing.T, s store.Store, n int) round {
	t.Helper()
	ctx := context.Background()
	w := &world{t: t, ctx: ctx, s: s, key: fixedKey(t, 1)}
	w.p = &Promoter{Store: s, Audit: &audit.Writer{Store: s, Now: tickingClock(), CodeVersion: "test"}}
	_, aObj := w.report(microCourse())
	if _, err := w.promote(w.request(aObj)); err != nil {
		t.Fatal(err)
	}
	before := w.state()
	b := course{id: "course.b.v1", subject: "subject.b", ratified: true,
		vts: vtsOf("subject.b", nil, []artifact.RelationCandidate{rel("lens", "bends", "light"), rel("wisdom", "is", "judgment")}, nil)}
	_, bObj := w.report(b)

	cs := &crashingStore{Store: s, left: n}
	killed := &Promoter{Store: cs, Audit: &audit.Writer{Store: cs, Now: tickingClock(), CodeVersion: "test"}}
	_, err := killed.Promote(ctx, w.request(bObj))
	if n < 0 && err != nil {
		t.Fatal(err)
	}
	if n >= 0 && !errors.Is(err, errKilled) {
		t.Fatalf("killed after %d writes: %v", n, err)
	}
	snap := w.state()
	switch snap.Head {
	case before.Head:
	default:
		if _, ok := snap.Envelope(b.id); !ok || snap.State.Previous != before.Head {
			t.Fatalf("killed after %d writes %v: a state that is neither the old one nor the new one: %+v", n, cs.writes, snap.State)
		}
	}
	wholeState(t, w, snap)
	if _, err := w.promote(w.request(bObj)); err != nil {
		t.Fatalf("finishing after a kill at write %d: %v", n, err)
	}
	final := w.state()
	wholeState(t, w, final)
	return round{writes: cs.writes, final: final.Head.String()}
}

// wholeState checks that a state is consistent: the index, the knowledge's
// courses and the envelopes name the same courses, and each envelope is
// stored and verifies for its index entry.
func wholeState(t *testing.T, w *world, snap reviewed.Snapshot) {
	t.Helper()
	var idx, known, signed []string
	for _, e := range snap.Index.Entries {
		idx = append(idx, e.CourseID)
		env, ok := snap.Envelope(e.CourseID)
		if !ok {
			t.Fatalf("course %s in the index without an envelope", e.CourseID)
		}
		raw, err := w.s.Get(w.ctx, env.String())
		if err != nil {
			t.Fatalf("envelope of %s: %v", e.CourseID, err)
		}
		de, _ := signing.DecodeEnvelope(raw)
		st, err := reviewed.OpenPromotion(de, w.key.Trusted())
		if err != nil || st.Predicate.ReportSHA256 != e.ReportSHA256 {
			t.Fatalf("envelope of %s does not match its index entry: %v", e.CourseID, err)
		}
	}
	for _, c := range snap.Knowledge.Courses {
		known = append(known, c.CourseID)
	}
	for c := range snap.State.Promotions {
		signed = append(signed, c)
	}
	slices.Sort(signed)
	if !slices.Equal(idx, known) || !slices.Equal(idx, signed) {
		t.Fatalf("a mixed state: index %v, knowledge %v, envelopes %v", idx, known, signed)
	}
}
