package storecheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"formation/ident"
	"formation/reviewed"
	"formation/store"
)

// world is a small store with one ref of each kind check reads.
func world(t *testing.T) (store.Store, string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := store.Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(b string) string {
		d, err := s.Put(ctx, []byte(b))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	objs := map[string]string{"output": put(`{"a":1}`), "stray": put(`{"unreachable":true}`)}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.SetRefValue(ctx, s, "subjects/x/mine", []byte(objs["output"])))
	must(store.SetRefValue(ctx, s, "cache/mine/"+strings.Repeat("0", 64), []byte(`{"ingredients":{},"key":"k","output":"`+objs["output"]+`","subject":"x"}`)))
	must(store.SetRefValue(ctx, s, "audit/x/mine/20260516T000000Z-000000000-0000", []byte(`[]`)))
	if _, _, err := reviewed.Commit(ctx, s, func(cur reviewed.Snapshot) (reviewed.Next, error) {
		return reviewed.Next{Knowledge: cur.Knowledge, Index: cur.Index, Promotions: map[string]ident.Digest{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return s, dir, objs
}

func flip(t *testing.T, dir, digest string) {
	t.Helper()
	path := filepath.Join(dir, "objects", "sha256", digest[:2], digest)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 1
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func reasons(rep Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Reason+" "+f.Where)
	}
	return out
}

func TestCleanStoreHasNoFindings(t *testing.T) {
	s, _, _ := world(t)
	rep, err := Check(context.Background(), s, Options{ReadData: true})
	if err != nil || len(rep.Findings) != 0 || rep.Refs != 4 || rep.Objects < 5 || rep.StateSeq != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
}

// A flipped byte in an object no ref reaches is found only by ReadData.
func TestReadDataFindsCorruptionAnywhere(t *testing.T) {
	s, dir, objs := world(t)
	flip(t, dir, objs["stray"])
	rep, err := Check(context.Background(), s, Options{})
	if err != nil || len(rep.Findings) != 0 {
		t.Fatalf("without read-data: %v %v", reasons(rep), err)
	}
	rep, err = Check(context.Background(), s, Options{ReadData: true})
	if err != nil || len(rep.Findings) != 1 || rep.Findings[0].Reason != ReasonCorruptObject || rep.Findings[0].Where != objs["stray"] {
		t.Fatalf("with read-data: %v %v", reasons(rep), err)
	}
}

func TestRefFindings(t *testing.T) {
	s, _, _ := world(t)
	ctx := context.Background()
	missing := strings.Repeat("e", 64)
	for name, val := range map[string]string{
		"subjects/x/forge":                 missing,
		"subjects/x/smelt":                 "not a digest",
		"cache/last/x/mine":                `{"no":"output"}`,
		"audit/x/forge/20260516T000000Z-1": `{"not":"a batch"}`,
	} {
		if err := store.SetRefValue(ctx, s, name, []byte(val)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Check(ctx, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ReasonUndecodableRef + " audit/x/forge/20260516T000000Z-1", ReasonUndecodableRef + " cache/last/x/mine",
		ReasonDanglingRef + " subjects/x/forge", ReasonUndecodableRef + " subjects/x/smelt"}
	if got := reasons(rep); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("findings %v, want %v", got, want)
	}
}

// A damaged reviewed state is a finding, not an error of the check.
func TestDamagedStateIsAFinding(t *testing.T) {
	s, dir, _ := world(t)
	snap, err := reviewed.Load(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	flip(t, dir, snap.State.Index.String())
	rep, err := Check(context.Background(), s, Options{})
	if err != nil || len(rep.Findings) != 1 || rep.Findings[0].Reason != reviewed.ReasonCorruptObject {
		t.Fatalf("%v %v", reasons(rep), err)
	}
}
