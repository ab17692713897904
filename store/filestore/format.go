package filestore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"formation/store/internal/core"
)

// errReadOnly marks a marker that could not be written because the folder
// is not writable.
var errReadOnly = errors.New("the store folder is not writable")

// marker reads and writes the store's format marker (core.Marker).
type marker struct{ s *Store }

func (m marker) ReadMarker(context.Context) ([]byte, error) {
	b, err := os.ReadFile(m.s.path(core.FormatKey))
	if err != nil {
		return nil, fsErr("open", m.s.String(), err)
	}
	return b, nil
}

// CreateMarker writes a complete temp file and links it into place: the
// link fails if a marker exists, so the first writer wins and nobody ever
// reads half a marker.
func (m marker) CreateMarker(_ context.Context, data []byte) error {
	tmp, err := m.s.writeTemp(objectPerm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return m.createErr(err)
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, m.s.path(core.FormatKey))
	if errors.Is(err, fs.ErrExist) {
		return core.E("open", m.s.String(), core.ErrPrecondition, err)
	}
	if err != nil {
		return m.createErr(err)
	}
	if err := syncDir(m.s.root); err != nil {
		return writeErr("open", m.s.String(), err)
	}
	return nil
}

func (m marker) createErr(err error) error {
	if notPermitted(err) || errors.Is(err, fs.ErrNotExist) {
		err = errors.Join(errReadOnly, err)
	}
	return writeErr("open", m.s.String(), err)
}

// Empty reports whether objects/ and refs/ hold nothing at all (an empty
// fan-out folder counts as something: only a store that never held an
// object gets a new format).
func (m marker) Empty(context.Context) (bool, error) {
	for _, sub := range []string{core.ObjectsDir, core.RefsDir} {
		d, err := os.Open(m.s.path(sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, fsErr("open", m.s.String(), err)
		}
		names, err := d.Readdirnames(1)
		_ = d.Close()
		if len(names) > 0 {
			return false, nil
		}
		if err != nil && err != io.EOF {
			return false, fsErr("open", m.s.String(), err)
		}
	}
	return true, nil
}

// Format is the store's format: 1 (objects as their bytes) or 2 (zstd).
func (s *Store) Format() int { return s.codec.Format() }
