package mining

import (
	"bytes"
	"encoding/binary"
)

// checkParquet checks the framing of a Parquet file and walks its footer
// (Thrift compact protocol) before arrow-go reads it, refusing a list, set,
// map or binary whose declared size cannot fit in the bytes that remain.
// The Thrift library bounds such sizes only by a 100 MB message limit, so a
// forged footer of a few bytes can make it allocate hundreds of megabytes.
// The walk needs no schema: the compact protocol carries types in-band.
func checkParquet(raw []byte) error {
	const magic = "PAR1"
	n := len(raw)
	if n < 12 || !bytes.HasPrefix(raw, []byte(magic)) {
		return refuse(CodeTableCorrupt, "not a Parquet file (no leading magic)")
	}
	if string(raw[n-4:]) != magic {
		return refuse(CodeTableCorrupt, "not a plain Parquet file (no trailing magic; encrypted footers are not supported)")
	}
	footerLen := int64(binary.LittleEndian.Uint32(raw[n-8:]))
	if footerLen == 0 || footerLen > int64(n-12) {
		return refuse(CodeTableCorrupt, "Parquet footer length %d does not fit the file", footerLen)
	}
	w := thriftWalker{buf: raw[int64(n-8)-footerLen : n-8]}
	if !w.structure(0) {
		return refuse(CodeTableCorrupt, "malformed Parquet footer")
	}
	return nil
}

// thriftWalker skips over one Thrift compact-protocol value at a time,
// checking every declared size against the bytes left.
type thriftWalker struct {
	buf []byte
	pos int
}

const thriftMaxDepth = 64

func (w *thriftWalker) left() int { return len(w.buf) - w.pos }

func (w *thriftWalker) byte1() (byte, bool) {
	if w.pos >= len(w.buf) {
		return 0, false
	}
	b := w.buf[w.pos]
	w.pos++
	return b, true
}

func (w *thriftWalker) varint() (uint64, bool) {
	v, n := binary.Uvarint(w.buf[w.pos:])
	if n <= 0 {
		return 0, false
	}
	w.pos += n
	return v, true
}

func (w *thriftWalker) skip(n uint64) bool {
	if n > uint64(w.left()) {
		return false
	}
	w.pos += int(n)
	return true
}

// structure walks fields until the stop byte.
func (w *thriftWalker) structure(depth int) bool {
	if depth > thriftMaxDepth {
		return false
	}
	for {
		b, ok := w.byte1()
		if !ok {
			return false
		}
		if b == 0 {
			return true
		}
		if b>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, ok := w.varint(); !ok {
				return false
			}
		}
		if t := b & 0x0F; t != 1 && t != 2 && !w.value(t, depth) { // 1, 2: booleans held in the type
			return false
		}
	}
}

// value walks one value of compact type t.
func (w *thriftWalker) value(t byte, depth int) bool {
	switch t {
	case 1, 2, 3: // a boolean element of a container, or a byte
		return w.skip(1)
	case 4, 5, 6: // i16, i32, i64
		_, ok := w.varint()
		return ok
	case 7: // double
		return w.skip(8)
	case 8: // binary: length, bytes
		n, ok := w.varint()
		return ok && w.skip(n)
	case 9, 10: // list, set
		return w.list(depth)
	case 11:
		return w.mapping(depth)
	case 12:
		return w.structure(depth + 1)
	case 13: // uuid
		return w.skip(16)
	}
	return false
}

func (w *thriftWalker) list(depth int) bool {
	h, ok := w.byte1()
	if !ok {
		return false
	}
	size := uint64(h >> 4)
	if size == 15 {
		if size, ok = w.varint(); !ok {
			return false
		}
	}
	if size > uint64(w.left()) { // every element takes at least one byte
		return false
	}
	for i := uint64(0); i < size; i++ {
		if !w.value(h&0x0F, depth+1) {
			return false
		}
	}
	return true
}

func (w *thriftWalker) mapping(depth int) bool {
	size, ok := w.varint()
	if !ok || size == 0 {
		return ok
	}
	kv, ok := w.byte1()
	if !ok || size > uint64(w.left())/2 {
		return false
	}
	for i := uint64(0); i < size; i++ {
		if !w.value(kv>>4, depth+1) || !w.value(kv&0x0F, depth+1) {
			return false
		}
	}
	return true
}
