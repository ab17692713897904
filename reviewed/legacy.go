package reviewed

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"formation/artifact"
	"formation/ident"
	"formation/internal/exitcode"
	"formation/store"
)

// The refs of stores written before the state object. They are read (by
// loadLegacy, to build state 0) and never written.
const (
	legacyKnowledgeRef     = "knowledge/reviewed"
	legacyIndexRef         = "index/mastered-courses"
	legacyPromotionsPrefix = "index/promotions/"
)

// LegacyRefs names the refs of a pre-state store holding one course's
// promotion: the knowledge, the index and that course's envelope. Tests of
// migration use it; nothing writes these refs.
func LegacyRefs(courseID string) []string {
	return []string{legacyKnowledgeRef, legacyIndexRef, legacyPromotionsPrefix + courseID}
}

// loadLegacy reads a store that has no StateRef: state 0 made of the old
// refs when any exists (Legacy set, nothing written), else the empty state.
func loadLegacy(ctx context.Context, s store.Store) (Snapshot, error) {
	snap := empty()
	kd, kfound, err := legacyDigest(ctx, s, legacyKnowledgeRef)
	if err != nil {
		return Snapshot{}, err
	}
	id, ifound, err := legacyDigest(ctx, s, legacyIndexRef)
	if err != nil {
		return Snapshot{}, err
	}
	promotions, err := legacyPromotions(ctx, s)
	if err != nil {
		return Snapshot{}, err
	}
	if !kfound && !ifound && len(promotions) == 0 {
		return snap, nil
	}
	st := State{SchemaVersion: artifact.SchemaVersion, Seq: 0, Promotions: promotions}
	snap = Snapshot{Legacy: true, Knowledge: EmptyKnowledge(), Index: EmptyIndex()}
	if st.Knowledge, err = legacyPart(ctx, s, kd, kfound, "knowledge", &snap.Knowledge, &snap.pending); err != nil {
		return Snapshot{}, err
	}
	if st.Index, err = legacyPart(ctx, s, id, ifound, "mastered-courses index", &snap.Index, &snap.pending); err != nil {
		return Snapshot{}, err
	}
	body, err := artifact.Encode(st)
	if err != nil {
		return Snapshot{}, fmt.Errorf("reviewed: encode state 0: %w", err)
	}
	snap.State, snap.Head = st, ident.Digest(store.DigestOf(body))
	snap.pending = append(snap.pending, body)
	return snap, nil
}

// legacyPart reads one object an old ref names into *v, or (when the ref is
// absent, an interrupted old promotion) keeps the empty value in *v and
// queues its bytes to be stored. It returns the part's digest.
func legacyPart[T any](ctx context.Context, s store.Store, digest ident.Digest, found bool, what string, v *T, pending *[][]byte) (ident.Digest, error) {
	if found {
		got, err := getObject[T](ctx, s, digest, what)
		*v = got
		return digest, err
	}
	body, err := artifact.Encode(*v)
	if err != nil {
		return "", fmt.Errorf("reviewed: encode empty %s: %w", what, err)
	}
	*pending = append(*pending, body)
	return ident.Digest(store.DigestOf(body)), nil
}

// legacyDigest reads an old ref holding a digest.
func legacyDigest(ctx context.Context, s store.Store, ref string) (ident.Digest, bool, error) {
	val, _, err := s.GetRef(ctx, ref)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("reviewed: read %s: %w", ref, err)
	}
	d, err := ident.ParseDigest(strings.TrimSpace(string(val)))
	if err != nil {
		return "", false, refuse(exitcode.Rejected, ReasonUndecodableState, "ref %s: %v", ref, err)
	}
	return d, true, nil
}

// legacyPromotions reads every index/promotions/<course_id> ref.
func legacyPromotions(ctx context.Context, s store.Store) (map[string]ident.Digest, error) {
	names, err := s.ListRefs(ctx, legacyPromotionsPrefix)
	if err != nil {
		return nil, fmt.Errorf("reviewed: list %s: %w", legacyPromotionsPrefix, err)
	}
	out := map[string]ident.Digest{}
	for _, name := range names {
		d, found, err := legacyDigest(ctx, s, name)
		if err != nil {
			return nil, err
		}
		if found {
			out[strings.TrimPrefix(name, legacyPromotionsPrefix)] = d
		}
	}
	return out, nil
}

// Migrate writes state 0 of a store written before the state object (from
// its old refs) and points StateRef at it. It does nothing on a store that
// has a state or never saw a promotion, and reports whether it wrote.
func Migrate(ctx context.Context, s store.Store) (bool, error) {
	if _, _, err := s.GetRef(ctx, StateRef); err == nil {
		return false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return false, fmt.Errorf("reviewed: read %s: %w", StateRef, err)
	}
	snap, err := loadLegacy(ctx, s)
	if err != nil || !snap.Legacy {
		return false, err
	}
	if err := putAll(ctx, s, snap.pending); err != nil {
		return false, err
	}
	return store.CreateRef(ctx, s, StateRef, []byte(snap.Head.String()))
}
