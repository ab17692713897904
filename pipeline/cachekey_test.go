package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"

	"formation/stage"
	"formation/stagecache/keytest"
)

// The cache key of every stage changes with the subject id, with every
// leaf of its parameter struct (found by reflection, so a field added
// later is covered here without a change) and with each of its inputs.

func TestMineCacheKeyCoversEverything(t *testing.T)     { checkKey(t, mineSpec) }
func TestSmeltCacheKeyCoversEverything(t *testing.T)    { checkKey(t, smeltSpec) }
func TestForgeCacheKeyCoversEverything(t *testing.T)    { checkKey(t, forgeSpec) }
func TestComposeCacheKeyCoversEverything(t *testing.T)  { checkKey(t, composeSpec) }
func TestRunCacheKeyCoversEverything(t *testing.T)      { checkKey(t, runSpec) }
func TestRatifyCacheKeyCoversEverything(t *testing.T)   { checkKey(t, ratifySpec) }
func TestRunShardCacheKeyCoversEverything(t *testing.T) { checkKey(t, runShardSpec) }

func checkKey[P, I any](t *testing.T, build func(subject string, p P, in I) stage.Spec) {
	t.Helper()
	var p P
	var in I
	if err := keytest.Fill(&p); err != nil {
		t.Fatal(err)
	}
	inputs := inputFields(t, &in)
	for i, f := range inputs {
		f.SetString(digestOf("input", i))
	}
	const subject = "optics"
	base := specKey(t, build(subject, p, in))

	if specKey(t, build("optics-copy", p, in)) == base {
		t.Error("the subject id does not change the key")
	}
	muts, err := keytest.Mutations(p)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.TypeOf(p).NumField() > 0 && len(muts) == 0 {
		t.Fatal("no mutation of the parameters")
	}
	for _, m := range muts {
		if specKey(t, build(subject, m.Value.(P), in)) == base {
			t.Errorf("parameter %s does not change the key", m.Path)
		}
	}
	for i, f := range inputs {
		old := f.String()
		for _, other := range []string{digestOf("other", i), stage.Absent} {
			f.SetString(other)
			if specKey(t, build(subject, p, in)) == base {
				t.Errorf("input %s does not change the key", reflect.TypeOf(in).Field(i).Name)
			}
		}
		f.SetString(old)
	}
	t.Logf("%d parameter mutations, %d inputs", len(muts), len(inputs))
}

// inputFields returns the fields of an inputs struct, each a digest string.
func inputFields(t *testing.T, ptr any) []reflect.Value {
	t.Helper()
	v := reflect.ValueOf(ptr).Elem()
	out := make([]reflect.Value, v.NumField())
	for i := range out {
		if v.Field(i).Kind() != reflect.String {
			t.Fatalf("input %s is not a digest string", v.Type().Field(i).Name)
		}
		out[i] = v.Field(i)
	}
	return out
}

func specKey(t *testing.T, spec stage.Spec) string {
	t.Helper()
	ing, err := spec.Ingredients()
	if err != nil {
		t.Fatal(err)
	}
	k, err := ing.Key()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func digestOf(s string, i int) string {
	sum := sha256.Sum256([]byte(s + string(rune('a'+i))))
	return hex.EncodeToString(sum[:])
}
