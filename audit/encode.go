package audit

import "formation/canon"

// appendBatch appends canon.Marshal(batch)'s bytes to b without reflection
// (keys in byte order; a nil list is [], as canon writes it): a stage that
// notes every candidate writes a record per candidate, and encoding them
// through reflection was a third of the forge stage's frame at 10,000
// relations. On a string that is not valid UTF-8 it returns canon.Marshal's
// error. TestBatchEncodingIsCanon and FuzzBatchEncoding hold it equal to
// canon.Marshal.
func appendBatch(b []byte, batch []Record) ([]byte, error) {
	start := len(b)
	var err error
	str := func(prefix, s string) {
		b = append(b, prefix...)
		if err == nil {
			b, err = canon.AppendString(b, s)
		}
	}
	b = append(b, '[')
	for i := range batch {
		r := &batch[i]
		if i > 0 {
			b = append(b, ',')
		}
		str(`{"code_version":`, r.CodeVersion)
		str(`,"detail":`, r.Detail)
		b = append(b, `,"input_digests":[`...)
		for j, d := range r.InputDigests {
			if j > 0 {
				b = append(b, ',')
			}
			str("", d)
		}
		str(`],"key":`, r.Key)
		str(`,"kind":`, r.Kind)
		str(`,"reason_code":`, r.ReasonCode)
		str(`,"schema_version":`, r.SchemaVersion)
		str(`,"stage":`, r.Stage)
		str(`,"subject":`, r.Subject)
		str(`,"time":`, r.Time)
		b = append(b, '}')
	}
	b = append(b, ']')
	if err != nil {
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
