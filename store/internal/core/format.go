package core

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Store formats. A store's format says how its objects are kept at rest;
// the layout (one file or key per object, named by the SHA-256 of its
// canonical bytes) and every digest are the same in both.
//
//   - Format 1 has no marker: each object is stored as its canonical bytes.
//     Every store written before format 2 existed is a format 1 store.
//   - Format 2 is marked by FormatKey holding "formation-store/2\n": each
//     object is stored as one zstd frame of its canonical bytes.
//
// A store keeps the format it was created with, so no store ever mixes
// the two: new writes to a format 1 store stay uncompressed. Telling the two
// apart by the bytes of an object would not be safe, since a format 1
// object (a mined file, say) may itself begin with the zstd magic number.
const (
	Format1       = 1
	Format2       = 2
	CurrentFormat = Format2
	FormatKey     = "format" // the marker, at the store root (beside objects/ and refs/)
	markerPrefix  = "formation-store/"
)

// MarkerBytes is the content of the marker of format v.
func MarkerBytes(v int) []byte { return []byte(markerPrefix + strconv.Itoa(v) + "\n") }

// ParseMarker reads a marker. A format this code does not know is ErrConfig:
// a newer binary wrote the store, and guessing would misread every object.
func ParseMarker(where string, b []byte) (int, error) {
	s, ok := strings.CutPrefix(strings.TrimSuffix(string(b), "\n"), markerPrefix)
	v, err := strconv.Atoi(s)
	if !ok || err != nil || strconv.Itoa(v) != s {
		return 0, Errorf("open", where, ErrConfig, fmt.Sprintf("the store's %s marker holds %q, not %sN", FormatKey, truncate(string(b)), markerPrefix))
	}
	if v != Format2 {
		return 0, Errorf("open", where, ErrConfig,
			fmt.Sprintf("store format %d is not one this binary reads (1 and 2)", v))
	}
	return v, nil
}

func truncate(s string) string {
	if len(s) > maxKeyInMessage {
		return s[:maxKeyInMessage] + "..."
	}
	return s
}

// Marker is what a backend offers to settle its store's format.
type Marker interface {
	// ReadMarker returns the marker's bytes, or an error matching
	// ErrNotFound when there is none.
	ReadMarker(ctx context.Context) ([]byte, error)
	// CreateMarker writes the marker only if there is none (an error
	// matching ErrPrecondition when another writer was first).
	CreateMarker(ctx context.Context, data []byte) error
	// Empty reports whether the store holds no object and no ref.
	Empty(ctx context.Context) (bool, error)
}

// ResolveFormat returns the store's format: the one its marker names; 1
// for a store without a marker that holds anything; and for an empty store
// without one, CurrentFormat, whose marker it writes first. Two processes
// creating a store at once agree: the second one's create-only write fails
// and it reads the first one's marker. A writer creates the marker before
// its first object, so a store found non-empty after the marker was found
// missing is read once more: the objects may be those of a writer that
// created the store in between, and only a store that is still without a
// marker is a format-1 store.
func ResolveFormat(ctx context.Context, where string, m Marker) (int, error) {
	for range 2 {
		b, err := m.ReadMarker(ctx)
		if err == nil {
			return ParseMarker(where, b)
		}
		if !errors.Is(err, ErrNotFound) {
			return 0, err
		}
		empty, err := m.Empty(ctx)
		if err != nil {
			return 0, err
		}
		if !empty {
			return markerOrFormat1(ctx, where, m)
		}
		err = m.CreateMarker(ctx, MarkerBytes(CurrentFormat))
		if err == nil {
			return CurrentFormat, nil
		}
		if !errors.Is(err, ErrPrecondition) {
			return 0, err
		}
	}
	return 0, Errorf("open", where, ErrUnavailable, "the format marker was created and vanished again")
}

// markerOrFormat1 settles the format of a store found non-empty: the format
// its marker names if another writer created it since it was last read,
// else 1.
func markerOrFormat1(ctx context.Context, where string, m Marker) (int, error) {
	b, err := m.ReadMarker(ctx)
	switch {
	case err == nil:
		return ParseMarker(where, b)
	case errors.Is(err, ErrNotFound):
		return Format1, nil
	default:
		return 0, err
	}
}
