package compose

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"formation/internal/parts"
)

// maxKeyBytes bounds the written form of a mapping key. YAML readers only
// accept an implicit key whose ':' comes within 1024 characters of its start;
// a longer key would make the document unreadable, so it is refused instead.
const maxKeyBytes = 1000

// EmitYAML writes v in the original system's canonical YAML (with the quoting
// fixes of the package documentation): two-space indentation, map keys in
// sorted order, one value per line, every line ending in "\n".
//
// Accepted values: map[string]any, []any, string, bool, int, int64 and nil
// (written as null). Floats and every other type are refused with a *Error of
// kind KindUnsupportedValue; invalid UTF-8 with KindInvalidUTF8.
func EmitYAML(v any) ([]byte, error) {
	e := emitter{buf: make([]byte, 0, 4096), workers: runtime.GOMAXPROCS(0)}
	if err := e.node(v, 0); err != nil {
		return nil, err
	}
	return e.bytes(), nil
}

// chunkBytes is the size at which the buffer being written is set aside and
// a fresh one started: a course of many megabytes is then copied once, at
// the end, instead of at every doubling of one growing buffer.
const chunkBytes = 64 << 10

// emitter appends to buf; full chunks wait in done. keys is a stack of
// sorted key lists shared by the nested maps being written, so sorting a
// map's keys does not allocate.
type emitter struct {
	buf  []byte
	done [][]byte
	size int // bytes in done
	keys []string
	// workers is how many emitters may write the parts of a long list side
	// by side (see splitList); the emitters of the parts write theirs alone.
	workers int
}

// spill sets buf aside once it holds a chunk. It is called only between
// list items, never inside a key, so key checks see one buffer.
func (e *emitter) spill() {
	if len(e.buf) >= chunkBytes {
		e.keep(e.buf)
		e.buf = make([]byte, 0, 2*chunkBytes)
	}
}

// bytes joins the chunks and the current buffer.
func (e *emitter) bytes() []byte {
	if len(e.done) == 0 {
		return e.buf
	}
	out := make([]byte, 0, e.size+len(e.buf))
	for _, c := range e.done {
		out = append(out, c...)
	}
	return append(out, e.buf...)
}

// spaces is enough indentation for any depth pad writes in one append.
const spaces = "                                                                "

func (e *emitter) pad(n int) {
	for n > len(spaces)/2 {
		e.buf = append(e.buf, spaces...)
		n -= len(spaces) / 2
	}
	e.buf = append(e.buf, spaces[:2*n]...)
}

// node writes v as a block node whose lines start at indentation n.
func (e *emitter) node(v any, n int) error {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			e.pad(n)
			e.buf = append(e.buf, "{}\n"...)
			return nil
		}
		return e.mapping(x, n)
	case []any:
		if len(x) == 0 {
			e.pad(n)
			e.buf = append(e.buf, "[]\n"...)
			return nil
		}
		return e.list(x, n)
	}
	e.pad(n)
	if err := e.scalar(v); err != nil {
		return err
	}
	e.buf = append(e.buf, '\n')
	return nil
}

// pushKeys puts m's keys, sorted, on the key stack and returns their range.
func (e *emitter) pushKeys(m map[string]any) (start, end int) {
	start = len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	end = len(e.keys)
	slices.Sort(e.keys[start:end])
	return start, end
}

// mapping writes a non-empty map: each key at indentation n, a nested map one
// level deeper, a nested list at the key's own level.
func (e *emitter) mapping(m map[string]any, n int) error {
	start, end := e.pushKeys(m)
	defer func() { e.keys = e.keys[:start] }()
	for i := start; i < end; i++ {
		k := e.keys[i]
		e.pad(n)
		if err := e.key(k); err != nil {
			return err
		}
		if err := e.value(m[k], n+1, n); err != nil {
			return atKey(err, k)
		}
	}
	return nil
}

// list writes a non-empty list with its dashes at indentation n.
func (e *emitter) list(items []any, n int) error {
	if e.workers > 1 && len(items) >= splitItems {
		return e.splitList(items, n)
	}
	return e.items(items, 0, n)
}

// items writes items, the part of a list that starts at index first.
func (e *emitter) items(items []any, first, n int) error {
	for i, item := range items {
		if err := e.item(item, n); err != nil {
			return atIndex(err, first+i)
		}
		e.spill()
	}
	return nil
}

