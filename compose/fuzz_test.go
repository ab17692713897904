package compose_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"formation/compose"
)

// bodyGen turns fuzz bytes into a body of maps, lists, strings, booleans,
// integers and nulls. Strings are raw fuzz bytes (possibly invalid UTF-8) or
// picks from a list of spellings that trip YAML loaders.
type bodyGen struct {
	data  []byte
	pos   int
	nodes int
}

func (g *bodyGen) next() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return b
}

func (g *bodyGen) str() string {
	if g.next()%4 == 0 {
		tricky := trickyStrings()
		return tricky[int(g.next())%len(tricky)]
	}
	n := int(g.next() % 32)
	end := min(g.pos+n, len(g.data))
	s := string(g.data[g.pos:end])
	g.pos = end
	return s
}

func trickyStrings() []string {
	return []string{
		"", "TRUE", "False", "YES", "no", "On", "OFF", "y", "N", "null", "NULL", "~", "lens\n", "a:", "a:b",
		"-", "- x", "? q", "#c", "&a", "*a", "!t", "%d", "@x", "`x", "|", ">", "'s'", "\"d\"", "[]", "{}", "<<",
		"0x1F", "0o17", "1e3", ".inf", ".NaN", "+1", "-0", "007", "1_000", "12:30", "2026-05-16", "1.0.0",
		" lead", "trail ", "a #b", "a: b", "\t", "\r\n", "\x00", "\x07", "\x1b", "\x7f", "\u0085", "\u00a0",
		"\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff", "😀", "λόγος", "\\", "\\n", "...", "---", "key\n\n",
	}
}

func (g *bodyGen) value(depth int) any {
	g.nodes++
	op := g.next() % 7
	if depth >= 5 || g.nodes > 300 {
		op %= 3
	}
	switch op {
	case 0:
		return g.str()
	case 1:
		return g.next()%2 == 0
	case 2:
		var b [8]byte
		for i := range b {
			b[i] = g.next()
		}
		return int(int64(binary.LittleEndian.Uint64(b[:])))
	case 3:
		n := int(g.next() % 5)
		l := make([]any, n)
		for i := range l {
			l[i] = g.value(depth + 1)
		}
		return l
	case 4:
		n := int(g.next() % 5)
		m := make(map[string]any, n)
		for i := 0; i < n; i++ {
			m[g.str()] = g.value(depth + 1)
		}
		return m
	case 5:
		return nil
	}
	return g.str()
}

// validUTF8 replaces invalid bytes in every string of v, keys included.
func validUTF8(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToValidUTF8(x, "\ufffd")
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = validUTF8(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ToValidUTF8(k, "\ufffd")] = validUTF8(e)
		}
		return out
	}
	return v
}

// FuzzEmitYAML: for any body of supported values the emitter either refuses
// invalid UTF-8 with a typed error or writes YAML that loads back, with
// yaml.v3, to exactly the same body; and it never panics.
func FuzzEmitYAML(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &bodyGen{data: data}
		body := g.value(0)
		out, err := compose.EmitYAML(body)
		if err != nil {
			var ce *compose.Error
			if !errors.As(err, &ce) || ce.Kind != compose.KindInvalidUTF8 {
				t.Fatalf("unexpected refusal %v", err)
			}
			body = validUTF8(body)
			if out, err = compose.EmitYAML(body); err != nil {
				t.Fatalf("valid body refused: %v", err)
			}
		}
		if len(out) == 0 || out[len(out)-1] != '\n' {
			t.Fatalf("output does not end in a newline: %q", out)
		}
		again, _ := compose.EmitYAML(body)
		if !bytes.Equal(out, again) {
			t.Fatal("emission is not deterministic")
		}
		var back any
		if err := yaml.Unmarshal(out, &back); err != nil {
			t.Fatalf("emitted YAML does not load: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(back, body) {
			t.Fatalf("round trip changed the body\nbody: %#v\nback: %#v\nyaml:\n%s", body, back, out)
		}
	})
}
