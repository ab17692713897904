package compile

import (
	"bytes"
	"runtime"
	"unicode/utf8"

	"formation/internal/parts"
)

// fastParse reads a course in one pass without building yaml.v3's node
// tree, for the block YAML the compose emitter writes. It reports false on
// any input outside the subset below; the caller then parses with yaml.v3,
// so whatever the fast path does not take keeps yaml.v3's result and errors.
// Where it reports true, the tree is the one yaml.v3 decodes from the same
// bytes into an `any` (map[string]any, []any, string, int, bool, nil).
//
// The subset (every line ends in "\n"; indentation is spaces only):
//
//   - The document is one node at column 0 and nothing else: a block
//     mapping, a block sequence, or a single line holding an inline value.
//   - A block mapping at column c: lines of c spaces, a key, ':', then either
//     one space and an inline value, or the end of the line and a nested
//     block: a mapping or sequence at column c+2, or a sequence at column c.
//     Keys are strings (plain or double-quoted, at most maxKeyBytes bytes as
//     written); a key may not repeat.
//   - A block sequence at column c: lines of c spaces and '-', then either
//     "- " and an inline value, "- " and a mapping at column c+2 whose first
//     key shares the dash line, or "-" alone and a mapping or sequence at
//     column c+2.
//   - An inline value: {} or [] (empty only), a decimal int within the
//     int64 range with no '+' and no leading zero (a '-' is allowed, "-0"
//     is not), true, false, null, a plain string, or a double-quoted string.
//   - A plain string matches [A-Za-z_][A-Za-z0-9_./:-]*, does not end in
//     ':', holds no ':' followed by a space, and is not one of the words a
//     YAML 1.1 or 1.2 loader reads as a boolean or null.
//   - A double-quoted string stays on its line, holds printable characters
//     (no tab, no C1 control, no U+2028/U+2029, U+FEFF, U+FFFE, U+FFFF), and
//     the escapes \\ \" \n \t \r \xHH \uHHHH (not a surrogate).
//   - Nesting stays under maxFastDepth levels.
//
// Comments, blank lines, tabs, CR, a byte-order mark, document markers,
// anchors, aliases, tags, flow collections other than {} and [], block
// scalars, multi-line scalars, single quotes, other escapes, floats, other
// int forms, duplicate keys and any other layout fall back.
func fastParse(b []byte) (v any, ok bool) {
	// A bug here must not change a result: yaml.v3 then decides.
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	return parseFast(b)
}

// parseFast is fastParse without the recovery, for tests and fuzzing.
func parseFast(b []byte) (any, bool) {
	return parseSplit(b, runtime.GOMAXPROCS(0), splitItems)
}

// parseSplit is parseFast with workers parsers for the parts of any
// sequence of splitAt items or more near the top.
func parseSplit(b []byte, workers, splitAt int) (any, bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return nil, false
	}
	p := newFastParser(b, workers, splitAt)
	return p.document()
}

func newFastParser(b []byte, workers, splitAt int) *fastParser {
	return &fastParser{b: b, strs: make(map[string]any), recent: new([internSlots]interned), workers: workers, splitAt: splitAt}
}

const (
	// maxKeyBytes keeps keys well inside yaml.v3's 1024-character limit on
	// an implicit key.
	maxKeyBytes = 1000
	// maxFastDepth keeps nesting well inside yaml.v3's 10,000 levels.
	maxFastDepth = 1000
	// maxInternBytes: shorter strings are shared between their occurrences
	// (keys, names, ids recur on every entry of a course).
	maxInternBytes = 64
)

// fastParser's input always ends in '\n', so a byte after anything that
// is not '\n' exists and needs no bounds check.
type fastParser struct {
	b     []byte
	pos   int
	depth int
	strs  map[string]any // interned strings, boxed once
	// recent caches strs by a hash of the bytes: most lookups are keys and
	// names seen a moment ago, found here without hashing into strs.
	recent *[internSlots]interned
	buf    []byte // scratch for escaped strings
	// workers is how many parsers may read the parts of a long sequence
	// side by side (see splitSequence); the parsers of the parts read
	// theirs alone.
	workers int
	splitAt int // splitItems, but for tests
}

const internSlots = 1024

