package audit

import (
	"slices"

	"formation/canon"
	"formation/internal/pipehash"
)

// appendBatch appends canon.Marshal(batch)'s bytes to b without reflection
// (keys in byte order; a nil list is [], as canon writes it): a stage that
// notes every candidate writes a record per candidate, and encoding them
// through reflection was a third of the forge stage's frame at 10,000
// relations. On a string that is not valid UTF-8 it returns canon.Marshal's
// error. TestBatchEncodingIsCanon and FuzzBatchEncoding hold it equal to
// canon.Marshal.
func appendBatch(b []byte, batch []Record) ([]byte, error) {
	return appendRecords(b, len(batch), func(i int) Record { return batch[i] }, nil)
}

// flushEvery is how many encoded bytes appendRecords gathers before it
// hands them to its flush function.
const flushEvery = pipehash.From

// appendRecords is appendBatch over the n records record returns, so that a caller which changes every record on its way into the
// batch (Writer.Append stamps and redacts them) need not build a copy of
// the batch first. When flush is not nil it is handed each part of the
// encoding once about flushEvery bytes have gathered, in order; the parts
// it was handed and the bytes after them make up the encoding, and a part,
// once handed, is never written again (b only grows; a larger buffer is a
// copy). On an error the parts handed are no encoding of anything.
func appendRecords(b []byte, n int, record func(i int) Record, flush func([]byte)) ([]byte, error) {
	e := newBatchEncoder(b, flush)
	// A batch's records mostly share their values (one stage, subject,
	// time, code version and list of inputs; forge's notes one detail per
	// source), so a value equal to the previous record's is copied from
	// where that one was encoded instead of being checked and escaped again.
	var (
		cur, prev Record
		seen      [4]span // code_version's, detail's, input_digests', and everything after key's
	)
	e.raw('[')
	for i := range n {
		cur = record(i)
		r := &cur
		if i > 0 {
			e.raw(',')
		}
		p := i > 0
		e.again(&seen[0], p && r.CodeVersion == prev.CodeVersion, func() { e.str(`{"code_version":`, r.CodeVersion) })
		e.again(&seen[1], p && r.Detail == prev.Detail, func() { e.str(`,"detail":`, r.Detail) })
		e.again(&seen[2], p && slices.Equal(r.InputDigests, prev.InputDigests), func() { e.list(`,"input_digests":`, r.InputDigests) })
		e.str(`,"key":`, r.Key)
		e.again(&seen[3], p && r.Kind == prev.Kind && r.ReasonCode == prev.ReasonCode && r.SchemaVersion == prev.SchemaVersion &&
			r.Stage == prev.Stage && r.Subject == prev.Subject && r.Time == prev.Time, func() {
			e.str(`,"kind":`, r.Kind)
			e.str(`,"reason_code":`, r.ReasonCode)
			e.str(`,"schema_version":`, r.SchemaVersion)
			e.str(`,"stage":`, r.Stage)
			e.str(`,"subject":`, r.Subject)
			e.str(`,"time":`, r.Time)
			e.raw('}')
		})
		prev = cur
		e.part()
	}
	e.raw(']')
	return e.finish(func() any {
		batch := make([]Record, n)
		for i := range batch {
			batch[i] = record(i)
		}
		return batch
	})
}

// span is where a value was encoded in a batchEncoder's buffer.
type span struct{ from, to int }

// batchEncoder is what both forms of a batch are written with: canonical
// strings appended to one buffer that only grows (so an encoded span stays
// put and may be copied), its finished parts handed to flush, and the first
// encoding error kept.
type batchEncoder struct {
	b              []byte
	start, flushed int
	flush          func([]byte)
	err            error
}

func newBatchEncoder(b []byte, flush func([]byte)) *batchEncoder {
	return &batchEncoder{b: b, start: len(b), flushed: len(b), flush: flush}
}

func (e *batchEncoder) raw(c byte) { e.b = append(e.b, c) }

// str writes prefix, then s as a canonical string.
func (e *batchEncoder) str(prefix, s string) {
	e.b = append(e.b, prefix...)
	if e.err == nil {
		e.b, e.err = canon.AppendString(e.b, s)
	}
}

// list writes prefix, then ss as a list of canonical strings.
func (e *batchEncoder) list(prefix string, ss []string) {
	e.b = append(append(e.b, prefix...), '[')
	for j, s := range ss {
		if j > 0 {
			e.raw(',')
		}
		e.str("", s)
	}
	e.raw(']')
}

// again copies the value last written at *at when same says the value is
// equal to it, or else writes it and remembers where.
func (e *batchEncoder) again(at *span, same bool, write func()) {
	if same && e.err == nil {
		e.b = append(e.b, e.b[at.from:at.to]...)
		return
	}
	from := len(e.b)
	write()
	*at = span{from, len(e.b)}
}

// part hands flush the bytes written since the last part, once about
// flushEvery of them have gathered.
func (e *batchEncoder) part() {
	if e.flush != nil && e.err == nil && len(e.b)-e.flushed >= flushEvery {
		e.flush(e.b[e.flushed:len(e.b):len(e.b)])
		e.flushed = len(e.b)
	}
}

// finish returns the encoding, or on an error the buffer as it was given
// and canon.Marshal's own words for the fault in whole().
func (e *batchEncoder) finish(whole func() any) ([]byte, error) {
	if e.err == nil {
		return e.b, nil
	}
	err := e.err
	if _, merr := canon.Marshal(whole()); merr != nil {
		err = merr
	}
	return e.b[:e.start], err
}

// batchSize is about the encoded size of batch (its strings, their quotes
// and its keys; escapes aside), so that a large batch is encoded into one
// allocation instead of a buffer grown by doubling.
func batchSize(batch []Record) int {
	n := 2
	for i := range batch {
		r := &batch[i]
		n += 160 + len(r.CodeVersion) + len(r.Detail) + len(r.Key) + len(r.Kind) + len(r.ReasonCode) +
			len(r.SchemaVersion) + len(r.Stage) + len(r.Subject) + len(r.Time)
		for _, d := range r.InputDigests {
			n += len(d) + 3
		}
	}
	return n
}
