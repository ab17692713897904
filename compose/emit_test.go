package compose_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"formation/compose"
)

func emitScalar(t *testing.T, v any) string {
	t.Helper()
	y, err := compose.EmitYAML(map[string]any{"k": v})
	if err != nil {
		t.Fatalf("%q: %v", v, err)
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(y), "k: "), "\n")
}

func TestScalarForms(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		// The original's plain/quoted split, unchanged.
		{"aaaa", "aaaa"},
		{"teaching/review.py", "teaching/review.py"},
		{"course.subject.x.definition.1.0.0", "course.subject.x.definition.1.0.0"},
		{"x:y", "x:y"},
		{"_private", "_private"},
		{"1.0.0", `"1.0.0"`},
		{"2026-05-16T00:00:00Z", `"2026-05-16T00:00:00Z"`},
		{"0000", `"0000"`},
		{"true", `"true"`},
		{"Null", `"Null"`},
		{"", `""`},
		{"two words", `"two words"`},
		{"λόγος", `"λόγος"`},
		{`say "hi" \ bye`, `"say \"hi\" \\ bye"`},
		{"tab\tcr\rnl\n", `"tab\tcr\rnl\n"`},
		{true, "true"},
		{false, "false"},
		{-42, "-42"},
		{int64(9223372036854775807), "9223372036854775807"},
		{nil, "null"},
		// The fixes: YAML 1.1 booleans in every case, a trailing newline,
		// a trailing colon, and controls a reader refuses or folds.
		{"TRUE", `"TRUE"`},
		{"FALSE", `"FALSE"`},
		{"YES", `"YES"`},
		{"NO", `"NO"`},
		{"ON", `"ON"`},
		{"OFF", `"OFF"`},
		{"y", `"y"`},
		{"N", `"N"`},
		{"lens\n", `"lens\n"`},
		{"key:", `"key:"`},
		{"bell\x07", `"bell\x07"`},
		{"nul\x00", `"nul\x00"`},
		{"del\x7f", `"del\x7f"`},
		{"nel\u0085", `"nel\u0085"`},
		{"c1\u009f", `"c1\u009f"`},
		{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`},
		{"bom\ufeff", `"bom\ufeff"`},
		{"nonchar\uffff\ufffe", `"nonchar\uffff\ufffe"`},
		{"astral 😀 nbsp\u00a0", "\"astral 😀 nbsp\u00a0\""},
	}
	for _, c := range cases {
		got := emitScalar(t, c.in)
		if got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
		var back map[string]any
		if err := yaml.Unmarshal([]byte("k: "+got+"\n"), &back); err != nil || !reflect.DeepEqual(back["k"], normalize(c.in)) {
			t.Errorf("%q does not load back: %v, %#v", c.in, err, back["k"])
		}
	}
}

// normalize maps the values the emitter accepts to what yaml.v3 returns.
func normalize(v any) any {
	if n, ok := v.(int64); ok {
		return int(n)
	}
	return v
}

// Every block shape: maps and lists nested in maps, in list items (first and
// later keys), lists of lists, and empty containers in each position.
func TestLayout(t *testing.T) {
	body := map[string]any{
		"b_map":   map[string]any{"y": "1", "x": []any{"p", "q"}},
		"a_empty": map[string]any{},
		"c_list": []any{
			map[string]any{"k": map[string]any{"z": "deep"}, "l": []any{"i1"}, "m": map[string]any{}, "n": []any{}},
			map[string]any{"k": []any{map[string]any{"s": "t"}}},
			map[string]any{"k": map[string]any{}},
			map[string]any{},
			[]any{},
			[]any{"inner", []any{"deeper"}},
			"scalar",
		},
		"d_none": []any{},
	}
	want := "a_empty: {}\n" +
		"b_map:\n" +
		"  x:\n" +
		"  - p\n" +
		"  - q\n" +
		"  \"y\": \"1\"\n" + // y and n are YAML 1.1 booleans: quoted
		"c_list:\n" +
		"- k:\n" +
		"    z: deep\n" +
		"  l:\n" +
		"    - i1\n" +
		"  m: {}\n" +
		"  \"n\": []\n" +
		"- k:\n" +
		"    - s: t\n" +
		"- k: {}\n" +
		"- {}\n" +
		"- []\n" +
		"-\n" +
		"  - inner\n" +
		"  -\n" +
		"    - deeper\n" +
		"- scalar\n" +
		"d_none: []\n"
	got, err := compose.EmitYAML(body)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	var back any
	if err := yaml.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, any(body)) {
		t.Fatalf("does not load back: %v\n%#v", err, back)
	}
	for v, text := range map[string]any{"{}\n": map[string]any{}, "[]\n": []any{}, "- a\n": []any{"a"}, "plain\n": "plain"} {
		if got, err := compose.EmitYAML(text); err != nil || string(got) != v {
			t.Errorf("top-level %#v: %q, %v", text, got, err)
		}
	}
}

func TestEmitRefusals(t *testing.T) {
	cases := []struct {
		body any
		kind compose.Kind
		path string
	}{
		{map[string]any{"a": []any{1, map[string]any{"b": 1.5}}}, compose.KindUnsupportedValue, `$."a"[1]."b"`},
		{map[string]any{"a": float32(1)}, compose.KindUnsupportedValue, `$."a"`},
		{map[string]any{"a": struct{}{}}, compose.KindUnsupportedValue, `$."a"`},
		{map[string]any{"a": []string{"typed lists are not body values"}}, compose.KindUnsupportedValue, `$."a"`},
		{map[string]any{"a": "bad \xff"}, compose.KindInvalidUTF8, `$."a"`},
		{map[string]any{"bad \xff": "x"}, compose.KindInvalidUTF8, `$."bad \xff"`},
		{[]any{map[string]any{strings.Repeat("k", 1001): 1}}, compose.KindKeyTooLong, "$[0]"},
	}
	for _, c := range cases {
		_, err := compose.EmitYAML(c.body)
		var ce *compose.Error
		if !errors.As(err, &ce) || ce.Kind != c.kind || ce.Path != c.path {
			t.Errorf("%#v: got %v, want %s at %s", c.body, err, c.kind, c.path)
		}
	}
	if _, err := compose.EmitYAML(map[string]any{strings.Repeat("k", 1000): 1}); err != nil {
		t.Errorf("a 1000-byte key must pass: %v", err)
	}
}
