package audit

import (
	"bytes"
	"fmt"
	"slices"

	"formation/canon"
)

// A batch is stored in one of two forms, both canonical JSON:
//
//   - a list of records (every batch written before stop 28, and a batch
//     whose records differ in stage, subject or input digests);
//   - a shared batch: one object holding what every record of the batch
//     shares (code version, input digests, schema version, stage, subject,
//     time) once, and a list "records" of what each record says for itself
//     (detail, key, kind, reason code).
//
// The shared form exists for size. Forge notes every candidate accepted on
// a span it could not compare byte for byte: at 10,000 relations of the
// original's workload shape that is 16,000 records, and in the list form
// each repeated the same three input digests, stage, subject, time and
// code version, 9.4 MB a batch, whose encoding, hashing and synced write
// were most of the forge stage's frame. DecodeBatch reads both forms into
// the same records.

// sharedBatch is the shared form of a batch (keys in canon's order).
type sharedBatch struct {
	CodeVersion   string        `json:"code_version"`
	InputDigests  []string      `json:"input_digests"`
	Records       []ownedRecord `json:"records"`
	SchemaVersion string        `json:"schema_version"`
	Stage         string        `json:"stage"`
	Subject       string        `json:"subject"`
	Time          string        `json:"time"`
}

// ownedRecord is what one record of a shared batch says for itself.
type ownedRecord struct {
	Detail     string `json:"detail"`
	Key        string `json:"key"`
	Kind       string `json:"kind"`
	ReasonCode string `json:"reason_code"`
}

// DecodeBatch reads a stored batch of either form, compressed or not (see
// Unpack), into its records.
func DecodeBatch(stored []byte) ([]Record, error) {
	body, err := Unpack(stored)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []Record
		if err := canon.Unmarshal(body, &batch); err != nil {
			return nil, err
		}
		return batch, nil
	}
	var sb sharedBatch
	if err := canon.Unmarshal(body, &sb); err != nil {
		return nil, err
	}
	if sb.Records == nil || sb.InputDigests == nil {
		return nil, fmt.Errorf("audit: a shared batch without %q or %q", "records", "input_digests")
	}
	out := make([]Record, len(sb.Records))
	for i, o := range sb.Records {
		out[i] = Record{SchemaVersion: sb.SchemaVersion, Time: sb.Time, Stage: sb.Stage, Subject: sb.Subject,
			Kind: o.Kind, ReasonCode: o.ReasonCode, Key: o.Key, Detail: o.Detail,
			InputDigests: slices.Clip(sb.InputDigests), CodeVersion: sb.CodeVersion}
	}
	return out, nil
}

// shares reports whether recs may be written in the shared form: they
// agree on stage, subject and input digests (no list and an empty one
// being the same). Writer.Append gives every record of a batch the same
// schema version, time and code version itself.
func shares(recs []Record) bool {
	for i := 1; i < len(recs); i++ {
		r := &recs[i]
		if r.Stage != recs[0].Stage || r.Subject != recs[0].Subject || !slices.Equal(r.InputDigests, recs[0].InputDigests) {
			return false
		}
	}
	return len(recs) > 0
}

// sharedSize is about the encoded size of recs in the shared form.
func sharedSize(recs []Record) int {
	n := 200
	for _, d := range recs[0].InputDigests {
		n += len(d) + 3
	}
	for i := range recs {
		r := &recs[i]
		n += 50 + len(r.Detail) + len(r.Key) + len(r.Kind) + len(r.ReasonCode)
	}
	return n
}

// appendShared appends canon.Marshal of the shared form of the n records
// record returns (which share their stage, subject, input digests, schema
// version, time and code version) to b, without reflection;
// flush is appendRecords'. On a string that is not valid UTF-8 it returns
// canon.Marshal's error and b as it was. TestSharedEncodingIsCanon and
// FuzzBatchEncoding hold it equal to canon.Marshal.
func appendShared(b []byte, n int, record func(i int) Record, flush func([]byte)) ([]byte, error) {
	e := newBatchEncoder(b, flush)
	first := record(0)
	e.str(`{"code_version":`, first.CodeVersion)
	e.list(`,"input_digests":`, first.InputDigests)
	e.b = append(e.b, `,"records":[`...)
	// A detail equal to the previous record's is copied from where that one
	// was encoded: forge's notes repeat one detail per source.
	var prevDetail string
	var detail span
	for i := range n {
		r := record(i)
		if i > 0 {
			e.raw(',')
		}
		e.again(&detail, i > 0 && r.Detail == prevDetail, func() { e.str(`{"detail":`, r.Detail) })
		prevDetail = r.Detail
		e.str(`,"key":`, r.Key)
		e.str(`,"kind":`, r.Kind)
		e.str(`,"reason_code":`, r.ReasonCode)
		e.raw('}')
		e.part()
	}
	e.str(`],"schema_version":`, first.SchemaVersion)
	e.str(`,"stage":`, first.Stage)
	e.str(`,"subject":`, first.Subject)
	e.str(`,"time":`, first.Time)
	e.raw('}')
	return e.finish(func() any { return sharedOf(n, record) })
}

// sharedOf is the shared form of the n records record returns.
func sharedOf(n int, record func(i int) Record) sharedBatch {
	first := record(0)
	sb := sharedBatch{CodeVersion: first.CodeVersion, InputDigests: first.InputDigests, SchemaVersion: first.SchemaVersion,
		Stage: first.Stage, Subject: first.Subject, Time: first.Time, Records: make([]ownedRecord, n)}
	if sb.InputDigests == nil {
		sb.InputDigests = []string{}
	}
	for i := range n {
		r := record(i)
		sb.Records[i] = ownedRecord{Detail: r.Detail, Key: r.Key, Kind: r.Kind, ReasonCode: r.ReasonCode}
	}
	return sb
}
