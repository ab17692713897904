package mining

import (
	"bytes"
	"encoding/binary"
)

// checkArrowIPC walks the framing and every flatbuffer message of an Arrow
// IPC file or stream before arrow-go reads it, and refuses the input when a
// vector's declared length cannot fit in its buffer. arrow-go (v18.8.0)
// allocates from such counts before checking them (a schema claiming a
// billion fields allocates a billion fields), which a forged file of a few
// hundred bytes turns into gigabytes or an out-of-memory crash that no
// recover can catch. Structure only: the reader still does the real work.
func checkArrowIPC(raw []byte) error {
	if bytes.HasPrefix(raw, []byte("ARROW1")) {
		return checkArrowFile(raw)
	}
	return checkArrowStream(raw, 0)
}

const arrowMagic = "ARROW1"

func checkArrowFile(raw []byte) error {
	n := len(raw)
	if n < 2*len(arrowMagic)+4 || string(raw[n-len(arrowMagic):]) != arrowMagic {
		return refuse(CodeTableCorrupt, "not an Arrow IPC file (no trailing magic)")
	}
	footerLen := int64(int32(binary.LittleEndian.Uint32(raw[n-10:])))
	footerEnd := int64(n - 10)
	if footerLen <= 0 || footerLen > footerEnd-8 {
		return refuse(CodeTableCorrupt, "Arrow footer length %d does not fit the file", footerLen)
	}
	footer := raw[footerEnd-footerLen : footerEnd]
	t, ok := rootTable(footer)
	if !ok || !checkFooter(t) {
		return refuse(CodeTableCorrupt, "malformed Arrow footer")
	}
	// The reader finds messages through the footer's blocks, which may
	// point anywhere: check the message each block names, then the stream
	// part of the file in order.
	for _, slot := range []int{2, 3} {
		start, n, _ := t.vector(slot, 24)
		for i := int64(0); i < n; i++ {
			off := int64(binary.LittleEndian.Uint64(footer[start+24*i:]))
			if off < 0 || off >= int64(len(raw)) {
				return refuse(CodeTableCorrupt, "Arrow block offset %d outside the file", off)
			}
			if err := checkOneMessage(raw, off); err != nil {
				return err
			}
		}
	}
	return checkArrowStream(raw[:footerEnd-footerLen], 8)
}

// checkOneMessage checks the single message framed at raw[at:].
func checkOneMessage(raw []byte, at int64) error {
	_, err := nextMessage(raw, at)
	return err
}

// checkArrowStream walks the messages from offset at to the end of the
// stream (or of raw).
func checkArrowStream(raw []byte, at int) error {
	pos := int64(at)
	for pos+4 <= int64(len(raw)) {
		next, err := nextMessage(raw, pos)
		if err != nil || next < 0 {
			return err
		}
		pos = next
	}
	return nil
}

// nextMessage checks the message framed at raw[pos:] (continuation marker
// or a legacy length, metadata length, flatbuffer, body) and returns where
// the next one starts, or -1 at an end-of-stream marker.
func nextMessage(raw []byte, pos int64) (int64, error) {
	end := int64(len(raw))
	word, ok := u32At(raw, pos)
	if !ok {
		return 0, refuse(CodeTableCorrupt, "truncated Arrow message")
	}
	pos += 4
	if word == 0xFFFFFFFF {
		if word, ok = u32At(raw, pos); !ok {
			return 0, refuse(CodeTableCorrupt, "truncated Arrow message length")
		}
		pos += 4
	}
	if word == 0 {
		return -1, nil
	}
	metaLen := int64(int32(uint32(word)))
	if metaLen < 4 || metaLen > end-pos {
		return 0, refuse(CodeTableCorrupt, "Arrow message metadata length %d does not fit", metaLen)
	}
	t, ok := rootTable(raw[pos : pos+metaLen])
	if !ok {
		return 0, refuse(CodeTableCorrupt, "malformed Arrow message")
	}
	body, ok := checkMessage(t)
	if !ok {
		return 0, refuse(CodeTableCorrupt, "malformed Arrow message")
	}
	pos += metaLen
	if body < 0 || body > end-pos {
		return 0, refuse(CodeTableCorrupt, "Arrow message body length %d does not fit", body)
	}
	return pos + body, nil
}

// fbTable is a flatbuffer table: its buffer, position and vtable.
type fbTable struct {
	buf   []byte
	pos   int64
	vt    int64
	vtLen int64
}

func u32At(buf []byte, pos int64) (int64, bool) {
	if pos < 0 || pos+4 > int64(len(buf)) {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint32(buf[pos:])), true
}

func rootTable(buf []byte) (fbTable, bool) {
	off, ok := u32At(buf, 0)
	if !ok {
		return fbTable{}, false
	}
	return tableAt(buf, off)
}