type interned struct {
	s string
	v any
}

func (p *fastParser) document() (any, bool) {
	if p.indent() != 0 {
		return nil, false
	}
	if !p.dashAt(p.pos) {
		start := p.pos
		v, ok := p.scalar()
		if ok && p.b[p.pos] == '\n' && p.pos+1 == len(p.b) {
			return v, true
		}
		p.pos = start
	}
	v, ok := p.block(0)
	return v, ok && p.pos == len(p.b)
}

// indent counts the spaces opening the line at p.pos; -1 at the end.
func (p *fastParser) indent() int {
	if p.pos >= len(p.b) {
		return -1
	}
	i := p.pos
	for p.b[i] == ' ' {
		i++
	}
	return i - p.pos
}

func (p *fastParser) dashAt(i int) bool {
	return p.b[i] == '-' && (p.b[i+1] == ' ' || p.b[i+1] == '\n')
}

// block reads a mapping or sequence whose first line, at p.pos, is
// indented by c.
func (p *fastParser) block(c int) (any, bool) {
	if p.depth++; p.depth > maxFastDepth {
		return nil, false
	}
	defer func() { p.depth-- }()
	p.pos += c
	if p.dashAt(p.pos) {
		return p.sequence(c)
	}
	k, ok := p.key()
	if !ok {
		return nil, false
	}
	return p.mapping(c, k)
}

// key reads a mapping key and stops on its ':'.
func (p *fastParser) key() (string, bool) {
	start := p.pos
	v, ok := p.scalar()
	k, isString := v.(string)
	return k, ok && isString && p.b[p.pos] == ':' && p.pos-start <= maxKeyBytes
}

// mapping reads a block mapping at column c whose first key k was read up
// to its ':'.
func (p *fastParser) mapping(c int, k string) (map[string]any, bool) {
	m := make(map[string]any)
	for {
		if _, dup := m[k]; dup {
			return nil, false
		}
		p.pos++ // ':'
		v, ok := p.value(c)
		if !ok {
			return nil, false
		}
		m[k] = v
		switch n := p.indent(); {
		case n < c:
			return m, true
		case n > c:
			return nil, false
		}
		p.pos += c
		if k, ok = p.key(); !ok {
			return nil, false
		}
	}
}

// value reads what follows a key's ':' at column c.
func (p *fastParser) value(c int) (any, bool) {
	switch p.b[p.pos] {
	case ' ':
		p.pos++
		return p.inline()
	case '\n':
		p.pos++
		switch n := p.indent(); {
		case n == c+2:
			return p.block(n)
		case n == c && p.dashAt(p.pos+c):
			return p.block(c)
		}
	}
	return nil, false
}

// inline reads a scalar that must end its line.
func (p *fastParser) inline() (any, bool) {
	v, ok := p.scalar()
	if !ok || p.b[p.pos] != '\n' {
		return nil, false
	}
	p.pos++
	return v, true
}

// sequence reads a block sequence at column c from its first dash.
func (p *fastParser) sequence(c int) ([]any, bool) {
	if p.workers > 1 && p.depth <= splitDepth {
		if starts, end := p.itemLines(c); len(starts) >= max(p.splitAt, 2) {
			return p.splitSequence(c, starts, end)
		}
	}
	var items []any
	for {
		v, ok := p.item(c)
		if !ok {
			return nil, false
		}
		items = append(items, v)
		n := p.indent()
		if n < c || n == c && !p.dashAt(p.pos+c) {
			// The end; a mapping holding this sequence at its own column
			// goes on with its next key.
			return items, true
		}
		if n > c {
			return nil, false
		}
		p.pos += c
	}
}

// item reads one sequence entry from its dash at p.pos.
func (p *fastParser) item(c int) (any, bool) {
	p.pos++ // '-'
	if p.b[p.pos] == '\n' {
		p.pos++
		if p.indent() != c+2 {
			return nil, false
		}
		return p.block(c + 2)
	}
	p.pos++ // ' '
	if p.dashAt(p.pos) {
		return nil, false
	}
	start := p.pos
	v, ok := p.scalar()
	switch {
	case !ok:
		return nil, false
	case p.b[p.pos] == '\n':
		p.pos++
		return v, true
	case p.b[p.pos] == ':':
		// A mapping whose first key shares the dash line.
		p.pos = start
		if p.depth++; p.depth > maxFastDepth {
			return nil, false
		}
		defer func() { p.depth-- }()
		k, ok := p.key()
		if !ok {
			return nil, false
		}
		return p.mapping(c+2, k)
	}
	return nil, false
}

