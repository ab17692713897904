package relparse

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"formation/internal/testutil"
)

type parseVectors struct {
	RelationsPriority []string `json:"relations_priority"`
	LeadingMarkers    []string `json:"leading_markers"`
	Cases             []struct {
		Tag    string    `json:"tag"`
		Input  string    `json:"input"`
		Result *[]string `json:"result"`
	} `json:"cases"`
}

func loadVectors(t *testing.T) parseVectors {
	t.Helper()
	data, err := os.ReadFile(testutil.Vector(t, "parse_triple.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v parseVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("no parse_triple cases")
	}
	return v
}

func TestVocabularyMatchesVectors(t *testing.T) {
	v := loadVectors(t)
	if !slices.Equal(Relations(), v.RelationsPriority) {
		t.Fatalf("Relations() = %v, vectors say %v", Relations(), v.RelationsPriority)
	}
	if m := markers(); !slices.Equal(m[:], v.LeadingMarkers) {
		t.Fatalf("markers = %v, vectors say %v", m, v.LeadingMarkers)
	}
	for i, r := range Relations() {
		if Priority(r) != i || !IsRelation(r) {
			t.Errorf("Priority(%q) = %d, want %d", r, Priority(r), i)
		}
	}
	for _, r := range []string{"", "belongs to", "IS", "is_a", "was"} {
		if IsRelation(r) {
			t.Errorf("IsRelation(%q) = true", r)
		}
	}
}

func TestRelationsReturnsCopy(t *testing.T) {
	a := Relations()
	a[0] = "changed"
	if Relations()[0] != "belongs_to" {
		t.Fatal("Relations() exposes the package's vocabulary to mutation")
	}
}

func TestParseVectors(t *testing.T) {
	for _, c := range loadVectors(t).Cases {
		got, ok := Parse(c.Input)
		switch {
		case c.Result == nil && ok:
			t.Errorf("[%s] Parse(%q) = %q, want none", c.Tag, c.Input, []string{got.Head, got.Relation, got.Tail})
		case c.Result != nil && !ok:
			t.Errorf("[%s] Parse(%q) = none, want %q", c.Tag, c.Input, *c.Result)
		case c.Result != nil:
			want := *c.Result
			if len(want) != 3 || got.Head != want[0] || got.Relation != want[1] || got.Tail != want[2] {
				t.Errorf("[%s] Parse(%q) = %q, want %q", c.Tag, c.Input, []string{got.Head, got.Relation, got.Tail}, want)
			}
		}
	}
}

func TestParseRejectsInvalidUTF8(t *testing.T) {
	for _, s := range []string{"x is \xff", "\xc3 is y", "x \xed\xa0\x80 is y"} {
		if got, ok := Parse(s); ok {
			t.Errorf("Parse(%q) = %v, want none", s, got)
		}
	}
}

func TestIsSpace(t *testing.T) {
	space := []rune{'\t', '\n', '\v', '\f', '\r', ' ', 0x1C, 0x1D, 0x1E, 0x1F, 0x85, 0xA0, 0x1680,
		0x2000, 0x2005, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000}
	notSpace := []rune{0, 0x1B, 0x20 + 1, 0x200B, 0x180E, 0xFEFF, 0x2060, 'a', '_', 0x0301}
	for _, r := range space {
		if !IsSpace(r) {
			t.Errorf("IsSpace(%U) = false", r)
		}
	}
	for _, r := range notSpace {
		if IsSpace(r) {
			t.Errorf("IsSpace(%U) = true", r)
		}
	}
}

func TestIsWordRune(t *testing.T) {
	word := []rune{'a', 'Z', '0', '_', 'é', 'λ', '日', 0x0663, 'Ⅻ', '½', 0x02B0}
	notWord := []rune{' ', '-', '.', '\'', 0x0301, 0x200B, 0x180E, 0xFEFF, '💡', '。'}
	for _, r := range word {
		if !IsWordRune(r) {
			t.Errorf("IsWordRune(%U) = false", r)
		}
	}
	for _, r := range notWord {
		if IsWordRune(r) {
			t.Errorf("IsWordRune(%U) = true", r)
		}
	}
}

func TestLower(t *testing.T) {
	cases := map[string]string{
		"":              "",
		"already lower": "already lower",
		"MiXeD 42":      "mixed 42",
		"İstanbul":      "i\u0307stanbul",
		"ΟΔΟΣ":          "οδος",
		"ΟΔΟΣ ΣΟΦΙΑΣ":   "οδος σοφιας",
		"Σ":             "σ",   // nothing cased before it
		"ΑΣΑ":           "ασα", // cased letter follows
		"ΑΣ.":           "ας.", // '.' is case-ignorable, then the end
		"ΑΣ'Α":          "ασ'α",
		"Α'Σ":           "α'ς", // skip the ignorable apostrophe backwards
		"ΑΣ1":           "ας1", // a digit is not cased
		"ǅemal":         "ǆemal",
		"Ⅻ":             "ⅻ",
		"STRASSE ß":     "strasse ß",
		"K":             "k", // Kelvin sign
		"bad \xff UTF8": "bad \xff utf8",
	}
	for in, want := range cases {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
	// The sigma rule uses ordering-sensitive context; run the pairs in a
	// fixed order as well so a failure names a stable first case.
	if got := Lower("ΣΣ"); got != "σς" {
		t.Errorf("Lower(ΣΣ) = %q, want σς", got)
	}
}

func TestCollapseSpace(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"a b", "a b"},
		{"a  b", "a b"},
		{" a\t\n b ", " a b "},
		{"a\u00a0\u2028b", "a b"},
		{"a\u200bb", "a\u200bb"},
		{"a\x1c\x1fb", "a b"},
		{"bad\xff  x", "bad\xff x"},
	}
	for _, c := range cases {
		if got := CollapseSpace(c.in); got != c.want {
			t.Errorf("CollapseSpace(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"  Actually   Wisdom IS judgment!  ", "wisdom is judgment"},
		{"In fact, x is y.", "x is y"},
		{"no;x is y", "x is y"},
		{"Actually\tx", "actually x"},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStripArticles(t *testing.T) {
	cases := []struct{ in, want string }{
		{"the cat", "cat"}, {"cat the", "cat"}, {"the the", ""}, {"a", ""},
		{"a cat and a dog", "cat and a dog"}, {"the big the", "big"}, {"theory", "theory"},
		{"an a an", "a"},
	}
	for _, c := range cases {
		if got := StripArticles(c.in); got != c.want {
			t.Errorf("StripArticles(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	sentences := []string{
		"Actually, the lens produces a sharp image on the screen.",
		"Light reveals the shape of the room and the color of the walls.",
		"ΛΌΓΟΣ IS ΣΟΦΊΑ",
		"A sentence without any predicate worth keeping at all",
	}
	var total int
	for _, s := range sentences {
		total += len(s)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range sentences {
			Parse(s)
		}
	}
}
