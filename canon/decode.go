package canon

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode parses one JSON document from untrusted bytes into a generic value:
// nil, bool, string, Number, []any or *Object. Anything the canonical form
// cannot carry is refused with a *Error (see the package documentation).
func Decode(data []byte) (any, error) {
	return decode(data, false)
}

// DecodeTolerant is Decode except that numbers with a fraction or exponent are
// returned as Float (their text) instead of refused. It exists for the
// original's pack files, which contain floats outside anything sealed; a Float
// can be read but never marshalled.
func DecodeTolerant(data []byte) (any, error) {
	return decode(data, true)
}

func decode(data []byte, tolerant bool) (any, error) {
	d := decoder{data: data, tolerant: tolerant}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.fail(KindTrailingData, "data after the end of the document")
	}
	return v, nil
}

type decoder struct {
	data     []byte
	pos      int
	tolerant bool
}

func (d *decoder) fail(kind Kind, msg string) *Error {
	return &Error{Kind: kind, Offset: d.pos, Msg: msg}
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.fail(KindSyntax, "unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == 'N' || c == 'I':
		return nil, d.fail(KindFloat, "NaN and Infinity are floats; floats are forbidden")
	default:
		return nil, d.fail(KindSyntax, "unexpected character "+strconv.QuoteRune(rune(c)))
	}
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.fail(KindSyntax, "invalid literal")
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, d.fail(KindDepth, "nesting deeper than "+strconv.Itoa(MaxDepth))
	}
	d.pos++ // {
	obj := NewObject()
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return obj, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.fail(KindSyntax, "expected a string key")
		}
		keyPos := d.pos
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		if obj.Has(key) {
			return nil, &Error{Kind: KindDuplicateKey, Offset: keyPos, Msg: "duplicate key " + strconv.Quote(key)}
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.fail(KindSyntax, "expected ':'")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		obj.Set(key, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail(KindSyntax, "unterminated object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return obj, nil
		default:
			return nil, d.fail(KindSyntax, "expected ',' or '}'")
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, d.fail(KindDepth, "nesting deeper than "+strconv.Itoa(MaxDepth))
	}
	d.pos++ // [
	arr := []any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return arr, nil
	}
	for {
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail(KindSyntax, "unterminated array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return arr, nil
		default:
			return nil, d.fail(KindSyntax, "expected ',' or ']'")
		}
	}
}

func (d *decoder) number() (any, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
		if d.pos < len(d.data) && d.data[d.pos] == 'I' {
			return nil, d.fail(KindFloat, "-Infinity is a float; floats are forbidden")
		}
	}
	digits := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	intDigits := d.pos - digits
	if intDigits == 0 {
		return nil, d.fail(KindSyntax, "invalid number")
	}
	if intDigits > 1 && d.data[digits] == '0' {
		return nil, &Error{Kind: KindSyntax, Offset: start, Msg: "leading zero in number"}
	}
	isFloat := false
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		isFloat = true
		d.pos++
		if !d.digits() {
			return nil, d.fail(KindSyntax, "invalid fraction")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		isFloat = true
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if !d.digits() {
			return nil, d.fail(KindSyntax, "invalid exponent")
		}
	}
	text := string(d.data[start:d.pos])
	if isFloat {
		if d.tolerant {
			return Float(text), nil
		}
		return nil, &Error{Kind: KindFloat, Offset: start, Msg: "float values are forbidden; encode numbers as strings or integers"}
	}
	if intDigits > MaxIntDigits {
		return nil, &Error{Kind: KindIntTooLong, Offset: start, Msg: "integer longer than " + strconv.Itoa(MaxIntDigits) + " digits"}
	}
	if text == "-0" {
		text = "0"
	}
	return Number(text), nil
}

func (d *decoder) digits() bool {
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > start
}

// string reads a JSON string starting at the opening quote.
func (d *decoder) string() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	// Fastest path: printable ASCII up to the closing quote, the shape of
	// nearly every artifact string (digests, terms, spans). It needs neither
	// the byte-by-byte scan nor a UTF-8 check; anything else (an escape, a
	// control character, a non-ASCII byte) goes on below from where the run
	// stopped. TestStringReaderAgreesWithByteLoop and FuzzStringReader hold
	// it equal to the byte loop alone.
	end := start + plainRun(d.data[start:])
	if end < len(d.data) && d.data[end] == '"' {
		d.pos = end + 1
		return string(d.data[start:end]), nil
	}
	d.pos = end
	// Fast path: no escapes.
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

// plainRun is the length of the run of printable ASCII bytes other than
// '"' and '\\' that b starts with, eight bytes at a time: the bytes a
// string may hold as they are, up to the first one that ends it or needs
// a closer look. Each lane test below flags its lowest matching byte
// exactly (a borrow only ever reaches lanes above a flagged one), so the
// lowest flag of the union is the first byte that stops the run.
func plainRun(b []byte) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		control := (x - 0x2020202020202020) & ^x
		q := x ^ 0x2222222222222222
		quote := (q - ones) & ^q
		bs := x ^ 0x5c5c5c5c5c5c5c5c
		backslash := (bs - ones) & ^bs
		if m := (x | control | quote | backslash) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

func (d *decoder) slowString(start int) (string, error) {
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return "", &Error{Kind: KindInvalidUTF8, Offset: start, Msg: "string is not valid UTF-8"}
			}
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.fail(KindSyntax, "raw control character in string")
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		d.pos++
		if d.pos >= len(d.data) {
			break
		}
		esc := d.data[d.pos]
		d.pos++
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := d.unicodeEscape()
			if err != nil {
				return "", err
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", d.fail(KindSyntax, "invalid escape")
		}
	}
	return "", d.fail(KindSyntax, "unterminated string")
}

// unicodeEscape reads the hex of a \u escape (the "\u" already consumed) and,
// for a high surrogate, the low surrogate that must follow it.
func (d *decoder) unicodeEscape() (rune, error) {
	at := d.pos - 2
	r, ok := d.hex4()
	if !ok {
		return 0, d.fail(KindSyntax, "invalid \\u escape")
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if r >= 0xDC00 { // a low surrogate with nothing before it
		return 0, &Error{Kind: KindInvalidUnicode, Offset: at, Msg: "lone surrogate escape"}
	}
	if d.pos+2 > len(d.data) || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' {
		return 0, &Error{Kind: KindInvalidUnicode, Offset: at, Msg: "lone surrogate escape"}
	}
	d.pos += 2
	lo, ok := d.hex4()
	if !ok {
		return 0, d.fail(KindSyntax, "invalid \\u escape")
	}
	if lo < 0xDC00 || lo > 0xDFFF {
		return 0, &Error{Kind: KindInvalidUnicode, Offset: at, Msg: "lone surrogate escape"}
	}
	return utf16.DecodeRune(r, lo), nil
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}
