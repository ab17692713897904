package reviewed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"formation/artifact"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/store"
)

// StateRef is the one ref of the reviewed state; only Commit and Migrate
// move it.
const StateRef = "knowledge/state"

// State is the object StateRef names: everything one promotion changed,
// chained to the state it replaced.
type State struct {
	SchemaVersion string                  `json:"schema_version"`
	Seq           int64                   `json:"seq"`
	Previous      ident.Digest            `json:"previous"`   // the prior state; "" for seq 0
	Knowledge     ident.Digest            `json:"knowledge"`  // the Knowledge object
	Index         ident.Digest            `json:"index"`      // the MasteredCoursesIndex object
	Promotions    map[string]ident.Digest `json:"promotions"` // course_id → its current promotion envelope
}

// Snapshot is one state as a reader sees it, its objects decoded.
type Snapshot struct {
	Head      ident.Digest // the state object; "" before the first promotion
	State     State
	Knowledge Knowledge
	Index     artifact.MasteredCoursesIndex
	// Legacy is set for a store written before the state object existed:
	// the snapshot was read from the old refs and is not stored yet.
	Legacy bool
	// pending are the objects a legacy snapshot needs stored before a state
	// may name it (its synthesised parts and the state itself).
	pending [][]byte
}

// Empty reports whether nothing was ever promoted.
func (s Snapshot) Empty() bool { return s.Head == "" }

// Envelope returns the digest of a course's current promotion envelope.
func (s Snapshot) Envelope(courseID string) (ident.Digest, bool) {
	d, ok := s.State.Promotions[courseID]
	return d, ok
}

// SubjectOf returns the subject a promoted course belongs to ("" if the
// course is not in the reviewed knowledge).
func (s Snapshot) SubjectOf(courseID string) string {
	for _, c := range s.Knowledge.Courses {
		if c.CourseID == courseID {
			return c.SubjectID
		}
	}
	return ""
}

// empty is the snapshot of a store that never saw a promotion.
func empty() Snapshot {
	return Snapshot{State: State{SchemaVersion: artifact.SchemaVersion, Seq: -1, Promotions: map[string]ident.Digest{}},
		Knowledge: EmptyKnowledge(), Index: EmptyIndex()}
}

// Load reads the reviewed state with one read of StateRef (or, on a store
// written before it existed, of the old refs; nothing is written). Every
// object is re-hashed and decoded strictly: a missing, corrupt or malformed
// one is an *Error with exit 65.
func Load(ctx context.Context, s store.Store) (Snapshot, error) {
	val, _, err := s.GetRef(ctx, StateRef)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return loadLegacy(ctx, s)
	case err != nil:
		return Snapshot{}, fmt.Errorf("reviewed: read %s: %w", StateRef, err)
	}
	return loadAt(ctx, s, string(val))
}

// loadAt reads the state named by a ref value and its objects.
func loadAt(ctx context.Context, s store.Store, refValue string) (Snapshot, error) {
	head, err := ident.ParseDigest(strings.TrimSpace(refValue))
	if err != nil {
		return Snapshot{}, refuse(exitcode.Rejected, ReasonUndecodableState, "ref %s: %v", StateRef, err)
	}
	st, err := ReadState(ctx, s, head)
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Head: head, State: st}
	if snap.Knowledge, err = getObject[Knowledge](ctx, s, st.Knowledge, "knowledge"); err != nil {
		return Snapshot{}, err
	}
	if snap.Index, err = getObject[artifact.MasteredCoursesIndex](ctx, s, st.Index, "mastered-courses index"); err != nil {
		return Snapshot{}, err
	}
	return snap, nil
}

// ReadState reads and checks one state object.
func ReadState(ctx context.Context, s store.Store, digest ident.Digest) (State, error) {
	st, err := getObject[State](ctx, s, digest, "state")
	if err != nil {
		return State{}, err
	}
	if err := st.check(); err != nil {
		return State{}, refuse(exitcode.Rejected, ReasonUndecodableState, "state %s: %v", digest, err)
	}
	return st, nil
}

// check validates a state's fields.
func (st State) check() error {
	switch {
	case st.SchemaVersion != artifact.SchemaVersion:
		return fmt.Errorf("schema_version %q, want %q", st.SchemaVersion, artifact.SchemaVersion)
	case st.Seq < 0:
		return fmt.Errorf("seq %d is negative", st.Seq)
	case (st.Seq == 0) != (st.Previous == ""):
		return fmt.Errorf("seq %d with previous %q: only seq 0 has no previous state", st.Seq, st.Previous)
	case st.Previous != "" && !ident.ValidDigest(string(st.Previous)):
		return fmt.Errorf("previous %q is not a digest", st.Previous)
	case !ident.ValidDigest(string(st.Knowledge)) || !ident.ValidDigest(string(st.Index)):
		return fmt.Errorf("knowledge %q / index %q: not digests", st.Knowledge, st.Index)
	case st.Promotions == nil:
		return errors.New("no promotions object")
	}
	for course, env := range st.Promotions {
		if ident.CheckID(course) != nil || !ident.ValidDigest(string(env)) {
			return fmt.Errorf("promotion %q → %q: not a course id and a digest", course, env)
		}
	}
	return nil
}

