package canon_test

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"formation/canon"
)

// FuzzDecode: the decoder never panics; whatever it accepts re-encodes to
// canonical bytes that decode to the same value (decode∘encode is the
// identity on canonical input) and encoding is idempotent.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"b":1,"a":[true,false,null,"x\u00e9\n"]}`, `-0`, `123456789012345678901234567890`,
		`"\ud83d\ude00"`, `{"a":{"a":{"a":[]}}}`, `1.5`, `{"a":1,"a":2}`, "\"\xff\"", `"\ud800"`, ` [ 1 , 2 ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canon.Decode(data)
		if err != nil {
			if _, ok := err.(*canon.Error); !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		enc, err := canon.Marshal(v)
		if err != nil {
			t.Fatalf("accepted value does not encode: %v", err)
		}
		v2, err := canon.Decode(enc)
		if err != nil {
			t.Fatalf("canonical bytes do not decode: %v\n%q", err, enc)
		}
		enc2, err := canon.Marshal(v2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encode∘decode not idempotent:\n%q\n%q", enc, enc2)
		}
		if d, _ := canon.SHA256Hex(v); len(d) != 64 {
			t.Fatal("digest")
		}
	})
}

// The eight-bytes-at-a-time fast path must agree with the byte loop: compare
// the encoding of random strings with a reference built byte by byte.
func TestStringFastPathAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("ab\"\\\x00\x1f\x20\x7f/<>\t\n")
	for i := 0; i < 20000; i++ {
		n := rng.Intn(40)
		b := make([]byte, n)
		for j := range b {
			if rng.Intn(3) == 0 {
				b[j] = alphabet[rng.Intn(len(alphabet))]
			} else {
				b[j] = byte(0x20 + rng.Intn(0x5f))
			}
		}
		got, err := canon.Marshal(string(b))
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceQuote(string(b)); string(got) != want {
			t.Fatalf("%q: got %s want %s", b, got, want)
		}
	}
}

func referenceQuote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			sb.WriteString(`\"`)
		case c == '\\':
			sb.WriteString(`\\`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c == '\b':
			sb.WriteString(`\b`)
		case c == '\f':
			sb.WriteString(`\f`)
		case c < 0x20:
			sb.WriteString(`\u00`)
			sb.WriteByte("0123456789abcdef"[c>>4])
			sb.WriteByte("0123456789abcdef"[c&15])
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// Streaming SHA256Hex (chunked, pipelined) equals hashing Marshal's bytes,
// across the chunk boundary.
func TestStreamingDigestEqualsWholeDigest(t *testing.T) {
	big := make([]any, 0, 5000)
	for i := 0; i < 5000; i++ {
		big = append(big, map[string]any{"i": i, "s": strings.Repeat("x\u00e9\"", i%50)})
	}
	whole, _ := canon.Marshal(big)
	if len(whole) < 200<<10 {
		t.Fatalf("test value too small: %d", len(whole))
	}
	got, err := canon.SHA256Hex(big)
	if err != nil {
		t.Fatal(err)
	}
	if got != sha256Hex(whole) {
		t.Fatal("streamed digest differs")
	}
	// An error midway leaves no goroutine behind and reports the error.
	big = append(big, 1.5)
	if _, err := canon.SHA256Hex(big); !canon.IsKind(err, canon.KindFloat) {
		t.Fatalf("got %v", err)
	}
}