// scalar reads one inline token and stops on the byte after it.
func (p *fastParser) scalar() (any, bool) {
	switch c := p.b[p.pos]; {
	case c == '"':
		return p.quoted()
	case plainStart(c):
		return p.plain()
	case c == '-' || '0' <= c && c <= '9':
		return p.integer()
	case c == '{' && p.b[p.pos+1] == '}':
		p.pos += 2
		return map[string]any{}, true
	case c == '[' && p.b[p.pos+1] == ']':
		p.pos += 2
		return []any{}, true
	}
	return nil, false
}

// plain reads a plain scalar: a string, or true, false or null.
func (p *fastParser) plain() (any, bool) {
	start, i := p.pos, p.pos+1
	for plainByte(p.b[i]) && !(p.b[i] == ':' && (p.b[i+1] == ' ' || p.b[i+1] == '\n')) {
		i++
	}
	p.pos = i
	s := p.b[start:i]
	if s[len(s)-1] == ':' {
		return nil, false
	}
	switch string(s) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	case "True", "TRUE", "False", "FALSE",
		"yes", "Yes", "YES", "no", "No", "NO",
		"on", "On", "ON", "off", "Off", "OFF",
		"y", "Y", "n", "N", "Null", "NULL":
		return nil, false
	}
	return p.str(s), true
}