// getObject reads an object the state names and decodes it strictly.
func getObject[T any](ctx context.Context, s store.Store, digest ident.Digest, what string) (T, error) {
	var v T
	raw, err := s.Get(ctx, string(digest))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return v, refuse(exitcode.Rejected, ReasonDanglingState, "the %s object %s is not in the store", what, digest)
	case errors.Is(err, store.ErrCorrupt):
		return v, refuse(exitcode.Rejected, ReasonCorruptObject, "the %s object: %v", what, err)
	case err != nil:
		return v, fmt.Errorf("reviewed: read %s %s: %w", what, digest, err)
	}
	if v, err = artifact.Decode[T](raw); err != nil {
		return v, refuse(exitcode.Rejected, ReasonUndecodableState, "the %s object %s: %v", what, digest, err)
	}
	return v, nil
}

// Next is what a change makes of the current state.
type Next struct {
	Knowledge  Knowledge
	Index      artifact.MasteredCoursesIndex
	Promotions map[string]ident.Digest // course_id → envelope (already stored)
}

// Commit derives the next state from the current one and moves StateRef to
// it by one compare-and-swap; after a lost race derive runs again on the new
// current state. Every object the new state names is stored before the ref
// moves. derive may return store.ErrNoChange to leave the state as it is;
// Commit then returns the current snapshot and changed == false.
func Commit(ctx context.Context, s store.Store, derive func(cur Snapshot) (Next, error)) (snap Snapshot, changed bool, err error) {
	var cur, next Snapshot
	_, changed, err = store.UpdateRef(ctx, s, StateRef, func(old []byte, exists bool) ([]byte, error) {
		var err error
		if cur, err = snapshotOf(ctx, s, old, exists); err != nil {
			return nil, err
		}
		n, err := derive(cur)
		if err != nil {
			return nil, err
		}
		if next, err = store1(ctx, s, cur, n); err != nil {
			return nil, err
		}
		return []byte(next.Head.String()), nil
	})
	if err != nil {
		return Snapshot{}, false, err
	}
	if !changed {
		return cur, false, nil
	}
	return next, true, nil
}

// snapshotOf reads the snapshot a ref value names, or the legacy/empty one.
func snapshotOf(ctx context.Context, s store.Store, old []byte, exists bool) (Snapshot, error) {
	if exists {
		return loadAt(ctx, s, string(old))
	}
	return loadLegacy(ctx, s)
}

// store1 stores the objects of the state after cur and that state itself.
func store1(ctx context.Context, s store.Store, cur Snapshot, n Next) (Snapshot, error) {
	if err := putAll(ctx, s, cur.pending); err != nil {
		return Snapshot{}, err
	}
	for course, env := range n.Promotions {
		if ok, err := s.Has(ctx, string(env)); err != nil {
			return Snapshot{}, fmt.Errorf("reviewed: envelope of %s: %w", course, err)
		} else if !ok {
			return Snapshot{}, fmt.Errorf("reviewed: the envelope %s of %s must be stored before the state names it", env, course)
		}
	}
	st := State{SchemaVersion: artifact.SchemaVersion, Seq: cur.State.Seq + 1, Previous: cur.Head,
		Promotions: maps.Clone(n.Promotions)}
	if st.Promotions == nil {
		st.Promotions = map[string]ident.Digest{}
	}
	var err error
	if st.Knowledge, err = putArtifact(ctx, s, n.Knowledge); err != nil {
		return Snapshot{}, err
	}
	if st.Index, err = putArtifact(ctx, s, n.Index); err != nil {
		return Snapshot{}, err
	}
	head, err := putArtifact(ctx, s, st)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Head: head, State: st, Knowledge: n.Knowledge, Index: n.Index}, nil
}

func putArtifact(ctx context.Context, s store.Store, v any) (ident.Digest, error) {
	body, err := artifact.Encode(v)
	if err != nil {
		return "", fmt.Errorf("reviewed: encode: %w", err)
	}
	d, err := s.Put(ctx, body)
	if err != nil {
		return "", fmt.Errorf("reviewed: store: %w", err)
	}
	return ident.Digest(d), nil
}

func putAll(ctx context.Context, s store.Store, bodies [][]byte) error {
	for _, b := range bodies {
		if _, err := s.Put(ctx, b); err != nil {
			return fmt.Errorf("reviewed: store: %w", err)
		}
	}
	return nil
}
