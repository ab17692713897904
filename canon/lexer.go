package canon

import (
	"strconv"
	"unicode/utf8"
)

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
	d      decoder
	shared *[sharedSlots]string // SharedString's recent values, made on first use
}

// sharedSlots is the size of SharedString's table of recent values: one
// slot per value, chosen from its length and three of its bytes, so that
// the handful of values an artifact repeats each keep a slot of their own.
const sharedSlots = 256

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

// SharedString reads a string value as String does, but hands out the
// same string again when the value equals one it read so lately, as long
// as the value needs no escape: a large artifact names the same few source
// digests, adapters and dates in every one of its thousands of source
// references, and a copy of each was an allocation to make and for the
// collector to scan. TestSharedStringAgreesWithString holds it to String.
func (l *Lexer) SharedString() (string, bool) {
	d := &l.d
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return "", false
	}
	start := d.pos + 1
	end := start + plainRun(d.data[start:])
	if end >= len(d.data) || d.data[end] != '"' {
		return l.String() // an escape or a non-ASCII byte: read as String reads it
	}
	raw := d.data[start:end]
	d.pos = end + 1
	if len(raw) == 0 {
		return "", true
	}
	if l.shared == nil {
		l.shared = new([sharedSlots]string)
	}
	// A slot, not a map: hashing every value cost more than the copies it
	// saved. A value that meets another in its slot is simply copied.
	slot := &l.shared[(len(raw)*31+int(raw[0])*7+int(raw[len(raw)/2])*13+int(raw[len(raw)-1]))%sharedSlots]
	if *slot == string(raw) { // the comparison does not copy raw
		return *slot, true
	}
	*slot = string(raw)
	return *slot, true
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
	return l.Consume(']') || l.ArrayTail(elem)
}

// ArrayTail reads the rest of an array from the start of one of its
// elements: that element, then a comma and another or the closing
// bracket, as Array reads them.
func (l *Lexer) ArrayTail(elem func() bool) bool {
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

// ArrayUntil reads an array as Array does, but stops before an element
// that starts at offset, reporting stopped (and ok): a fork of the Lexer
// that read the array's tail from there (Fork, ArrayTail) then takes over
// (Join). Reading from an element's start depends on nothing read before
// it, so the array read in these two parts is the array Array reads;
// whatever a fork was given, it is taken only where this Lexer's own
// reading meets an element at its offset.
func (l *Lexer) ArrayUntil(offset int, elem func() bool) (stopped, ok bool) {
	if !l.Consume('[') {
		return false, false
	}
	if l.Consume(']') {
		return false, true
	}
	for {
		if l.Offset() == offset {
			return true, true
		}
		if !elem() {
			return false, false
		}
		if l.Consume(']') {
			return false, true
		}
		if !l.Consume(',') {
			return false, false
		}
	}
}

// Offset skips whitespace and returns where in the document the next
// token starts.
func (l *Lexer) Offset() int {
	l.d.skipSpace()
	return l.d.pos
}

// Fork returns a Lexer over the same document from offset, to read a part
// of it on another goroutine: a Lexer is not safe for concurrent use, and
// a fork shares nothing with l but the document, which neither writes
// (nor SharedString's table: a fork hands out copies of its own, equal
// strings all the same).
func (l *Lexer) Fork(offset int) *Lexer {
	return &Lexer{d: decoder{data: l.d.data, pos: min(max(offset, 0), len(l.d.data))}}
}

// Join moves l to where fork stopped reading, once l has read up to where
// fork started (ArrayUntil), to go on from there. It reports false for a
// Lexer over another document.
func (l *Lexer) Join(fork *Lexer) bool {
	if len(fork.d.data) != len(l.d.data) || len(l.d.data) > 0 && &fork.d.data[0] != &l.d.data[0] {
		return false
	}
	l.d.pos = fork.d.pos
	return true
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
	end := start + plainRun(d.data[start:])
	if end >= len(d.data) || d.data[end] != '"' {
		return nil, false // an escape, a control or non-ASCII byte, or no end
	}
	d.pos = end + 1
	return d.data[start:end], true
}

// End reports whether only whitespace is left.
func (l *Lexer) End() bool {
	l.d.skipSpace()
	return l.d.pos == len(l.d.data)
}

// Canonical reads a value whose bytes are already canonical — exactly the
// bytes Marshal writes for the value Decode reads from them — and returns
// them (a sub-slice of the document) with the nesting depth of its deepest
// container. depth is how many containers the value sits in, so that
// nesting past MaxDepth is declined where Decode refuses it. Anything else
// is declined, whether Decode reads it or not: whitespace, keys out of
// order, escapes Marshal would not write, "-0". So is an object key written
// with an escape: keys are ordered by their decoded bytes, and the shapes
// that hold canonical values (a plan step's payload) need no such key.
//
// A reader of a stored artifact whose parts are hashed or compared in
// canonical form takes those parts' bytes as they are instead of decoding
// and encoding them again; what it declines it hands to Unmarshal.
func (l *Lexer) Canonical(depth int) (raw []byte, deepest int, ok bool) {
	d := &l.d
	d.skipSpace()
	start := d.pos
	deepest, ok = d.canonical(depth)
	if !ok {
		return nil, 0, false
	}
	return d.data[start:d.pos], deepest, true
}

// canonical moves past the canonical value at d.pos, which sits inside
// depth containers, and returns the depth of its deepest container (depth
// itself for a scalar).
func (d *decoder) canonical(depth int) (int, bool) {
	if d.pos >= len(d.data) {
		return 0, false
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		return d.canonicalContainer(depth + 1)
	case c == '"':
		_, ok := d.canonicalString(true)
		return depth, ok
	case c == 't':
		return depth, d.literal("true") == nil
	case c == 'f':
		return depth, d.literal("false") == nil
	case c == 'n':
		return depth, d.literal("null") == nil
	case c == '-' || (c >= '0' && c <= '9'):
		return depth, d.canonicalNumber()
	}
	return 0, false
}

// canonicalContainer reads an object or array at nesting depth depth:
// members without whitespace, an object's keys strictly ascending (so none
// twice), as Marshal writes them.
func (d *decoder) canonicalContainer(depth int) (int, bool) {
	if depth > MaxDepth {
		return 0, false
	}
	open := d.data[d.pos]
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	d.pos++
	if d.pos < len(d.data) && d.data[d.pos] == close {
		d.pos++
		return depth, true
	}
	deepest := depth
	var prev []byte
	for i := 0; ; i++ {
		if open == '{' {
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return 0, false
			}
			key, ok := d.canonicalString(false)
			if !ok || (i > 0 && string(prev) >= string(key)) {
				return 0, false
			}
			prev = key
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return 0, false
			}
			d.pos++
		}
		inner, ok := d.canonical(depth)
		if !ok {
			return 0, false
		}
		deepest = max(deepest, inner)
		if d.pos >= len(d.data) {
			return 0, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case close:
			d.pos++
			return deepest, true
		default:
			return 0, false
		}
	}
}