// splitItems is the length from which a list is written in parts side by
// side: a course's lists of concepts, relations, walks and dependencies
// run to tens of thousands of items, and the YAML of one item never
// depends on another's, so the parts, joined in order, are the bytes one
// emitter writes.
const splitItems = 2048

// splitList writes a long list as e.workers parts, each by an emitter of
// its own, and takes their chunks in order. The error is the first item's
// in list order, as writing the items in turn would report.
func (e *emitter) splitList(items []any, n int) error {
	split := make([]emitter, e.workers)
	errs := make([]error, e.workers)
	parts.Run(len(items), e.workers, func(w, lo, hi int) {
		split[w].buf = make([]byte, 0, 2*chunkBytes)
		errs[w] = split[w].items(items[lo:hi], lo, n)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	e.keep(e.buf)
	for _, p := range split {
		for _, c := range p.done {
			e.keep(c)
		}
		e.keep(p.buf)
	}
	e.buf = make([]byte, 0, 2*chunkBytes)
	return nil
}

// keep adds c to the chunks done.
func (e *emitter) keep(c []byte) {
	if len(c) > 0 {
		e.done = append(e.done, c)
		e.size += len(c)
	}
}

func (e *emitter) item(item any, n int) error {
	switch x := item.(type) {
	case map[string]any:
		if len(x) == 0 {
			e.pad(n)
			e.buf = append(e.buf, "- {}\n"...)
			return nil
		}
		return e.itemMapping(x, n)
	case []any:
		e.pad(n)
		if len(x) == 0 {
			e.buf = append(e.buf, "- []\n"...)
			return nil
		}
		e.buf = append(e.buf, "-\n"...)
		return e.list(x, n+1)
	}
	e.pad(n)
	e.buf = append(e.buf, "- "...)
	if err := e.scalar(item); err != nil {
		return err
	}
	e.buf = append(e.buf, '\n')
	return nil
}

// itemMapping writes a map that is a list item: the first key shares the
// dash line, the others follow one level deeper, and values nested under any
// of them go two levels deeper than the dash.
func (e *emitter) itemMapping(m map[string]any, n int) error {
	start, end := e.pushKeys(m)
	defer func() { e.keys = e.keys[:start] }()
	for i := start; i < end; i++ {
		k := e.keys[i]
		if i == start {
			e.pad(n)
			e.buf = append(e.buf, "- "...)
		} else {
			e.pad(n + 1)
		}
		if err := e.key(k); err != nil {
			return err
		}
		if err := e.value(m[k], n+2, n+2); err != nil {
			return atKey(err, k)
		}
	}
	return nil
}

// value writes ':' and the value of a key already on the line; a non-empty
// map continues at mapIndent, a non-empty list at listIndent.
func (e *emitter) value(v any, mapIndent, listIndent int) error {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			e.buf = append(e.buf, ": {}\n"...)
			return nil
		}
		e.buf = append(e.buf, ":\n"...)
		return e.mapping(x, mapIndent)
	case []any:
		if len(x) == 0 {
			e.buf = append(e.buf, ": []\n"...)
			return nil
		}
		e.buf = append(e.buf, ":\n"...)
		return e.list(x, listIndent)
	}
	e.buf = append(e.buf, ": "...)
	if err := e.scalar(v); err != nil {
		return err
	}
	e.buf = append(e.buf, '\n')
	return nil
}

func (e *emitter) key(k string) error {
	before := len(e.buf)
	if err := e.str(k); err != nil {
		return atKey(err, k)
	}
	if len(e.buf)-before > maxKeyBytes {
		return &Error{Kind: KindKeyTooLong, Msg: "a mapping key written in more than " +
			strconv.Itoa(maxKeyBytes) + " bytes cannot be read back as a YAML key"}
	}
	return nil
}

func (e *emitter) scalar(v any) error {
	switch x := v.(type) {
	case string:
		return e.str(x)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case nil:
		e.buf = append(e.buf, "null"...)
	case float32, float64:
		return &Error{Kind: KindUnsupportedValue, Msg: "float values are forbidden in a course body"}
	default:
		return &Error{Kind: KindUnsupportedValue, Msg: fmt.Sprintf("cannot write a value of type %T", v)}
	}
	return nil
}
