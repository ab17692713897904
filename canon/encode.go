package canon

import (
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal returns the canonical bytes of v.
//
// Accepted: nil, bool, string, every Go integer type, Number, *big.Int,
// slices and arrays, maps with string keys, *Object, structs (fields named by
// their `json` tag; `omitempty` drops zero values; untagged exported fields use
// the Go name; `-` skips; a nil slice is written [] and a nil map {}, since
// an artifact's lists are never absent), pointers and interfaces to any of these. Floats,
// Float, non-string map keys, invalid UTF-8 and any other type are refused
// with a *Error.
func Marshal(v any) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 512)}
	if err := e.encode(v); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// AppendMarshal appends the canonical bytes of v to dst.
func AppendMarshal(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst}
	if err := e.encode(v); err != nil {
		return dst, err
	}
	return e.buf, nil
}

// AppendString appends the canonical form of the string s to dst: the bytes
// Marshal writes for s. It is for writers that assemble a large artifact's
// canonical bytes piece by piece instead of building the value first; such a
// writer's output must be tested equal to Marshal's.
func AppendString(dst []byte, s string) ([]byte, error) {
	if plainASCII(s) { // what e.str does first, without an encoder around it
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"'), nil
	}
	out, err := appendEscaped(dst, s)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// SHA256Hex is the lowercase hex SHA-256 of Marshal(v): the identity of v.
// It streams the canonical bytes through the hash in chunks instead of
// building them whole, which matters for multi-megabyte artifacts.
func SHA256Hex(v any) (string, error) {
	pipe := newHashPipe()
	e := encoder{buf: make([]byte, 0, 512), pipe: pipe} // grows to flushAt only for large values
	if err := e.encode(v); err != nil {
		pipe.abort()
		return "", err
	}
	return pipe.finish(e.buf), nil
}

// flushAt is the chunk size at which a streaming encoder hands its bytes on.
const flushAt = 64 << 10

// encoder writes one value. With a hash pipe, the buffer is handed to it
// whenever it passes flushAt.
type encoder struct {
	buf  []byte
	pipe *hashPipe
}

func (e *encoder) maybeFlush() {
	if e.pipe != nil && len(e.buf) >= flushAt {
		e.buf = e.pipe.handOff(e.buf)
	}
}

func (e *encoder) encode(v any) error {
	// Fast paths for the generic values Decode produces and the common leaves.
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
		return nil
	case string:
		return e.str(x)
	case bool:
		e.bool(x)
		return nil
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
		return nil
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
		return nil
	case Number:
		return e.number(x)
	case *Object:
		return e.object(x)
	case []any:
		return e.anySlice(x)
	case map[string]any:
		return e.anyMap(x)
	case Float, float32, float64:
		return encodeErr(KindFloat, "", "float values are forbidden in hashed payloads; encode numbers as strings or integers")
	case json.Number:
		return e.jsonNumber(x)
	case *big.Int:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		e.buf = x.Append(e.buf, 10)
		return nil
	}
	return e.reflectValue(reflect.ValueOf(v))
}

func (e *encoder) bool(b bool) {
	if b {
		e.buf = append(e.buf, "true"...)
	} else {
		e.buf = append(e.buf, "false"...)
	}
}

func (e *encoder) number(n Number) error {
	if !validIntText(string(n)) {
		return encodeErr(KindSyntax, "", "Number is not integer text: "+strconv.Quote(string(n)))
	}
	if n == "-0" {
		n = "0"
	}
	e.buf = append(e.buf, n...)
	return nil
}

func (e *encoder) jsonNumber(n json.Number) error {
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		return encodeErr(KindFloat, "", "float values are forbidden in hashed payloads; encode numbers as strings or integers")
	}
	return e.number(Number(s))
}

// validIntText accepts -?(0|[1-9][0-9]*).
func validIntText(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (e *encoder) object(o *Object) error {
	if o == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	e.buf = append(e.buf, '{')
	for i, k := range o.SortedKeys() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.str(k); err != nil {
			return withPath(err, k)
		}
		e.buf = append(e.buf, ':')
		if err := e.encode(o.vals[k]); err != nil {
			return withPath(err, k)
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// smallMap is the number of entries anyMap sorts in a buffer on the stack:
// a plan step's payload and a run event have fewer, and each map used to
// cost a key list on the heap.
const smallMap = 16

// entry is one key of a map with its value, so that writing the sorted keys
// looks no value up again.
type entry struct {
	k string
	v any
}

func (e *encoder) anyMap(m map[string]any) error {
	var small [smallMap]entry
	entries := small[:0]
	if len(m) > smallMap {
		entries = make([]entry, 0, len(m))
	}
	for k, v := range m {
		entries = append(entries, entry{k, v})
	}
	// Keys are distinct, so the order is total and the sort's stability
	// does not matter; byte order is code-point order in UTF-8.
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.k, b.k) })
	e.buf = append(e.buf, '{')
	for i := range entries {
		kv := &entries[i]
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.str(kv.k); err != nil {
			return withPath(err, kv.k)
		}
		e.buf = append(e.buf, ':')
		if err := e.encode(kv.v); err != nil {
			return withPath(err, kv.k)
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *encoder) anySlice(s []any) error {
	e.buf = append(e.buf, '[')
	for i, v := range s {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.encode(v); err != nil {
			return withPath(err, strconv.Itoa(i))
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// withPath prefixes the JSON path of a nested encode error as it unwinds.
func withPath(err error, seg string) error {
	ce, ok := err.(*Error)
	if !ok || ce.Offset >= 0 {
		return err
	}
	if ce.Path == "" {
		ce.Path = seg
	} else {
		ce.Path = seg + "." + ce.Path
	}
	return ce
}

// escapeTable marks the bytes that cannot be copied raw into a string.
var escapeTable = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

const hexDigits = "0123456789abcdef"

func (e *encoder) str(s string) error {
	e.maybeFlush()
	if plainASCII(s) {
		e.buf = append(e.buf, '"')
		e.buf = append(e.buf, s...)
		e.buf = append(e.buf, '"')
		return nil
	}
	buf, err := appendEscaped(e.buf, s)
	if err != nil {
		return err
	}
	e.buf = buf
	return nil
}

// appendEscaped appends s quoted, with the escapes canonical JSON needs:
// the form of a string that is not plain ASCII. It refuses invalid UTF-8.
func appendEscaped(buf []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return buf, encodeErr(KindInvalidUTF8, "", "string is not valid UTF-8")
	}
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !escapeTable[c] {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"':
			buf = append(buf, '\\', '"')
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"'), nil
}

// plainASCII reports whether s is ASCII with nothing to escape, eight bytes
// at a time: most artifact strings (digests, terms, spans) are, and for them
// the byte-by-byte escape loop is the encoder's main cost.
func plainASCII(s string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8] // eight bytes the compiler knows are there: one bounds check, not eight
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		control := (x - 0x2020202020202020) & ^x
		q := x ^ 0x2222222222222222
		quote := (q - ones) & ^q
		b := x ^ 0x5c5c5c5c5c5c5c5c
		backslash := (b - ones) & ^b
		if (x|control|quote|backslash)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || escapeTable[c] {
			return false
		}
	}
	return true
}
