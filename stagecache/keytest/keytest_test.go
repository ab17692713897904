package keytest_test

import (
	"slices"
	"testing"

	"formation/canon"
	"formation/stagecache/keytest"
)

type inner struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

type sample struct {
	S     string            `json:"s"`
	N     int64             `json:"n"`
	U     uint8             `json:"u"`
	B     bool              `json:"b,omitempty"`
	L     []string          `json:"l"`
	M     map[string]string `json:"m"`
	In    inner             `json:"in"`
	Ins   []inner           `json:"ins"`
	P     *inner            `json:"p"`
	A     [2]string         `json:"a"`
	Empty []string          `json:"empty"`
}

// Fill reaches every leaf; each mutation then changes exactly what its path
// names, leaves the original alone, and changes the canonical bytes.
func TestMutationsReachEveryLeaf(t *testing.T) {
	var v sample
	if err := keytest.Fill(&v); err != nil {
		t.Fatal(err)
	}
	v.Empty = nil
	before, _ := canon.Marshal(v)
	muts, err := keytest.Mutations(v)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range muts {
		paths = append(paths, m.Path)
		got, err := canon.Marshal(m.Value)
		if err != nil || string(got) == string(before) {
			t.Errorf("%s: canonical bytes unchanged (%v)", m.Path, err)
		}
	}
	if after, _ := canon.Marshal(v); string(after) != string(before) {
		t.Fatalf("a mutation changed the original:\n%s\n%s", before, after)
	}
	for _, want := range []string{".S", ".N", ".U", ".B", ".L[0]", ".L[+]", ".L[-]", ".M{k}", ".M{k}{-}", ".M{+}",
		".In.Name", ".In.Tags[0]", ".Ins[0].Tags[0]", ".Ins[+]", ".P.Name", ".P{nil}", ".A[1]", ".Empty[+]"} {
		if !slices.Contains(paths, want) {
			t.Errorf("no mutation %s in %v", want, paths)
		}
	}
}

func TestMutationsRefuseHiddenFields(t *testing.T) {
	type hidden struct {
		A string
		b string
	}
	if _, err := keytest.Mutations(hidden{}); err == nil {
		t.Fatal("an unexported field was accepted")
	}
	if _, err := keytest.Mutations(struct{ F float64 }{}); err == nil {
		t.Fatal("a float was accepted")
	}
	if err := keytest.Fill(&hidden{}); err == nil {
		t.Fatal("Fill accepted an unexported field")
	}
}
