package mining

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"formation/courses"
)

// subjectFS reads files of one subject folder. Every access goes through an
// os.Root, so no path, however built, can resolve outside the folder; on top
// of that every component of a path is checked with Lstat and a symlink
// anywhere is refused, since a link is a way for a source to point at
// something it is not.
type subjectFS struct {
	root *os.Root
}

func openSubjectFS(dir string) (*subjectFS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("mining: open subject folder: %w", err)
	}
	return &subjectFS{root: r}, nil
}

func (s *subjectFS) Close() error { return s.root.Close() }

// checkPath validates rel lexically and then Lstats each of its components.
// It returns the final component's FileInfo.
func (s *subjectFS) checkPath(rel string) (fs.FileInfo, error) {
	if err := courses.CheckRelPath(rel); err != nil {
		var pe *courses.PathError
		if errors.As(err, &pe) {
			return nil, refuse(pe.Code, "%s", pe.Detail)
		}
		return nil, refuse(CodeBadPath, "%v", err)
	}
	var info fs.FileInfo
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != '/' {
			continue
		}
		prefix := rel[:i]
		fi, err := s.root.Lstat(prefix)
		if err != nil {
			return nil, fsRefusal(prefix, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, refuse(CodeSymlink, "%s is a symlink", prefix)
		}
		if i < len(rel) && !fi.IsDir() {
			return nil, refuse(CodeNotRegular, "%s is not a folder", prefix)
		}
		info = fi
	}
	return info, nil
}

// fsRefusal maps file-system errors that say something about the input to
// refusals; anything else is returned as it is (and may be retried).
func fsRefusal(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(CodeMissing, "%s does not exist", name)
	case errors.Is(err, fs.ErrPermission):
		return refuse(CodeUnreadable, "%s: permission denied", name)
	case errors.Is(err, syscall.ELOOP):
		return refuse(CodeSymlink, "%s: symlink loop", name)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return refuse(CodeBadPath, "%s: name too long", name)
	}
	return fmt.Errorf("mining: %s: %w", name, err)
}

// readFile reads the regular file rel, refusing it when it holds more than
// limit bytes. The file is opened only after its path checked out, and the
// opened file must be the one that was checked (a swap in between is
// refused, not followed).
func (s *subjectFS) readFile(ctx context.Context, rel string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info, err := s.checkPath(rel)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, refuse(CodeNotRegular, "%s is not a regular file (%s)", rel, info.Mode().Type())
	}
	if info.Size() > limit {
		return nil, refuse(CodeTooLarge, "%s has %d bytes, the limit is %d", rel, info.Size(), limit)
	}
	f, err := s.root.Open(rel)
	if err != nil {
		return nil, fsRefusal(rel, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("mining: stat %s: %w", rel, err)
	}
	if !os.SameFile(info, opened) {
		return nil, refuse(CodeSymlink, "%s changed while it was being opened", rel)
	}
	data, err := readAtMost(f, info.Size(), limit)
	if err != nil {
		return nil, fmt.Errorf("mining: read %s: %w", rel, err)
	}
	if int64(len(data)) > limit {
		return nil, refuse(CodeTooLarge, "%s grew past the limit of %d bytes while it was read", rel, limit)
	}
	return data, nil
}

// readAtMost reads up to limit+1 bytes (one more than allowed, to notice a
// file that grew), sizing the buffer from the expected size.
func readAtMost(r io.Reader, expect, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(expect, limit)+1)
	lr := io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// walkFolder lists the regular files below the folder rel in lexical order,
// calling visit for each. Symlinks, special files and names that are not
// clean UTF-8 paths are reported through bad (the walk goes on, so that every
// problem is named); visit returning an error stops the walk.
func (s *subjectFS) walkFolder(ctx context.Context, rel string, visit func(path string, size int64) error, bad func(path string, err error)) error {
	info, err := s.checkPath(rel)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return refuse(CodeNotRegular, "%s is not a folder", rel)
	}
	return fs.WalkDir(s.root.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			bad(p, fsRefusal(p, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == rel {
			return nil
		}
		if !utf8.ValidString(p) || strings.ContainsAny(p, "\\\x00") {
			bad(p, refuse(CodeBadPath, "file name %q is not a clean UTF-8 path", p))
			return skipIfDir(d)
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			bad(p, refuse(CodeSymlink, "%s is a symlink", p))
			return nil
		case t.IsDir():
			return nil
		case !t.IsRegular():
			bad(p, refuse(CodeNotRegular, "%s is not a regular file (%s)", p, t))
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			bad(p, fsRefusal(p, err))
			return nil
		}
		return visit(p, fi.Size())
	})
}

func skipIfDir(d fs.DirEntry) error {
	if d != nil && d.IsDir() {
		return fs.SkipDir
	}
	return nil
}