// canonicalString reads a string as Marshal writes it and returns the bytes
// between its quotes: raw UTF-8 but for the escapes Marshal writes (\" \\
// \b \t \n \f \r, and \u00xx in lower-case hex for the other control
// characters), which are declined when escapes is false.
func (d *decoder) canonicalString(escapes bool) ([]byte, bool) {
	start := d.pos + 1
	ascii := true
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		switch {
		case c == '"':
			s := d.data[start:i]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			d.pos = i + 1
			return s, true
		case c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		case c == '\\':
			if !escapes || i+1 >= len(d.data) {
				return nil, false
			}
			i++
			switch d.data[i] {
			case '"', '\\', 'b', 't', 'n', 'f', 'r':
			case 'u':
				if i+4 >= len(d.data) || !canonicalControlEscape(d.data[i+1:i+5]) {
					return nil, false
				}
				i += 4
			default:
				return nil, false
			}
		}
	}
	return nil, false
}

// canonicalControlEscape reports whether hex (the four digits of a \u
// escape) is how Marshal writes a control character: 00xx in lower-case
// hex, for one without a two-character escape.
func canonicalControlEscape(hex []byte) bool {
	if hex[0] != '0' || hex[1] != '0' || (hex[2] != '0' && hex[2] != '1') {
		return false
	}
	c := hex[3]
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
	default:
		return false
	}
	if hex[2] == '0' {
		switch c {
		case '8', '9', 'a', 'c', 'd': // \b \t \n \f \r
			return false
		}
	}
	return true
}

// canonicalNumber reads an integer as Marshal writes it: no leading zero,
// no "-0", no fraction or exponent, at most MaxIntDigits digits.
func (d *decoder) canonicalNumber() bool {
	i := d.pos
	if d.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
		i++
	}
	n := i - digits
	switch {
	case n == 0, n > MaxIntDigits:
		return false
	case d.data[digits] == '0' && (n > 1 || digits > d.pos): // 01, -0
		return false
	case i < len(d.data) && (d.data[i] == '.' || d.data[i] == 'e' || d.data[i] == 'E'):
		return false
	}
	d.pos = i
	return true
}
