package canon_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"

	"formation/canon"
)

func TestLiteralDigests(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"a": 1}, "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"},
		{map[string]any{}, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
	} {
		got, err := canon.SHA256Hex(c.v)
		if err != nil || got != c.want {
			t.Fatalf("SHA256Hex(%v) = %s, %v; want %s", c.v, got, err, c.want)
		}
	}
}

func TestDecodeRejections(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		kind canon.Kind
	}{
		{"duplicate key", `{"a":1,"a":2}`, canon.KindDuplicateKey},
		{"nested duplicate", `{"x":{"b":1,"b":1}}`, canon.KindDuplicateKey},
		{"invalid utf8", "\"\xff\"", canon.KindInvalidUTF8},
		{"invalid utf8 escaped path", "\"\\n\xc3\"", canon.KindInvalidUTF8},
		{"overlong utf8", "\"\xc0\xaf\"", canon.KindInvalidUTF8},
		{"trailing data", `{} {}`, canon.KindTrailingData},
		{"trailing garbage", `1x`, canon.KindTrailingData},
		{"exponent", `1e3`, canon.KindFloat},
		{"fraction", `[0.0]`, canon.KindFloat},
		{"lone high surrogate then text", `"\ud800x"`, canon.KindInvalidUnicode},
		{"high then high", `"\ud800\ud800"`, canon.KindInvalidUnicode},
		{"raw control char", "\"a\x01\"", canon.KindSyntax},
		{"leading zero", `01`, canon.KindSyntax},
		{"empty", ``, canon.KindSyntax},
		{"unterminated", `{"a":`, canon.KindSyntax},
		{"single quotes", `{'a':1}`, canon.KindSyntax},
		{"bad escape", `"\x"`, canon.KindSyntax},
		{"too deep", deep(canon.MaxDepth + 1), canon.KindDepth},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := canon.Decode([]byte(c.in))
			if !canon.IsKind(err, c.kind) {
				t.Fatalf("Decode(%q) = %v, want kind %s", c.in, err, c.kind)
			}
			if !errors.Is(err, &canon.Error{Kind: c.kind}) {
				t.Fatal("errors.Is does not match the kind")
			}
		})
	}
	if _, err := canon.Decode([]byte(deep(canon.MaxDepth))); err != nil {
		t.Fatalf("depth at the limit refused: %v", err)
	}
}

func deep(n int) string {
	b := make([]byte, 0, 2*n)
	for i := 0; i < n; i++ {
		b = append(b, '[')
	}
	for i := 0; i < n; i++ {
		b = append(b, ']')
	}
	return string(b)
}

func TestTolerantReadsFloatsButNeverEncodesThem(t *testing.T) {
	v, err := canon.DecodeTolerant([]byte(`{"alignment_threshold":0.45,"n":1e3}`))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*canon.Object)
	if f, _ := o.Get("alignment_threshold"); f != canon.Float("0.45") {
		t.Fatalf("got %#v", f)
	}
	if _, err := canon.Marshal(v); !canon.IsKind(err, canon.KindFloat) {
		t.Fatalf("marshal of a Float: %v", err)
	}
}

type inner struct {
	Span string `json:"span"`
}

type sample struct {
	Zeta    string         `json:"zeta"`
	Alpha   int64          `json:"alpha"`
	Opt     string         `json:"opt,omitempty"`
	List    []inner        `json:"list"`
	Big     *big.Int       `json:"big,omitempty"`
	Any     any            `json:"any,omitempty"`
	Meta    map[string]int `json:"meta,omitempty"`
	private int
}

func TestStructEncoding(t *testing.T) {
	s := sample{Zeta: "z<&>\u2028", Alpha: -3, List: []inner{{Span: "a\x01\"b"}}, Big: new(big.Int).Lsh(big.NewInt(1), 70), Meta: map[string]int{"b": 2, "a": 1}}
	got, err := canon.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"alpha":-3,"big":1180591620717411303424,"list":[{"span":"a\u0001\"b"}],"meta":{"a":1,"b":2},"zeta":"z<&>` + "\u2028" + `"}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := canon.Marshal(struct {
		X float64 `json:"x"`
	}{1}); !canon.IsKind(err, canon.KindFloat) {
		t.Fatalf("float field: %v", err)
	}
	if _, err := canon.Marshal(map[int]string{1: "x"}); !canon.IsKind(err, canon.KindNonStringKey) {
		t.Fatalf("int key: %v", err)
	}
	if _, err := canon.Marshal("\xff"); !canon.IsKind(err, canon.KindInvalidUTF8) {
		t.Fatalf("invalid utf8: %v", err)
	}
	_, err = canon.Marshal(map[string]any{"a": []any{1, map[string]any{"b": 2.5}}})
	var ce *canon.Error
	if !errors.As(err, &ce) || ce.Path != "a.1.b" {
		t.Fatalf("path of nested float: %v", err)
	}
}

func TestUnmarshalStrict(t *testing.T) {
	var s sample
	if err := canon.Unmarshal([]byte(`{"alpha":1,"zeta":"z","list":[{"span":"x"}],"any":{"k":[1]}}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Alpha != 1 || s.List[0].Span != "x" {
		t.Fatalf("decoded %+v", s)
	}
	back, _ := canon.Marshal(s)
	if string(back) != `{"alpha":1,"any":{"k":[1]},"list":[{"span":"x"}],"zeta":"z"}` {
		t.Fatalf("round trip %s", back)
	}
	for _, bad := range []string{
		`{"alpha":1,"zeta":"z","list":[],"extra":1}`,          // unknown field
		`{"alpha":1,"list":[]}`,                               // missing required
		`{"alpha":"1","zeta":"z","list":[]}`,                  // wrong type
		`{"alpha":99999999999999999999,"zeta":"z","list":[]}`, // overflow
		`{"alpha":1,"zeta":"z","list":null}`,                  // null slice
		`{"alpha":1,"zeta":"z","list":[{"Span":"x"}]}`,        // case must match
	} {
		if err := canon.Unmarshal([]byte(bad), &s); !canon.IsKind(err, canon.KindSchema) {
			t.Errorf("Unmarshal(%s) = %v, want schema error", bad, err)
		}
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A struct's map[string]any field takes the generic encoder's path: its
// bytes, and its errors with their paths, are those of the same map
// encoded on its own.
func TestStructMapFieldMatchesGenericMap(t *testing.T) {
	type holder struct {
		M map[string]any `json:"m"`
	}
	for _, m := range []map[string]any{
		nil,
		{},
		{"b": "2", "a": int64(1), "c": []any{"x", map[string]any{"z": true, "y": nil}}},
		{"é": "ünïcode", "\"q\"": "tab\there", "k": canon.Number("12")},
		{"bad": string([]byte{0xff})},
		{"f": 1.5},
	} {
		got, gotErr := canon.Marshal(holder{M: m})
		want, wantErr := canon.Marshal(map[string]any{"m": m})
		if string(got) != string(want) || (gotErr == nil) != (wantErr == nil) ||
			gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%v: struct field gives %s, %v; map gives %s, %v", m, got, gotErr, want, wantErr)
		}
	}
}
