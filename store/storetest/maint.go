package storetest

import (
	"context"
	"slices"
	"testing"

	"formation/store"
)

// testMaintenance checks the maintenance side every backend offers to gc
// and check: object infos, deletes of objects and refs, and leftovers.
func (s *suite) testMaintenance(t *testing.T) {
	st, ctx := s.open(t), context.Background()
	m, err := store.AsMaintainer(st)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := st.Put(ctx, []byte("object a"))
	b, _ := st.Put(ctx, pattern("object b", 5000))
	infos, err := m.ObjectInfos(ctx)
	if err != nil || len(infos) != 2 {
		t.Fatalf("ObjectInfos = %v, %v", infos, err)
	}
	// Sizes are bytes at rest, what gc frees: the stored (compressed) form.
	for _, o := range infos {
		stored, _ := s.needRaw(t).Read(t, st, objectKey(o.Digest))
		if o.Size != int64(len(stored)) || o.Size == 0 || o.ModTime.IsZero() {
			t.Errorf("info %+v: want size %d and a time", o, len(stored))
		}
	}
	if err := m.DeleteObject(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := m.DeleteObject(ctx, a); err != nil {
		t.Fatalf("deleting a missing object: %v", err)
	}
	if list, _ := st.ListObjects(ctx); !slices.Equal(list, []string{b}) {
		t.Fatalf("objects after delete = %v", list)
	}
	wantKind(t, m.DeleteObject(ctx, "nothex"), store.ErrInvalid, 65)

	for _, n := range []string{"locks/shared-1", "cache/forge/k", "subjects/x/mine"} {
		if _, err := st.SetRef(ctx, n, "", []byte(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.DeleteRef(ctx, "locks/shared-1"); err != nil {
		t.Fatal(err)
	}
	if err := m.DeleteRef(ctx, "locks/shared-1"); err != nil {
		t.Fatalf("deleting a missing ref: %v", err)
	}
	if names, _ := st.ListRefs(ctx, ""); !slices.Equal(names, []string{"cache/forge/k", "subjects/x/mine"}) {
		t.Fatalf("refs after delete = %v", names)
	}
	// A deleted ref can be created again, from generation 1.
	if _, err := st.SetRef(ctx, "locks/shared-1", "", []byte("again")); err != nil {
		t.Fatalf("re-creating a deleted ref: %v", err)
	}
	wantKind(t, m.DeleteRef(ctx, "nosuchroot/x"), store.ErrInvalid, 65)
	if left, err := m.Leftovers(ctx); err != nil || len(left) != 0 {
		t.Fatalf("a store nobody killed has leftovers: %v, %v", left, err)
	}
}
