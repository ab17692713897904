package stagecache_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/stagecache"
	"formation/store"
)

func newCache(t *testing.T) *stagecache.Cache {
	s, err := store.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &stagecache.Cache{Refs: s,
		IsNotFound:     func(err error) bool { return errors.Is(err, store.ErrNotFound) },
		IsPrecondition: func(err error) bool { return errors.Is(err, store.ErrPrecondition) }}
}

func TestKeyIsOrderIndependentAndSensitive(t *testing.T) {
	a := stagecache.Ingredients{Stage: "forge", StageVersion: "1", CodeIdentity: "forge@1+v", ParamsDigest: "p", Inputs: []string{"b", "a"}}
	b := a
	b.Inputs = []string{"a", "b"}
	ka, _ := a.Key()
	kb, _ := b.Key()
	if ka != kb || len(ka) != 64 {
		t.Fatalf("keys %s %s", ka, kb)
	}
	for _, mut := range []func(*stagecache.Ingredients){
		func(i *stagecache.Ingredients) { i.Stage = "compose" },
		func(i *stagecache.Ingredients) { i.StageVersion = "2" },
		func(i *stagecache.Ingredients) { i.CodeIdentity = "forge@1+w" },
		func(i *stagecache.Ingredients) { i.ParamsDigest = "q" },
		func(i *stagecache.Ingredients) { i.Inputs = []string{"a"} },
	} {
		c := a
		c.Inputs = slices.Clone(a.Inputs)
		mut(&c)
		if k, _ := c.Key(); k == ka {
			t.Fatalf("ingredient change did not change the key: %+v", c)
		}
	}
}

func TestLookupRecordExplain(t *testing.T) {
	ctx := context.Background()
	c := newCache(t)
	in := stagecache.Ingredients{Stage: "forge", StageVersion: "1", CodeIdentity: "forge@1+v", ParamsDigest: "p", Inputs: []string{strings.Repeat("a", 64)}}
	ex, err := c.Lookup(ctx, "optics", in)
	if err != nil || ex.Hit || ex.Changed[0] != "no previous record" {
		t.Fatalf("first lookup %+v %v", ex, err)
	}
	out := strings.Repeat("f", 64)
	if err := c.Record(ctx, "optics", in, out); err != nil {
		t.Fatal(err)
	}
	ex, _ = c.Lookup(ctx, "optics", in)
	if !ex.Hit || ex.Output != out {
		t.Fatalf("rerun is not a hit: %+v", ex)
	}
	// Recording the same action again with the same output is fine; with a
	// different output it is a determinism failure.
	if err := c.Record(ctx, "optics", in, out); err != nil {
		t.Fatal(err)
	}
	if err := c.Record(ctx, "optics", in, strings.Repeat("e", 64)); err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Fatalf("nondeterminism not caught: %v", err)
	}
	changed := in
	changed.ParamsDigest = "q"
	changed.Inputs = []string{strings.Repeat("b", 64)}
	ex, _ = c.Lookup(ctx, "optics", changed)
	if ex.Hit || !slices.Equal(ex.Changed, []string{"params_digest", "inputs"}) || ex.Added[0] != strings.Repeat("b", 64) || ex.Removed[0] != strings.Repeat("a", 64) {
		t.Fatalf("explain %+v", ex)
	}
}
