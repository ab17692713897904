package canon

import "strconv"

// Lexer reads a JSON document token by token, with Decode's rules for
// whitespace, strings and integers, for a decoder written for one fixed
// shape (a large artifact read on every stage run, where building the
// generic tree and assigning it by reflection costs more than the stage's
// own work).
//
// A Lexer reports failure as false, never as an error: false means "not
// the shape this decoder knows", and the caller then hands the whole
// document to Unmarshal, which gives the reading or the typed error. So a
// decoder built on a Lexer must accept only what Unmarshal accepts, with
// the same result, and may decline anything else (duplicate keys, unknown
// fields, null where a value is required, numbers out of range) without
// saying why.
type Lexer struct {
	d decoder
}

// NewLexer returns a Lexer at the start of data.
func NewLexer(data []byte) *Lexer { return &Lexer{d: decoder{data: data}} }

// Consume skips whitespace and consumes c if it comes next.
func (l *Lexer) Consume(c byte) bool {
	l.d.skipSpace()
	if l.d.pos < len(l.d.data) && l.d.data[l.d.pos] == c {
		l.d.pos++
		return true
	}
	return false
}

// Null skips whitespace and consumes the literal null if it comes next.
func (l *Lexer) Null() bool {
	l.d.skipSpace()
	if l.d.pos < len(l.d.data) && l.d.data[l.d.pos] == 'n' {
		return l.d.literal("null") == nil
	}
	return false
}

// String reads a string value.
func (l *Lexer) String() (string, bool) {
	l.d.skipSpace()
	if l.d.pos >= len(l.d.data) || l.d.data[l.d.pos] != '"' {
		return "", false
	}
	s, err := l.d.string()
	return s, err == nil
}

// Int64 reads an integer that fits in an int64.
func (l *Lexer) Int64() (int64, bool) {
	l.d.skipSpace()
	if l.d.pos >= len(l.d.data) {
		return 0, false
	}
	if c := l.d.data[l.d.pos]; c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	v, err := l.d.number()
	if err != nil {
		return 0, false
	}
	i, err := strconv.ParseInt(string(v.(Number)), 10, 64)
	return i, err == nil
}

// Array reads an array, calling elem for each element; elem reads the
// element and reports whether it could.
func (l *Lexer) Array(elem func() bool) bool {
	if !l.Consume('[') {
		return false
	}
	if l.Consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if l.Consume(']') {
			return true
		}
		if !l.Consume(',') {
			return false
		}
	}
}

// Object reads an object, calling member with each key; member reads the
// key's value and reports whether it could. Telling duplicate keys apart
// is member's job. The key is the raw bytes between the quotes, valid only
// during the call (switch on string(key) compares without copying); a key
// written with an escape is declined, since a fixed shape's keys need none.
func (l *Lexer) Object(member func(key []byte) bool) bool {
	if !l.Consume('{') {
		return false
	}
	if l.Consume('}') {
		return true
	}
	for {
		key, ok := l.rawKey()
		if !ok || !l.Consume(':') || !member(key) {
			return false
		}
		if l.Consume('}') {
			return true
		}
		if !l.Consume(',') {
			return false
		}
	}
}

// rawKey reads a key without escapes or control characters and returns
// its bytes.
func (l *Lexer) rawKey() ([]byte, bool) {
	d := &l.d
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return nil, false
	}
	start := d.pos + 1
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return d.data[start:i], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// End reports whether only whitespace is left.
func (l *Lexer) End() bool {
	l.d.skipSpace()
	return l.d.pos == len(l.d.data)
}
