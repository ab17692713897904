package canon_test

import (
	"bytes"
	"strings"
	"testing"

	"formation/canon"
)

// agreeOnCanonical fails t unless Lexer.Canonical accepts data exactly when
// data is, but for the whitespace a Lexer skips around a value, the
// canonical bytes of the value Decode reads from it (a key written with an
// escape may be declined), and then reports the nesting depth Decode counts.
func agreeOnCanonical(t *testing.T, data []byte) {
	t.Helper()
	l := canon.NewLexer(data)
	data = bytes.Trim(data, " \t\n\r")
	raw, deepest, ok := l.Canonical(0)
	ok = ok && l.End()
	g, err := canon.Decode(data)
	var enc []byte
	if err == nil {
		enc, err = canon.Marshal(g)
	}
	canonical := err == nil && bytes.Equal(enc, data)
	switch {
	case ok && !canonical:
		t.Fatalf("accepted %q, which is not canonical (%q, %v)", data, enc, err)
	case ok && !bytes.Equal(raw, data):
		t.Fatalf("accepted %q as %q", data, raw)
	case ok && deepest != nesting(data):
		t.Fatalf("%q: deepest %d, nested %d", data, deepest, nesting(data))
	case !ok && canonical && !bytes.Contains(data, []byte(`\`)):
		t.Fatalf("declined canonical %q", data)
	}
}

// nesting is the depth of the deepest container of canonical bytes.
func nesting(data []byte) int {
	d, deepest, in := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

var canonicalSeeds = []string{
	`{}`, `[]`, `{"a":1,"b":[true,false,null,"x\u00e9\n"]}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, `-0`, `0`, `-1`, `01`, `1.5`, `1e3`,
	`123456789012345678901234567890`, `"\ud83d\ude00"`, `"😀"`, `"\u001f\u007f"`, "\"\x7f\"", `"\u000a"`, `"\n\t\b\f\r\"\\"`,
	`"\/"`, `"\u001F"`, "\"\xff\"", `{"a":{"a":{"a":[]}}}`, ` [1,2] `, `[1, 2]`, `{"a" :1}`, `[1,]`, `{"\n":1,"a":2}`, `"a`, `[`,
	`{"head":"term0","relation":"causes","tail":"term1","utterance":"What does term0 causes?"}`, `truex`, `nul`, `"` + "\x01" + `"`,
}

func TestCanonicalAgreesWithMarshal(t *testing.T) {
	for _, s := range canonicalSeeds {
		agreeOnCanonical(t, []byte(s))
	}
	for _, n := range []int{canon.MaxDepth, canon.MaxDepth + 1} {
		agreeOnCanonical(t, []byte(strings.Repeat("[", n)+strings.Repeat("]", n)))
	}
	// The depth counts from the containers the value sits in.
	inner := strings.Repeat("[", 10) + strings.Repeat("]", 10)
	if _, d, ok := canon.NewLexer([]byte(inner)).Canonical(canon.MaxDepth - 10); !ok || d != canon.MaxDepth {
		t.Fatalf("at the limit: %d %v", d, ok)
	}
	if _, _, ok := canon.NewLexer([]byte(inner)).Canonical(canon.MaxDepth - 9); ok {
		t.Fatal("accepted a value nested past the limit")
	}
	if _, d, ok := canon.NewLexer([]byte(`"x"`)).Canonical(3); !ok || d != 3 {
		t.Fatalf("a scalar at depth 3: %d %v", d, ok)
	}
	// Every control character, as Marshal writes it.
	for c := 0; c < 0x20; c++ {
		enc, err := canon.Marshal(string(rune(c)))
		if err != nil {
			t.Fatal(err)
		}
		agreeOnCanonical(t, enc)
		if _, _, ok := canon.NewLexer(enc).Canonical(0); !ok {
			t.Fatalf("declined %q", enc)
		}
	}
}

// FuzzCanonical: Lexer.Canonical never panics and accepts only canonical
// bytes, all of them but those with an escaped key.
func FuzzCanonical(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(agreeOnCanonical)
}
