package stagecache_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/internal/exitcode"
	"formation/stagecache"
	"formation/stagecache/keytest"
	"formation/store"
)

func newCache(t *testing.T) *stagecache.Cache {
	s, err := store.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &stagecache.Cache{Store: s}
}

func sample() stagecache.Ingredients {
	return stagecache.Ingredients{Stage: "forge", StageVersion: "1", CodeIdentity: "forge@1+v", Subject: "optics",
		ParamsDigest: "p", Inputs: []string{"b", "a"}}
}

// Every field of the ingredients, found by reflection, changes the key;
// the order of the inputs does not.
func TestKeyCoversEveryIngredient(t *testing.T) {
	a := sample()
	ka, err := a.Key()
	if err != nil || len(ka) != 64 {
		t.Fatalf("key %q %v", ka, err)
	}
	b := a
	b.Inputs = []string{"a", "b"}
	if kb, _ := b.Key(); kb != ka {
		t.Fatalf("input order changed the key: %s %s", ka, kb)
	}
	muts, err := keytest.Mutations(a)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, m := range muts {
		paths[strings.SplitN(strings.TrimPrefix(m.Path, "."), "[", 2)[0]] = true
		k, err := m.Value.(stagecache.Ingredients).Key()
		if err != nil || k == ka {
			t.Errorf("%s did not change the key (%v)", m.Path, err)
		}
	}
	for _, f := range []string{"Stage", "StageVersion", "CodeIdentity", "Subject", "ParamsDigest", "Inputs"} {
		if !paths[f] {
			t.Errorf("no mutation of %s: %v", f, paths)
		}
	}
}

func TestLookupRecordExplain(t *testing.T) {
	ctx := context.Background()
	c := newCache(t)
	in := sample()
	in.Inputs = []string{strings.Repeat("a", 64)}
	ex, err := c.Lookup(ctx, in, nil)
	if err != nil || ex.Hit || ex.Changed[0] != "no previous record" {
		t.Fatalf("first lookup %+v %v", ex, err)
	}
	out := strings.Repeat("f", 64)
	if err := c.Record(ctx, in, out, stagecache.Notes{}); err != nil {
		t.Fatal(err)
	}
	ex, _ = c.Lookup(ctx, in, nil)
	if !ex.Hit || ex.Output != out {
		t.Fatalf("rerun is not a hit: %+v", ex)
	}
	// Another subject with the very same ingredients otherwise is another action.
	other := in
	other.Subject = "optics2"
	if ex, _ := c.Lookup(ctx, other, nil); ex.Hit {
		t.Fatalf("a second subject hit the first one's record: %+v", ex)
	}
	changed := in
	changed.ParamsDigest = "q"
	changed.Inputs = []string{strings.Repeat("b", 64)}
	ex, _ = c.Lookup(ctx, changed, nil)
	if ex.Hit || !slices.Equal(ex.Changed, []string{"params_digest", "inputs"}) || ex.Added[0] != strings.Repeat("b", 64) || ex.Removed[0] != strings.Repeat("a", 64) {
		t.Fatalf("explain %+v", ex)
	}
}

// Recording the same action again with the same output is fine (two writers
// raced); with another output it is a typed internal error and the record
// keeps the first output.
func TestRecordConflictIsTyped(t *testing.T) {
	ctx := context.Background()
	c := newCache(t)
	in := sample()
	out := strings.Repeat("f", 64)
	if err := c.Record(ctx, in, out, stagecache.Notes{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Record(ctx, in, out, stagecache.Notes{}); err != nil {
		t.Fatalf("same output recorded twice: %v", err)
	}
	err := c.Record(ctx, in, strings.Repeat("e", 64), stagecache.Notes{})
	var conflict *stagecache.ConflictError
	if !errors.As(err, &conflict) || conflict.Recorded != out || exitcode.Of(err) != exitcode.Internal {
		t.Fatalf("conflict: %T %v (exit %d)", err, err, exitcode.Of(err))
	}
	if ex, _ := c.Lookup(ctx, in, nil); ex.Output != out {
		t.Fatalf("the conflicting output overwrote the record: %+v", ex)
	}
	if rec, ok, _ := c.Last(ctx, "optics", "forge"); !ok || rec.Output != out {
		t.Fatalf("last record moved to the conflicting output: %+v", rec)
	}
}

func TestCheckParamsRefusesFieldsTheKeyCannotSee(t *testing.T) {
	type nested struct {
		Terms map[string][]string `json:"terms"`
		Deep  *struct{ N int64 }  `json:"deep"`
	}
	type good struct {
		Name   string   `json:"name"`
		On     bool     `json:"on,omitempty"`
		List   []nested `json:"list"`
		Fixed  [2]string
		Nested nested `json:"nested"`
	}
	if err := stagecache.CheckParams(good{}); err != nil {
		t.Fatalf("good params refused: %v", err)
	}
	for name, v := range map[string]any{
		"unexported": struct {
			A string `json:"a"`
			b string
		}{},
		"json dash": struct {
			A string `json:"-"`
		}{},
		"duplicate name": struct {
			A string `json:"X"`
			X string
		}{},
		"float":     struct{ F float64 }{},
		"interface": struct{ V any }{},
		"nested float": struct {
			L []map[string]struct{ F float32 }
		}{},
		"int map key":     struct{ M map[int]string }{},
		"not a struct":    map[string]any{"k": "v"},
		"nil":             nil,
		"func":            struct{ F func() }{},
		"deep unexported": struct{ P *struct{ x int } }{},
	} {
		if err := stagecache.CheckParams(v); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A previous record the cache cannot decode (an older format) only explains:
// the lookup still answers, and recording replaces it.
func TestUnreadablePreviousRecordDoesNotStopLookup(t *testing.T) {
	ctx := context.Background()
	c := newCache(t)
	old := `{"ingredients":{"code_identity":"forge@1+v","inputs":[],"params_digest":"p","stage":"forge","stage_version":"1"},"key":"k","output":"o","subject":"optics"}`
	if _, err := c.Store.SetRef(ctx, "cache/last/optics/forge", "", []byte(old)); err != nil {
		t.Fatal(err)
	}
	in := sample()
	ex, err := c.Lookup(ctx, in, nil)
	if err != nil || ex.Hit || !slices.Equal(ex.Changed, []string{"previous record unreadable"}) {
		t.Fatalf("lookup over an old record: %+v %v", ex, err)
	}
	if err := c.Record(ctx, in, strings.Repeat("f", 64), stagecache.Notes{}); err != nil {
		t.Fatal(err)
	}
	if rec, ok, err := c.Last(ctx, "optics", "forge"); !ok || err != nil || rec.Output != strings.Repeat("f", 64) {
		t.Fatalf("last record %+v %v", rec, err)
	}
}
