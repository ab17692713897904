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
	start := len(b)
	flushed := start
	var err error
	// A batch's records mostly share their values (one stage, subject,
	// time, code version and list of inputs; forge's notes one detail per
	// source), so a value equal to the previous record's is copied from
	// where that one was encoded instead of being checked and escaped again:
	// b only grows, so an encoded range stays put.
	type span struct{ from, to int }
	var (
		cur, prev Record
		seen      [4]span // code_version's, detail's, input_digests', and everything after key's
	)
	str := func(prefix, s string) {
		b = append(b, prefix...)
		if err == nil {
			b, err = canon.AppendString(b, s)
		}
	}
	// again copies part i of the previous record when same says its values
	// are equal, or else writes it and remembers where.
	again := func(i int, same bool, write func()) {
		if same && err == nil {
			b = append(b, b[seen[i].from:seen[i].to]...)
			return
		}
		from := len(b)
		write()
		seen[i] = span{from, len(b)}
	}
	b = append(b, '[')
	for i := range n {
		cur = record(i)
		r := &cur
		if i > 0 {
			b = append(b, ',')
		}
		p := i > 0
		again(0, p && r.CodeVersion == prev.CodeVersion, func() { str(`{"code_version":`, r.CodeVersion) })
		again(1, p && r.Detail == prev.Detail, func() { str(`,"detail":`, r.Detail) })
		again(2, p && slices.Equal(r.InputDigests, prev.InputDigests), func() {
			b = append(b, `,"input_digests":[`...)
			for j, d := range r.InputDigests {
				if j > 0 {
					b = append(b, ',')
				}
				str("", d)
			}
			b = append(b, ']')
		})
		str(`,"key":`, r.Key)
		again(3, p && r.Kind == prev.Kind && r.ReasonCode == prev.ReasonCode && r.SchemaVersion == prev.SchemaVersion &&
			r.Stage == prev.Stage && r.Subject == prev.Subject && r.Time == prev.Time, func() {
			str(`,"kind":`, r.Kind)
			str(`,"reason_code":`, r.ReasonCode)
			str(`,"schema_version":`, r.SchemaVersion)
			str(`,"stage":`, r.Stage)
			str(`,"subject":`, r.Subject)
			str(`,"time":`, r.Time)
			b = append(b, '}')
		})
		prev = cur
		if flush != nil && err == nil && len(b)-flushed >= flushEvery {
			flush(b[flushed:len(b):len(b)])
			flushed = len(b)
		}
	}
	b = append(b, ']')
	if err != nil {
		batch := make([]Record, n)
		for i := range batch {
			batch[i] = record(i)
		}
		if _, merr := canon.Marshal(batch); merr != nil {
			err = merr // canon's own words for the fault
		}
		return b[:start], err
	}
	return b, nil
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