func plainStart(c byte) bool {
	return c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

func plainByte(c byte) bool {
	return plainStart(c) || '0' <= c && c <= '9' || c == '.' || c == '/' || c == ':' || c == '-'
}

// integer reads -?(0|[1-9][0-9]*) within the int64 range and returns it as
// yaml.v3 does: an int where it fits one, else an int64.
func (p *fastParser) integer() (any, bool) {
	i := p.pos
	neg := p.b[i] == '-'
	if neg {
		i++
	}
	start := i
	var u uint64
	for '0' <= p.b[i] && p.b[i] <= '9' {
		if i-start >= 19 {
			return nil, false // 20 digits never fit
		}
		u = u*10 + uint64(p.b[i]-'0')
		i++
	}
	switch {
	case i == start, p.b[start] == '0' && (i-start > 1 || neg):
		return nil, false
	case neg && u > 1<<63, !neg && u > 1<<63-1:
		return nil, false
	}
	p.pos = i
	n := int64(u)
	if neg {
		n = -n
	}
	if n == int64(int(n)) {
		return int(n), true
	}
	return n, true
}

// quoted reads a double-quoted string on one line.
func (p *fastParser) quoted() (any, bool) {
	start := p.pos + 1
	i := start
	for {
		c := p.b[i]
		if c == '"' {
			p.pos = i + 1
			return p.str(p.b[start:i]), true
		}
		if c == '\\' || c < 0x20 || c >= 0x7f {
			break
		}
		i++
	}
	buf := append(p.buf[:0], p.b[start:i]...)
	for {
		c := p.b[i]
		switch {
		case c == '"':
			p.buf, p.pos = buf, i+1
			return p.str(buf), true
		case c == '\\':
			var ok bool
			if buf, i, ok = p.escape(buf, i); !ok {
				return nil, false
			}
		case 0x20 <= c && c < 0x7f:
			buf = append(buf, c)
			i++
		case c >= 0x80:
			r, size := utf8.DecodeRune(p.b[i:])
			if size == 1 || !rawRune(r) { // size 1: not UTF-8
				return nil, false
			}
			buf = append(buf, p.b[i:i+size]...)
			i += size
		default:
			return nil, false // a control character, the line's end among them
		}
	}
}

// rawRune: the non-ASCII characters a YAML reader takes as they are inside
// a double-quoted string on one line.
func rawRune(r rune) bool {
	switch {
	case r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff, r == 0xfffe, r == 0xffff:
		return false
	}
	return true
}

// escape decodes the escape at p.b[i] ('\\') onto buf.
func (p *fastParser) escape(buf []byte, i int) ([]byte, int, bool) {
	width := 0
	switch p.b[i+1] {
	case '\\', '"':
		return append(buf, p.b[i+1]), i + 2, true
	case 'n':
		return append(buf, '\n'), i + 2, true
	case 't':
		return append(buf, '\t'), i + 2, true
	case 'r':
		return append(buf, '\r'), i + 2, true
	case 'x':
		width = 2
	case 'u':
		width = 4
	default:
		return nil, 0, false
	}
	var r rune
	for k := i + 2; k < i+2+width; k++ {
		d, ok := hexDigit(p.b[k])
		if !ok {
			return nil, 0, false
		}
		r = r<<4 | d
	}
	if 0xd800 <= r && r <= 0xdfff {
		return nil, 0, false
	}
	return utf8.AppendRune(buf, r), i + 2 + width, true
}

func hexDigit(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// str returns s as a boxed string, shared with its earlier occurrences
// when it is short.
func (p *fastParser) str(s []byte) any {
	if len(s) > maxInternBytes {
		return string(s)
	}
	h := uint32(2166136261)
	for _, c := range s {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &p.recent[h%internSlots]
	if slot.v != nil && slot.s == string(s) {
		return slot.v
	}
	v, ok := p.strs[string(s)]
	if !ok {
		k := string(s)
		v = any(k)
		p.strs[k] = v
	}
	slot.s, slot.v = v.(string), v
	return v
}

const (
	// splitItems is the length from which a sequence is read in parts side
	// by side: a course's lists of concepts, relations, walks and
	// dependencies run to tens of thousands of items.
	splitItems = 2048
	// splitDepth: only sequences this near the top are looked at for
	// splitting; the lists deeper down (an entry's sources) are short.
	splitDepth = 3
)

// itemLines finds where the items of the sequence at column c, whose
// first dash is at p.pos, begin: the lines of c spaces and a dash, up to
// the first line indented less than c or holding anything but a dash at
// c. Every line of an item's content is indented more than c (a nested
// block sits at c+2), so an item runs from its line to the next; the
// sequence ends at end, the start of the line after it (or the input's
// end).
func (p *fastParser) itemLines(c int) (starts []int, end int) {
	starts = []int{p.pos - c}
	i := p.pos
	for {
		nl := bytes.IndexByte(p.b[i:], '\n')
		if nl < 0 {
			return starts, len(p.b)
		}
		i += nl + 1
		n := 0
		for i+n < len(p.b) && p.b[i+n] == ' ' {
			n++
		}
		switch {
		case i == len(p.b) || n < c:
			return starts, i
		case n == c:
			if !p.dashAt(i + c) {
				return starts, i
			}
			starts = append(starts, i)
		}
	}
}

// splitSequence reads the sequence at column c whose items begin on the
// lines starts and which ends at end, in p.workers parts side by side.
// Each part is read by a parser of its own over the input cut at the
// part's end, so it reads exactly what the one parser would have read
// there: an item looks no further than its own lines and the indentation
// of the line after it, and the cut ends the part as the next dash line
// ends the item. A part that fails, or stops short of its end, fails the
// whole.
func (p *fastParser) splitSequence(c int, starts []int, end int) ([]any, bool) {
	read := make([][]any, p.workers)
	ok := make([]bool, p.workers)
	parts.Run(len(starts), p.workers, func(w, lo, hi int) {
		if lo == hi {
			ok[w] = true
			return
		}
		stop := end
		if hi < len(starts) {
			stop = starts[hi]
		}
		ok[w] = p.readPart(c, starts[lo], stop, &read[w])
	})
	items := make([]any, 0, len(starts))
	for w := range read {
		if !ok[w] {
			return nil, false
		}
		items = append(items, read[w]...)
	}
	p.pos = end
	return items, true
}

// readPart reads the items of the sequence at column c on the lines from
// start up to stop.
func (p *fastParser) readPart(c, start, stop int, items *[]any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	part := newFastParser(p.b[:stop], 1, 0)
	part.pos, part.depth = start+c, p.depth
	v, ok := part.sequence(c)
	*items = v
	return ok && part.pos == stop
}
