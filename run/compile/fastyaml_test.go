package compile_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"formation/compose"
	"formation/internal/testutil"
	"formation/run/compile"
)

// sameAsYAML parses b both ways and fails unless the one-pass reader takes
// it and yields yaml.v3's tree.
func sameAsYAML(t *testing.T, name string, b []byte) any {
	t.Helper()
	fast, ok := compile.FastParse(b)
	if !ok {
		t.Fatalf("%s: the fast path refused:\n%s", name, b)
	}
	for _, workers := range []int{2, 3} {
		if split, ok := compile.FastParseSplit(b, workers, 2); !ok || !reflect.DeepEqual(split, fast) {
			t.Fatalf("%s: read in %d parts: %v %#v; in one: %#v\n%s", name, workers, ok, split, fast, b)
		}
	}
	slow, err := compile.ParseYAML(b)
	if err != nil {
		t.Fatalf("%s: yaml.v3 refused what the fast path took: %v\n%s", name, err, b)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s: trees differ\nfast: %#v\nyaml: %#v\n%s", name, fast, slow, b)
	}
	return fast
}

// treeGen makes random course-like trees: nested mappings and lists of
// strings of every kind of character, ints, bools and nulls.
type treeGen struct{ r *rand.Rand }

// pieces are the string fragments random strings are built from: the
// characters and words a YAML reader treats specially among them.
var pieces = []string{
	"a", "Z", "_", "term0000001", "x.y/z:w-v", "0", "42", "-", ".", "/", ":", ": ", " :", "#", " #", "-- ",
	" ", "  ", "\t", "\n", "\r", "\r\n", "\x00", "\x01", "\x1b", "\x7f", "\u0080", "\u0085", "\u009f", "\u00a0",
	"\"", "\\", "'", "\\n", "\\\"", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@", "`", "?",
	"é", "中文", "😀", "\u2028", "\u2029", "\ufeff", "\ufffd", "\ufffe", "\uffff", "\U0010ffff", "\ud7ff", "\ue000",
	"yes", "no", "on", "off", "y", "N", "true", "True", "TRUE", "false", "null", "Null", "NULL", "~", "<<",
	"1.5", "0x1f", "0o17", "012", "1_000", "+1", ".inf", ".nan", "2001-12-14", "1e3", "---", "...",
}

func (g treeGen) str() string {
	var b strings.Builder
	for n := g.r.IntN(4); n >= 0; n-- {
		if g.r.IntN(3) == 0 {
			b.WriteString(pieces[g.r.IntN(len(pieces))])
		} else {
			b.WriteString("abcXYZ_09"[g.r.IntN(9):][:1])
		}
	}
	if g.r.IntN(10) == 0 {
		return ""
	}
	return b.String()
}

func (g treeGen) integer() any {
	switch g.r.IntN(8) {
	case 0:
		return math.MaxInt64
	case 1:
		return int64(math.MinInt64)
	case 2:
		return -g.r.IntN(300)
	case 3:
		return g.r.IntN(300)
	case 4:
		return g.r.Int64()
	default:
		return int(g.r.Int64() >> g.r.IntN(63))
	}
}

func (g treeGen) scalar() any {
	switch g.r.IntN(8) {
	case 0:
		return g.integer()
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return nil
	}
	return g.str()
}

func (g treeGen) node(depth int) any {
	if depth <= 0 {
		return g.scalar()
	}
	switch g.r.IntN(4) {
	case 0:
		return g.scalar()
	case 1:
		l := make([]any, g.r.IntN(5))
		for i := range l {
			l[i] = g.node(depth - 1)
		}
		return l
	}
	m := map[string]any{}
	for n := g.r.IntN(6); n > 0; n-- {
		m[g.str()] = g.node(depth - 1)
	}
	return m
}

// normal is v as a YAML reader gives it back: int64 values as int.
func normal(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normal(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normal(e)
		}
		return out
	}
	return v
}

// Random trees written by the compose emitter take the fast path and read
// back, through it and through yaml.v3, as the same tree: the tree written.
func TestFastParseEmitted(t *testing.T) {
	g := treeGen{rand.New(rand.NewPCG(12, 2026))}
	for i := range 4000 {
		tree := g.node(1 + i%6)
		b, err := compose.EmitYAML(tree)
		if err != nil {
			t.Fatalf("tree %d: %v", i, err)
		}
		if got := sameAsYAML(t, "tree", b); !reflect.DeepEqual(got, normal(tree)) {
			t.Fatalf("tree %d read back as %#v, written %#v\n%s", i, got, tree, b)
		}
	}
}

// Every course of the compose vectors that yaml.v3 reads takes the fast
// path to yaml.v3's tree; the one it refuses (the original's raw control
// characters) falls back.
func TestFastParseVectorCourses(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testutil.Vector(t, "compose"), "*.course.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vector courses (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := compile.ParseYAML(b); err != nil {
			if _, ok := compile.FastParse(b); ok {
				t.Errorf("%s: the fast path took what yaml.v3 refuses (%v)", filepath.Base(f), err)
			}
			continue
		}
		sameAsYAML(t, filepath.Base(f), b)
	}
}

// Hand-written YAML inside the subset takes the fast path whatever its key
// order and list placement.
func TestFastParseHandWritten(t *testing.T) {
	for name, y := range map[string]string{
		"unsorted keys":                     "zeta: 1\nalpha: two\nmid:\n  b: true\n  a: false\n",
		"list under key, indented":          "k:\n  - a\n  - b: 1\n    a: 2\n",
		"list under key, same column":       "k:\n- a\n- b\nnext: x\n",
		"list in item mapping, same column": "- b: 1\n  a:\n  - x\n  - w\n  c: null\n- z\n",
		"nested dash lines":                 "-\n  - -1\n  -\n    - {}\n- []\n",
		"item mapping under dash line":      "-\n  b: 1\n  a: 2\n",
		"quoted keys and escapes":           "\"b c\": \"\\x41\\u00e9\\t\\\"\\\\\"\n\"\": \"\"\n\"yes\": \"null\"\n",
		"upper-case hex escapes":            "k: \"\\xFF\\uABCD\"\n",
		"raw unicode":                       "k: \"é中😀\"\n",
		"plain with colons":                 "a:b: c:d/e.f-g_h\n",
		"extreme ints":                      "a: -9223372036854775808\nb: 9223372036854775807\nc: 0\nd: -1\n",
		"top-level scalar":                  "just_a_word\n",
		"top-level list":                    "- 1\n- true\n- null\n",
	} {
		sameAsYAML(t, name, []byte(y))
	}
}

// Every input outside the subset falls back to yaml.v3, valid YAML or not;
// Compile's result is then yaml.v3's.
func TestFastParseFallsBack(t *testing.T) {
	for name, y := range map[string]string{
		"comment":                 "a: b # note\n",
		"comment line":            "# note\na: b\n",
		"blank line":              "a: b\n\nc: d\n",
		"tab indentation":         "a:\n\tb: c\n",
		"tab after colon":         "a:\tb\n",
		"two spaces after colon":  "a:  b\n",
		"trailing space":          "a: b \n",
		"CRLF":                    "a: b\r\n",
		"byte-order mark":         "\ufeffa: b\n",
		"document start":          "---\na: b\n",
		"document end":            "a: b\n...\n",
		"second document":         "a: b\n---\nc: d\n",
		"anchor and alias":        "a: &x b\nc: *x\n",
		"tag":                     "a: !!str 1\n",
		"flow mapping":            "a: {b: c}\n",
		"flow sequence":           "a: [b]\n",
		"block scalar":            "a: |\n  text\n",
		"multi-line plain":        "a: b\n  c\n",
		"multi-line quoted":       "a: \"b\n  c\"\n",
		"single quotes":           "a: 'b'\n",
		"other escape":            "a: \"\\a\"\n",
		"\\U escape":              "a: \"\\U0001F600\"\n",
		"surrogate escape":        "a: \"\\ud800\"\n",
		"short escape":            "a: \"\\x4\"\n",
		"raw tab in quotes":       "a: \"b\tc\"\n",
		"raw NEL in quotes":       "a: \"b\u0085c\"\n",
		"raw LS in quotes":        "a: \"b\u2028c\"\n",
		"raw BOM in quotes":       "a: \"b\ufeffc\"\n",
		"raw C1 in quotes":        "a: \"b\u0090c\"\n",
		"invalid UTF-8":           "a: \"b\xffc\"\n",
		"duplicate key":           "a: 1\na: 2\n",
		"duplicate quoted key":    "a: 1\n\"a\": 2\n",
		"odd indentation":         "a:\n   b: c\n",
		"four-space indentation":  "a:\n    b: c\n",
		"under-indented":          "a:\n b: c\n",
		"over-indented sibling":   "a: 1\n  b: 2\n",
		"empty value":             "a:\nb: c\n",
		"empty item":              "-\n- a\n",
		"compact nested list":     "- - a\n",
		"no final newline":        "a: b",
		"empty document":          "",
		"only a newline":          "\n",
		"leading indentation":     "  a: b\n",
		"plain with space":        "a: b c\n",
		"plain starting with dot": "a: .b\n",
		"plain ending in colon":   "a: b:\n",
		"reserved word":           "a: yes\n",
		"title-case bool":         "a: True\n",
		"tilde null":              "a: ~\n",
		"float":                   "a: 1.5\n",
		"leading zero":            "a: 012\n",
		"plus sign":               "a: +1\n",
		"minus zero":              "a: -0\n",
		"hex int":                 "a: 0x1f\n",
		"underscore int":          "a: 1_000\n",
		"int overflow":            "a: 9223372036854775808\n",
		"negative overflow":       "a: -9223372036854775809\n",
		"twenty digits":           "a: 10000000000000000000\n",
		"timestamp":               "a: 2001-12-14\n",
		"int key":                 "1: a\n",
		"bool key":                "true: a\n",
		"null key":                "null: a\n",
		"merge key":               "<<: a\n",
		"explicit key":            "? a\n: b\n",
		"long key":                strings.Repeat("k", 1001) + ": v\n",
		"deep nesting":            deepYAML(maxDepthTest),
		"key then dash":           "a: - b\n",
		"mapping after list":      "- a\nb: c\n",
		"blank line in a list":    "k:\n- a\n- b\n\n- c\n",
		"item deeper than dash":   "k:\n- a\n - b\n- c\n",
		"stray line after list":   "k:\n  - a\n  - b\n  - c\n x: 1\n",
	} {
		b := []byte(y)
		if v, ok := compile.FastParse(b); ok {
			t.Errorf("%s: the fast path took %q as %#v", name, y, v)
			continue
		}
		if v, ok := compile.FastParseSplit(b, 3, 2); ok {
			t.Errorf("%s: the fast path in parts took %q as %#v", name, y, v)
			continue
		}
		got, err := compile.Parse(b)
		doc, yerr := compile.ParseYAML(b)
		if m, isMap := doc.(map[string]any); yerr == nil && isMap {
			if err != nil || !reflect.DeepEqual(got, m) {
				t.Errorf("%s: parse gave %#v, %v; yaml.v3 %#v", name, got, err, m)
			}
		} else if err == nil || yerr != nil && err.Error() != yerr.Error() {
			t.Errorf("%s: parse gave %#v, %v; yaml.v3 %#v, %v", name, got, err, doc, yerr)
		}
	}
}

const maxDepthTest = 1001

// deepYAML nests n mappings.
func deepYAML(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "k:\n")
	}
	b.WriteString(strings.Repeat("  ", n) + "k: v\n")
	return b.String()
}

// FuzzFastParse: whatever bytes the fast path takes, yaml.v3 takes too and
// reads as the same tree; the fast path never panics.
func FuzzFastParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := compile.FastParse(data)
		split, splitOK := compile.FastParseSplit(data, 3, 2)
		if splitOK != ok || !reflect.DeepEqual(split, fast) {
			t.Fatalf("read in parts: %v %#v; in one: %v %#v\n%q", splitOK, split, ok, fast, data)
		}
		if !ok {
			return
		}
		slow, err := compile.ParseYAML(data)
		if err != nil {
			t.Fatalf("yaml.v3 refused what the fast path took: %v\n%q", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("trees differ\nfast: %#v\nyaml: %#v\n%q", fast, slow, data)
		}
	})
}
