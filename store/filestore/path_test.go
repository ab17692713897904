package filestore

import (
	"path/filepath"
	"strings"
	"testing"

	"formation/store/internal/core"
)

// FuzzRefPath checks that no accepted ref name maps outside refs/ (or its
// lock outside locks/) and that the mapping is the name itself.
func FuzzRefPath(f *testing.F) {
	for _, seed := range []string{
		"subjects/algebra/mine", "index/mastered-courses", "../x", "subjects/../../etc", "subjects/a/./b",
		"/abs", "subjects//x", "lanes/d/l/dev", "subjects/a\x00b", "subjects/..hidden", "knowledge/reviewed",
	} {
		f.Add(seed)
	}
	s := &Store{root: filepath.Join(string(filepath.Separator), "srv", "formation")}
	refs := filepath.Join(s.root, "refs")
	locks := filepath.Join(s.root, "locks")
	f.Fuzz(func(t *testing.T, name string) {
		if core.ValidRefName(name) != nil {
			return
		}
		rel, err := filepath.Rel(refs, s.refPath(name))
		if err != nil || !filepath.IsLocal(rel) || filepath.ToSlash(rel) != name {
			t.Fatalf("ref %q maps to %q (rel %q, %v)", name, s.refPath(name), rel, err)
		}
		for _, seg := range strings.Split(rel, string(filepath.Separator)) {
			if seg == ".." || seg == "." || seg == "" {
				t.Fatalf("ref %q has segment %q", name, seg)
			}
		}
		if lrel, err := filepath.Rel(locks, s.lockPath(name)); err != nil || !filepath.IsLocal(lrel) {
			t.Fatalf("lock of %q maps to %q", name, s.lockPath(name))
		}
	})
}
