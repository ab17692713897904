package relparse

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"formation/artifact"
)

// The zero vocabulary, and one with declared relations on sentences that
// hold none of them, read every parse_triple vector as Parse does.
func TestVocabularyKeepsTheVectors(t *testing.T) {
	declared, err := NewVocabulary([]string{"defines", "provides", "is_part_of"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadVectors(t).Cases {
		want, wok := Parse(c.Input)
		for _, v := range []Vocabulary{{}, declared} {
			if v.mentionsDeclared(c.Input) {
				continue
			}
			if got, ok := v.Parse(c.Input); ok != wok || got != want {
				t.Errorf("[%s] %v.Parse(%q) = %v %v, Parse gives %v %v", c.Tag, v.declared, c.Input, got, ok, want, wok)
			}
		}
	}
}

// mentionsDeclared reports whether a declared relation is a whole word of s.
func (v Vocabulary) mentionsDeclared(s string) bool {
	low := Lower(s)
	for i := 0; i < len(low); {
		start := i
		if i = wordEnd(low, i); i == start {
			_, w := decodeRune(low, i)
			i += w
			continue
		}
		if slices.Contains(v.declared, low[start:i]) {
			return true
		}
	}
	return false
}

func TestVocabularyParse(t *testing.T) {
	v, err := NewVocabulary([]string{"provides", "defines", "is_part_of", "denotes"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"is_part_of", "defines", "denotes", "provides"}; !slices.Equal(v.declared, want) {
		t.Fatalf("rank %v, want %v", v.declared, want)
	}
	if want := []string{"defines", "denotes", "is_part_of", "provides"}; !slices.Equal(v.Declared(), want) {
		t.Fatalf("Declared() = %v", v.Declared())
	}
	if got := v.Relations(); len(got) != 21 || got[16] != "has" || got[17] != "is_part_of" {
		t.Fatalf("Relations() = %v", got)
	}
	cases := []struct {
		in   string
		want *artifact.Triple
	}{
		{"Package strings defines the Builder type.", &artifact.Triple{Head: "package strings", Relation: "defines", Tail: "builder type"}},
		{"A lens is_part_of the camera", &artifact.Triple{Head: "lens", Relation: "is_part_of", Tail: "camera"}},
		// The 17 rank first: "is" wins over a declared relation.
		{"The map defines what is allowed", &artifact.Triple{Head: "map defines what", Relation: "is", Tail: "allowed"}},
		// Among declared ones, the rank decides, not the position.
		{"x provides y defines z", &artifact.Triple{Head: "x provides y", Relation: "defines", Tail: "z"}},
		// A prose spelling of a compound is not its word.
		{"A lens is part of the camera", &artifact.Triple{Head: "lens", Relation: "is", Tail: "part of the camera"}},
		{"The module contains code", nil}, // not declared: the vocabulary stays closed
		{"defines everything", nil},
	}
	for _, c := range cases {
		got, ok := v.Parse(c.in)
		if c.want == nil {
			if ok {
				t.Errorf("Parse(%q) = %v, want none", c.in, got)
			}
			continue
		}
		if !ok || got != *c.want {
			t.Errorf("Parse(%q) = %v %v, want %v", c.in, got, ok, *c.want)
		}
	}
	for _, r := range v.Relations() {
		if !v.IsRelation(r) || v.Relations()[v.Priority(r)] != r {
			t.Errorf("Priority(%q) = %d", r, v.Priority(r))
		}
	}
	if v.IsRelation("contains") || (Vocabulary{}).IsRelation("defines") {
		t.Fatal("a relation outside the vocabulary is accepted")
	}
}

func TestNewVocabularyRefuses(t *testing.T) {
	for _, bad := range [][]string{{""}, {"Defines"}, {"is part of"}, {"_x"}, {"x_"}, {"x__y"}, {"x1"}, {"dé"},
		{"is"}, {"belongs_to"}, {"defines", "defines"}} {
		if _, err := NewVocabulary(bad); !errors.Is(err, ErrBadRelationName) {
			t.Errorf("NewVocabulary(%q) = %v", bad, err)
		}
	}
	for _, good := range []string{"a", "defines", "is_part_of", "a_b_c"} {
		if !ValidRelationName(good) {
			t.Errorf("ValidRelationName(%q) = false", good)
		}
	}
	if v, err := NewVocabulary(nil); err != nil || v.Declared() != nil || len(v.Relations()) != numRelations {
		t.Fatalf("empty vocabulary: %v %v", v, err)
	}
}

// FuzzVocabularyParse: a vocabulary with declared relations reads a sentence
// without any of them exactly as Parse does, and every reading is a relation
// of the vocabulary with clean sides.
func FuzzVocabularyParse(f *testing.F) {
	for _, s := range []string{"Package x defines the y type.", "light is energy", "a provides b is c",
		"x is_part_of y", "actually, the map denotes a set", "\xff defines y"} {
		f.Add(s)
	}
	v, err := NewVocabulary([]string{"defines", "provides", "denotes", "is_part_of"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := v.Parse(s)
		if !v.mentionsDeclared(s) {
			want, wok := Parse(s)
			if ok != wok || got != want {
				t.Fatalf("Parse(%q) = %v %v, the original's reading is %v %v", s, got, ok, want, wok)
			}
		}
		if !ok {
			return
		}
		if !v.IsRelation(got.Relation) {
			t.Fatalf("Parse(%q) relation %q is not in the vocabulary", s, got.Relation)
		}
		for _, part := range []string{got.Head, got.Tail} {
			if part == "" || TrimSpace(part) != part || strings.Contains(part, "  ") {
				t.Fatalf("Parse(%q) = %v: unclean side", s, got)
			}
		}
	})
}
