package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"formation/store"
	"formation/store/storetest"
)

func TestExitCode(t *testing.T) {
	wrap := func(kind error) error {
		return fmt.Errorf("stage: %w", &store.Error{Op: "get", Key: "k", Kind: kind, Err: errors.New("cause")})
	}
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{wrap(store.ErrNotFound), 66},
		{wrap(store.ErrCorrupt), 65},
		{wrap(store.ErrInvalid), 65},
		{wrap(store.ErrPrecondition), 75},
		{wrap(store.ErrUnavailable), 75},
		{wrap(store.ErrDenied), 77},
		{wrap(store.ErrConfig), 78},
		{wrap(nil), 1},
		{errors.New("other"), 1},
		{context.Canceled, 1},
		{&store.Error{Op: "get", Err: context.Canceled}, 130},
	}
	for _, c := range cases {
		if got := store.ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	cause := errors.New("disk on fire")
	err := &store.Error{Op: "put", Key: "abc", Kind: store.ErrUnavailable, Err: cause}
	if got, want := err.Error(), `store: put "abc": store unavailable: disk on fire`; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, cause) || !errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrCorrupt) {
		t.Fatal("errors.Is does not see both kind and cause")
	}
	long := &store.Error{Op: "ref name", Key: strings.Repeat("x", 1000), Kind: store.ErrInvalid}
	if len(long.Error()) > 200 {
		t.Fatalf("message for a huge name not shortened: %d bytes", len(long.Error()))
	}
}

func TestValidRefName(t *testing.T) {
	good := []string{
		"subjects/algebra/mine", "index/mastered-courses", "knowledge/reviewed", "lanes/math/l1/dev",
		"audit/algebra/0001", "cache/forge/ab12", "packs/safety_v1", "subjects/A.b_c-9/x",
		"proposals/" + strings.Repeat("ab", 32),
		"subjects/" + strings.Repeat("x", 255), "subjects/" + strings.Repeat("abcdefg/", 62) + "z",
	}
	for _, n := range good {
		if err := store.ValidRefName(n); err != nil {
			t.Errorf("ValidRefName(%q) = %v", n, err)
		}
		if err := store.ValidRefPrefix(n); err != nil {
			t.Errorf("a valid name is not a valid prefix: %v", err)
		}
	}
	for _, n := range storetest.BadRefNames {
		if err := store.ValidRefName(n); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("ValidRefName(%q) = %v, want ErrInvalid", n, err)
		}
	}
}

func TestValidSubjectID(t *testing.T) {
	for _, id := range []string{"algebra", "a", "A-b_c.9", "x.y", strings.Repeat("s", 255)} {
		if err := store.ValidSubjectID(id); err != nil {
			t.Errorf("ValidSubjectID(%q) = %v", id, err)
		}
	}
	for _, id := range storetest.BadSubjectIDs {
		if err := store.ValidSubjectID(id); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("ValidSubjectID(%q) = %v, want ErrInvalid", id, err)
		}
	}
}

var digestRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func FuzzDigest(f *testing.F) {
	for _, s := range []string{"", strings.Repeat("a", 64), strings.Repeat("A", 64), strings.Repeat("g", 64), strings.Repeat("0", 63)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := store.ValidDigest(s), digestRE.MatchString(s); got != want {
			t.Fatalf("ValidDigest(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzRefName: an accepted name is a local, dot-free relative path below any
// root; its every segment is a valid subject id; the validator never panics.
func FuzzRefName(f *testing.F) {
	for _, s := range append([]string{"subjects/algebra/mine", "lanes/d/l/dev", "index/mastered-courses"}, storetest.BadRefNames...) {
		f.Add(s)
	}
	root := filepath.Join(string(filepath.Separator), "srv", "formation", "refs")
	f.Fuzz(func(t *testing.T, name string) {
		if store.ValidRefName(name) != nil {
			return
		}
		if len(name) > 512 || !filepath.IsLocal(name) || strings.Contains(name, "..") || strings.HasPrefix(name, ".") {
			t.Fatalf("accepted %q", name)
		}
		p := filepath.Join(root, filepath.FromSlash(name))
		if rel, err := filepath.Rel(root, p); err != nil || filepath.ToSlash(rel) != name {
			t.Fatalf("%q resolves to %q outside or away from its name", name, p)
		}
		for _, seg := range strings.Split(name, "/")[1:] {
			if err := store.ValidSubjectID(seg); err != nil {
				t.Fatalf("accepted %q with segment %q: %v", name, seg, err)
			}
		}
		if err := store.ValidRefPrefix(name); err != nil {
			t.Fatalf("accepted name %q is not a valid prefix: %v", name, err)
		}
	})
}

// FuzzSubjectID: an accepted id is one safe path segment, and usable in a ref.
func FuzzSubjectID(f *testing.F) {
	for _, s := range append([]string{"algebra", "a.b", "x-1_2"}, storetest.BadSubjectIDs...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if store.ValidSubjectID(id) != nil {
			return
		}
		if !filepath.IsLocal(id) || strings.ContainsAny(id, `/\`) || strings.Contains(id, "..") || id[0] == '.' {
			t.Fatalf("accepted %q", id)
		}
		if err := store.ValidRefName("subjects/" + id + "/mine"); err != nil {
			t.Fatalf("accepted id %q does not make a ref name: %v", id, err)
		}
	})
}
