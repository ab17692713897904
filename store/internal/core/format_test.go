package core

import (
	"context"
	"testing"
)

// racingMarker is a store that another writer creates between this
// process's first marker read and its emptiness check: the marker is
// missing on the first read, and by the time the store is listed the other
// writer has written the marker and its first object.
type racingMarker struct {
	reads   int
	created []byte
}

func (m *racingMarker) ReadMarker(context.Context) ([]byte, error) {
	m.reads++
	if m.reads == 1 || m.created == nil {
		return nil, Errorf("read", "format", ErrNotFound, "no marker")
	}
	return m.created, nil
}

func (m *racingMarker) CreateMarker(_ context.Context, data []byte) error {
	if m.created != nil {
		return Errorf("write", "format", ErrPrecondition, "exists")
	}
	m.created = data
	return nil
}

func (m *racingMarker) Empty(context.Context) (bool, error) {
	// The other writer wins the race here: marker first, then an object.
	if m.created == nil {
		m.created = MarkerBytes(CurrentFormat)
	}
	return false, nil
}

// A store created by another process while this one looked is read in the
// format that process wrote, not taken for an old store without a marker
// (which read compressed objects as raw bytes: a false corruption report).
func TestResolveFormatSeesAStoreCreatedMeanwhile(t *testing.T) {
	m := &racingMarker{}
	v, err := ResolveFormat(context.Background(), "s", m)
	if err != nil || v != CurrentFormat {
		t.Fatalf("ResolveFormat = %d, %v; want %d", v, err, CurrentFormat)
	}
}

// legacyMarker is a store of format 1: objects, and no marker ever.
type legacyMarker struct{ created bool }

func (legacyMarker) ReadMarker(context.Context) ([]byte, error) {
	return nil, Errorf("read", "format", ErrNotFound, "no marker")
}
func (m *legacyMarker) CreateMarker(context.Context, []byte) error { m.created = true; return nil }
func (legacyMarker) Empty(context.Context) (bool, error)           { return false, nil }

func TestResolveFormatLeavesAStoreWithoutMarkerAtFormat1(t *testing.T) {
	m := &legacyMarker{}
	v, err := ResolveFormat(context.Background(), "s", m)
	if err != nil || v != Format1 || m.created {
		t.Fatalf("ResolveFormat = %d, %v (marker written: %v); want 1 and no marker", v, err, m.created)
	}
}
