package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/store"
)

func (s *suite) testRefCAS(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	const name = "subjects/algebra/mine"
	v1, err := st.SetRef(ctx, name, "", []byte("one"))
	if err != nil || v1 == "" {
		t.Fatalf("create: %q, %v", v1, err)
	}
	val, ver, err := st.GetRef(ctx, name)
	if err != nil || string(val) != "one" || ver != v1 {
		t.Fatalf("GetRef = %q, %q, %v; want one, %q", val, ver, err, v1)
	}
	_, err = st.SetRef(ctx, name, "", []byte("again"))
	wantKind(t, err, store.ErrPrecondition, 75)

	v2, err := st.SetRef(ctx, name, v1, []byte("two"))
	if err != nil || v2 == "" || v2 == v1 {
		t.Fatalf("update: %q, %v (old %q)", v2, err, v1)
	}
	_, err = st.SetRef(ctx, name, v1, []byte("stale"))
	wantKind(t, err, store.ErrPrecondition, 75)
	_, err = st.SetRef(ctx, name, "not-a-version", []byte("bogus"))
	wantKind(t, err, store.ErrPrecondition, 75)
	val, ver, err = st.GetRef(ctx, name)
	if err != nil || string(val) != "two" || ver != v2 {
		t.Fatalf("after stale writes GetRef = %q, %q, %v; want two, %q", val, ver, err, v2)
	}
	_, err = st.SetRef(ctx, "subjects/algebra/forge", v2, []byte("x"))
	wantKind(t, err, store.ErrPrecondition, 75)

	// Empty and binary values survive.
	v3, err := st.SetRef(ctx, name, v2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if val, ver, err := st.GetRef(ctx, name); err != nil || len(val) != 0 || ver != v3 {
		t.Fatalf("empty value: %q, %q, %v", val, ver, err)
	}
	bin := []byte("formation-ref/1 gen=7\n\x00\xff")
	if _, err := st.SetRef(ctx, name, v3, bin); err != nil {
		t.Fatal(err)
	}
	if val, _, err := st.GetRef(ctx, name); err != nil || string(val) != string(bin) {
		t.Fatalf("binary value: %q, %v", val, err)
	}
}

// testRefNoABA writes A, B, A: the version of the second A must differ from
// the first, so a writer holding the first A's version loses.
func (s *suite) testRefNoABA(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	const name = "index/mastered-courses"
	va, err := st.SetRef(ctx, name, "", []byte("A"))
	if err != nil {
		t.Fatal(err)
	}
	vb, err := st.SetRef(ctx, name, va, []byte("B"))
	if err != nil {
		t.Fatal(err)
	}
	va2, err := st.SetRef(ctx, name, vb, []byte("A"))
	if err != nil {
		t.Fatal(err)
	}
	if va2 == va {
		t.Fatalf("writing A back reused version %q", va)
	}
	_, err = st.SetRef(ctx, name, va, []byte("C"))
	wantKind(t, err, store.ErrPrecondition, 75)
}

func (s *suite) testRefNesting(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	if _, err := st.SetRef(ctx, "subjects/a/mine", "", []byte("1")); err != nil {
		t.Fatal(err)
	}
	_, err := st.SetRef(ctx, "subjects/a/mine/deeper", "", []byte("2"))
	wantKind(t, err, store.ErrInvalid, 65)
	if _, err := st.SetRef(ctx, "subjects/b/x/y", "", []byte("3")); err != nil {
		t.Fatal(err)
	}
	_, err = st.SetRef(ctx, "subjects/b/x", "", []byte("4"))
	wantKind(t, err, store.ErrInvalid, 65)
	_, _, err = st.GetRef(ctx, "subjects/b/x")
	wantKind(t, err, store.ErrNotFound, 66)
	list, err := st.ListRefs(ctx, "subjects/")
	if want := []string{"subjects/a/mine", "subjects/b/x/y"}; err != nil || !slices.Equal(list, want) {
		t.Fatalf("ListRefs = %v, %v; want %v", list, err, want)
	}
}

func (s *suite) testListRefs(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	names := []string{
		"subjects/beta/mine", "subjects/alpha/forge", "subjects/alpha/mine", "subjects/alpha-2/mine",
		"subjects/alpha.x/mine", "index/mastered-courses", "knowledge/reviewed",
		"lanes/math/l1/dev", "audit/alpha/0001", "cache/forge/ab",
	}
	for _, n := range names {
		if _, err := st.SetRef(ctx, n, "", []byte(n)); err != nil {
			t.Fatalf("SetRef(%s): %v", n, err)
		}
	}
	cases := map[string][]string{
		"":                slices.Sorted(slices.Values(names)),
		"subjects/":       {"subjects/alpha-2/mine", "subjects/alpha.x/mine", "subjects/alpha/forge", "subjects/alpha/mine", "subjects/beta/mine"},
		"subjects/alpha/": {"subjects/alpha/forge", "subjects/alpha/mine"},
		"subjects/alpha":  {"subjects/alpha-2/mine", "subjects/alpha.x/mine", "subjects/alpha/forge", "subjects/alpha/mine"},
		"subjects/al":     {"subjects/alpha-2/mine", "subjects/alpha.x/mine", "subjects/alpha/forge", "subjects/alpha/mine"},
		"sub":             {"subjects/alpha-2/mine", "subjects/alpha.x/mine", "subjects/alpha/forge", "subjects/alpha/mine", "subjects/beta/mine"},
		"lanes/math/l1/":  {"lanes/math/l1/dev"},
		"subjects/gamma/": {},
		"packs/":          {},
	}
	for prefix, want := range cases {
		got, err := st.ListRefs(ctx, prefix)
		if err != nil || len(got) != len(want) || (len(want) > 0 && !slices.Equal(got, want)) {
			t.Errorf("ListRefs(%q) = %v, %v; want %v", prefix, got, err, want)
		}
	}
	for _, bad := range []string{"/subjects", "subjects//", "subjects/../", "../", "subjects/.hid", "tmp/", "a b"} {
		_, err := st.ListRefs(ctx, bad)
		wantKind(t, err, store.ErrInvalid, 65)
	}
}

func (s *suite) testListObjects(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	var want []string
	for i := range 20 {
		d, err := st.Put(ctx, pattern(strings.Repeat("o", i+1), 10+i))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}
	slices.Sort(want)
	got, err := st.ListObjects(ctx)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ListObjects = %v, %v; want %v", got, err, want)
	}
}

