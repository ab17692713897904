package promote

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"formation/artifact"
	"formation/audit"
	"formation/reviewed"
	"formation/signing"
	"formation/store"
)

// world is a file store with an audit writer and a trusted curator key.
type world struct {
	t   *testing.T
	ctx context.Context
	s   store.Store
	dir string
	p   *Promoter
	key signing.SigningKey
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &audit.Writer{Store: s, Now: tickingClock(), CodeVersion: "test"}
	return &world{t: t, ctx: context.Background(), s: s, dir: dir, p: &Promoter{Store: s, Audit: w}, key: fixedKey(t, 1)}
}

// tickingClock is an injected clock that moves one second per reading, so
// that audit batches list in the order they were written.
func tickingClock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

// fixedKey is a deterministic curator key.
func fixedKey(t *testing.T, b byte) signing.SigningKey {
	t.Helper()
	k, err := signing.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{b}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (w *world) put(v any) string {
	w.t.Helper()
	var raw []byte
	switch x := v.(type) {
	case []byte:
		raw = x
	default:
		b, err := artifact.Encode(v)
		if err != nil {
			w.t.Fatal(err)
		}
		raw = b
	}
	d, err := w.s.Put(w.ctx, raw)
	if err != nil {
		w.t.Fatal(err)
	}
	return d
}

var src = artifact.SourceRef{SourceSHA: strings.Repeat("1", 64), Span: "example span", Adapter: "wikipedia", RetrievedAt: "2026-05-16T00:00:00Z"}

func concept(term string) artifact.ConceptCandidate {
	return artifact.ConceptCandidate{CanonicalTerm: term, Definition: "definition of " + term,
		Sources: []artifact.SourceRef{src}, State: artifact.StateValidated}
}

func rel(h, r, t string) artifact.RelationCandidate {
	return artifact.RelationCandidate{Head: h, Relation: r, Tail: t, Sources: []artifact.SourceRef{src}, State: artifact.StateValidated}
}

func vtsOf(subject string, concepts []artifact.ConceptCandidate, relations, counters []artifact.RelationCandidate) artifact.ValidatedTripleSet {
	return artifact.ValidatedTripleSet{SubjectID: subject, Concepts: concepts, Relations: relations, Counters: counters,
		OrderingHints: []artifact.OrderingHint{}, Quarantined: []artifact.RelationCandidate{}, SchemaVersion: artifact.SchemaVersion}
}

func microVTS() artifact.ValidatedTripleSet {
	return vtsOf("subject.micro",
		[]artifact.ConceptCandidate{concept("wisdom"), concept("judgment"), concept("experience")},
		[]artifact.RelationCandidate{rel("wisdom", "is", "judgment"), rel("judgment", "follows", "experience"), rel("experience", "grounds", "wisdom")},
		[]artifact.RelationCandidate{rel("wisdom", "is", "folly")})
}

// courseYAML is the part of a composed course promote reads.
func courseYAML(courseID, subject string, requires ...string) []byte {
	var b strings.Builder
	b.WriteString("course_id: " + courseID + "\nparadigm: five_phase_versor_formation\nsubject:\n")
	if len(requires) == 0 {
		b.WriteString("  requires_courses: []\n")
	} else {
		b.WriteString("  requires_courses:\n")
		for _, r := range requires {
			b.WriteString("  - " + r + "\n")
		}
	}
	b.WriteString("  subject_id: " + subject + "\n  title: Micro Course\n")
	return []byte(b.String())
}

// course stores a course YAML and its validated set (recorded under its
// validated_set_sha) and returns a sealed, ratified report for it.
type course struct {
	id, subject string
	vts         artifact.ValidatedTripleSet
	requires    []string
	issuedAt    string
	ratified    bool
}

func (w *world) report(c course) (artifact.MasteryReport, string) {
	w.t.Helper()
	if c.issuedAt == "" {
		c.issuedAt = "2026-05-16T00:00:00Z"
	}
	courseSHA := w.put(courseYAML(c.id, c.subject, c.requires...))
	vtsDigest := w.put(c.vts)
	vs, err := reviewed.RecordValidatedSet(w.ctx, w.s, vtsDigest)
	if err != nil {
		w.t.Fatal(err)
	}
	r := artifact.MasteryReport{SchemaVersion: artifact.SchemaVersion, CourseID: c.id, SourceBundleSHA: strings.Repeat("0", 64),
		ValidatedSetSHA: vs, CourseSHA256: courseSHA, PlanSHA256: strings.Repeat("3", 64),
		Gates:       []artifact.GateMeasurement{{Name: "G1_replay_determinism", Passed: c.ratified, Measurement: "1.0", Threshold: "1.0"}},
		TraceHashes: []string{"t1"}, Ratified: c.ratified, IssuedAt: c.issuedAt, FailureReasons: []string{}}
	if !c.ratified {
		r.FailureReasons = []string{"nope"}
	}
	sealed, err := r.Sealed()
	if err != nil {
		w.t.Fatal(err)
	}
	return sealed, w.put(sealed)
}

func microCourse() course {
	return course{id: "course.subject.micro.definition.1.0.0", subject: "subject.micro", vts: microVTS(), ratified: true}
}

func (w *world) request(reportObject string) Request {
	return Request{Report: reportObject, Key: w.key, Trusted: w.key.Trusted()}
}

func (w *world) promote(req Request) (Result, error) { return w.p.Promote(w.ctx, req) }

// state reads the reviewed state as readers do.
func (w *world) state() reviewed.Snapshot {
	w.t.Helper()
	snap, err := reviewed.Load(w.ctx, w.s)
	if err != nil {
		w.t.Fatal(err)
	}
	return snap
}

// refs returns what the reviewed state names for a course: the knowledge,
// the index and the course's envelope ("" when absent).
func (w *world) refs(courseID string) [3]string {
	w.t.Helper()
	snap := w.state()
	env, _ := snap.Envelope(courseID)
	return [3]string{snap.State.Knowledge.String(), snap.State.Index.String(), env.String()}
}

func (w *world) audit() []audit.Record {
	w.t.Helper()
	recs, err := audit.List(w.ctx, w.s, audit.Filter{})
	if err != nil {
		w.t.Fatal(err)
	}
	return recs
}

func (w *world) reviewed() reviewed.Knowledge { return w.state().Knowledge }