func tableAt(buf []byte, pos int64) (fbTable, bool) {
	soff, ok := u32At(buf, pos)
	if !ok {
		return fbTable{}, false
	}
	vt := pos - int64(int32(uint32(soff)))
	if vt < 0 || vt+4 > int64(len(buf)) {
		return fbTable{}, false
	}
	vtLen := int64(binary.LittleEndian.Uint16(buf[vt:]))
	if vtLen < 4 || vtLen%2 != 0 || vt+vtLen > int64(len(buf)) {
		return fbTable{}, false
	}
	return fbTable{buf: buf, pos: pos, vt: vt, vtLen: vtLen}, true
}

// field returns the absolute position of a slot's value, or -1 when absent.
func (t fbTable) field(slot int) int64 {
	at := t.vt + 4 + 2*int64(slot)
	if at+2 > t.vt+t.vtLen {
		return -1
	}
	off := int64(binary.LittleEndian.Uint16(t.buf[at:]))
	if off == 0 {
		return -1
	}
	return t.pos + off
}

// indirect follows the uoffset stored at a slot.
func (t fbTable) indirect(slot int) (pos int64, present, ok bool) {
	at := t.field(slot)
	if at < 0 {
		return 0, false, true
	}
	off, ok := u32At(t.buf, at)
	if !ok {
		return 0, true, false
	}
	return at + off, true, true
}

// vector checks a vector slot of elements elemSize bytes wide and returns
// its start and length.
func (t fbTable) vector(slot int, elemSize int64) (start, n int64, ok bool) {
	pos, present, ok := t.indirect(slot)
	if !ok || !present {
		return 0, 0, ok
	}
	n, ok = u32At(t.buf, pos)
	if !ok || pos+4+n*elemSize > int64(len(t.buf)) {
		return 0, 0, false
	}
	return pos + 4, n, true
}

// tables checks a vector of tables and each element with check.
func (t fbTable) tables(slot int, check func(fbTable) bool) bool {
	start, n, ok := t.vector(slot, 4)
	if !ok {
		return false
	}
	for i := int64(0); i < n; i++ {
		at := start + 4*i
		off, _ := u32At(t.buf, at)
		el, ok := tableAt(t.buf, at+off)
		if !ok || !check(el) {
			return false
		}
	}
	return true
}

// sub checks an optional sub-table slot with check.
func (t fbTable) sub(slot int, check func(fbTable) bool) bool {
	pos, present, ok := t.indirect(slot)
	if !ok || !present {
		return ok
	}
	el, ok := tableAt(t.buf, pos)
	return ok && check(el)
}

func checkKeyValue(t fbTable) bool {
	_, _, ok1 := t.vector(0, 1)
	_, _, ok2 := t.vector(1, 1)
	return ok1 && ok2
}

func checkFooter(t fbTable) bool {
	_, _, okDict := t.vector(2, 24)
	_, _, okBatches := t.vector(3, 24)
	return okDict && okBatches && t.sub(1, checkSchema) && t.tables(4, checkKeyValue)
}

func checkSchema(t fbTable) bool {
	_, _, okFeatures := t.vector(3, 8)
	return okFeatures && t.tables(1, fieldChecker(0)) && t.tables(2, checkKeyValue)
}

// fieldChecker checks Field tables, recursing into children to a bound.
func fieldChecker(depth int) func(fbTable) bool {
	return func(t fbTable) bool {
		if depth > 64 {
			return false
		}
		_, _, okName := t.vector(0, 1)
		return okName && t.sub(3, checkAnyTable) && t.sub(4, checkAnyTable) &&
			t.tables(5, fieldChecker(depth+1)) && t.tables(6, checkKeyValue)
	}
}

// checkAnyTable accepts a table whose framing (position and vtable)
// tableAt already checked: type descriptions, dictionary encodings and
// compression settings hold scalars, and arrow-go allocates nothing from
// their few vectors.
func checkAnyTable(fbTable) bool { return true }

// checkMessage checks a Message and returns its body length.
func checkMessage(t fbTable) (int64, bool) {
	var body int64
	if at := t.field(3); at >= 0 {
		if at+8 > int64(len(t.buf)) {
			return 0, false
		}
		body = int64(binary.LittleEndian.Uint64(t.buf[at:]))
	}
	headerType := byte(0)
	if at := t.field(1); at >= 0 {
		if at >= int64(len(t.buf)) {
			return 0, false
		}
		headerType = t.buf[at]
	}
	var check func(fbTable) bool
	switch headerType {
	case 1:
		check = checkSchema
	case 2:
		check = func(d fbTable) bool { return d.sub(1, checkRecordBatch) }
	case 3:
		check = checkRecordBatch
	default:
		check = checkAnyTable
	}
	return body, t.sub(2, check) && t.tables(4, checkKeyValue)
}

func checkRecordBatch(t fbTable) bool {
	_, _, okNodes := t.vector(1, 16)
	_, _, okBuffers := t.vector(2, 16)
	_, _, okVariadic := t.vector(4, 8)
	return okNodes && okBuffers && okVariadic && t.sub(3, checkAnyTable)
}