// BadRefNames are names every backend must refuse; ValidRefName rejects them.
var BadRefNames = []string{
	"", "../x", "/abs", "subjects//b", "subjects/./b", "subjects/../b", ".hidden", "subjects/.hidden",
	"subjects/a b", "subjects/a\x00b", "subjects/..", "subjects/a/", "subjects", "unknown/x",
	"subjects/a\\b", "subjects/ä", "subjects/a..b/c", "subjects/" + strings.Repeat("x", 256),
	"subjects/" + strings.Repeat("abcdefgh/", 60) + "x",
}

// BadSubjectIDs are ids ValidSubjectID rejects.
var BadSubjectIDs = []string{
	"", ".", "..", ".hidden", "a/b", "a b", "a\x00", "a..b", "ü", strings.Repeat("s", 256), "a\n",
}

func (s *suite) testInvalidNames(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	for _, name := range BadRefNames {
		if err := store.ValidRefName(name); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("ValidRefName(%q) = %v", name, err)
		}
		_, _, err := st.GetRef(ctx, name)
		wantKind(t, err, store.ErrInvalid, 65)
		_, err = st.SetRef(ctx, name, "", []byte("x"))
		wantKind(t, err, store.ErrInvalid, 65)
	}
	for _, id := range BadSubjectIDs {
		wantKind(t, store.ValidSubjectID(id), store.ErrInvalid, 65)
	}
	if list, err := st.ListRefs(ctx, ""); err != nil || len(list) != 0 {
		t.Fatalf("rejected names left refs behind: %v, %v", list, err)
	}
}

func (s *suite) testCancelled(t *testing.T) {
	st := s.open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := digestOf([]byte("c"))
	_, err1 := st.Put(ctx, []byte("c"))
	_, err2 := st.Get(ctx, d)
	_, err3 := st.SetRef(ctx, "cache/x/y", "", []byte("c"))
	_, err4 := st.ListRefs(ctx, "")
	for i, err := range []error{err1, err2, err3, err4} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("op %d with a cancelled context: %v", i+1, err)
		}
	}
}
