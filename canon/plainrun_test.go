package canon

import (
	"math/rand"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// plainRunByBytes is plainRun written the obvious way.
func plainRunByBytes(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

// byteLoopString is the string reader as it was before plainRun: a byte
// loop to the closing quote, then one UTF-8 check, or slowString.
func byteLoopString(d *decoder) (string, error) {
	d.pos++
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := d.data[start:d.pos]
			if !utf8.Valid(s) {
				return "", &Error{Kind: KindInvalidUTF8, Offset: start, Msg: "string is not valid UTF-8"}
			}
			d.pos++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", d.fail(KindSyntax, "raw control character in string")
		}
		d.pos++
	}
	return d.slowString(start)
}

// randomStringBody mixes plain ASCII with every kind of byte that stops a
// plain run, at every position relative to an eight-byte word.
func randomStringBody(rng *rand.Rand) []byte {
	stops := []byte{'"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xa9, 0xff, 0x20, 0x21, 0x5b, 0x5d, 'n', 'u'}
	b := make([]byte, rng.Intn(40))
	for i := range b {
		if rng.Intn(6) == 0 {
			b[i] = stops[rng.Intn(len(stops))]
		} else {
			b[i] = byte(0x20 + rng.Intn(0x5f))
		}
	}
	return b
}

func TestPlainRunAgreesWithByteLoop(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for range 50000 {
		b := randomStringBody(rng)
		if got, want := plainRun(b), plainRunByBytes(b); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
		}
	}
}

// checkStringReaders reads data (a quote, then anything) with the string
// reader and with the byte loop it replaced: same value, same error, same
// position afterwards.
func checkStringReaders(t *testing.T, data []byte) {
	t.Helper()
	fast, slow := &decoder{data: data}, &decoder{data: data}
	got, gerr := fast.string()
	want, werr := byteLoopString(slow)
	if got != want || (gerr == nil) != (werr == nil) || fast.pos != slow.pos {
		t.Fatalf("%q: read %q, %v at %d; the byte loop read %q, %v at %d", data, got, gerr, fast.pos, want, werr, slow.pos)
	}
	if gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, the byte loop's %v", data, gerr, werr)
	}
}

func TestStringReaderAgreesWithByteLoop(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for range 50000 {
		body := randomStringBody(rng)
		checkStringReaders(t, append(append([]byte{'"'}, body...), '"'))
		checkStringReaders(t, append([]byte{'"'}, body...)) // maybe unterminated
	}
}

// FuzzStringReader holds the string reader equal to the byte loop on any
// bytes after an opening quote.
func FuzzStringReader(f *testing.F) {
	for _, s := range []string{`"plain"`, `"0123456789abcdef0123456789abcdef"`, `"caf` + "\xc3\xa9" + `"`, `"a\"b"`, `"a\\u00e9"`,
		"\"\x01\"", "\"12345678\xff\"", `"unterminated`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkStringReaders(t, append([]byte{'"'}, body...))
	})
}

// SharedString reads what String reads, and hands out one string for a
// value that repeats.
func TestSharedStringAgreesWithString(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for range 2000 {
		doc := []byte{'['}
		var bodies [][]byte
		for i := range 1 + rng.Intn(30) {
			if i > 0 {
				doc = append(doc, ',')
			}
			body := randomStringBody(rng)
			if len(bodies) > 0 && rng.Intn(2) == 0 {
				body = bodies[rng.Intn(len(bodies))] // a repeat
			}
			bodies = append(bodies, body)
			doc = append(append(append(doc, '"'), body...), '"')
		}
		doc = append(doc, ']')
		plain, shared := NewLexer(doc), NewLexer(doc)
		var a, b []string
		okA := plain.Array(func() bool { s, ok := plain.String(); a = append(a, s); return ok })
		okB := shared.Array(func() bool { s, ok := shared.SharedString(); b = append(b, s); return ok })
		if okA != okB || len(a) != len(b) || plain.d.pos != shared.d.pos {
			t.Fatalf("%q: String read %q (%v), SharedString %q (%v)", doc, a, okA, b, okB)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%q: value %d: String %q, SharedString %q", doc, i, a[i], b[i])
			}
		}
	}
	// Values that meet in one slot (same length, same first, middle and
	// last bytes) stay themselves.
	l := NewLexer([]byte(`["a000b000c","a111b111c","a000b000c"]`))
	var met []string
	l.Array(func() bool { s, ok := l.SharedString(); met = append(met, s); return ok })
	if len(met) != 3 || met[0] != "a000b000c" || met[1] != "a111b111c" || met[2] != "a000b000c" {
		t.Fatalf("values that share a slot read as %q", met)
	}
	l = NewLexer([]byte(`["0123456789abcdef","0123456789abcdef"]`))
	var got []string
	l.Array(func() bool { s, ok := l.SharedString(); got = append(got, s); return ok })
	if len(got) != 2 || unsafe.StringData(got[0]) != unsafe.StringData(got[1]) {
		t.Fatalf("a repeated value is not shared: %q", got)
	}
}
