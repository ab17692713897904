package audit

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"formation/canon"
)

// A batch's direct encoding is canon.Marshal's, byte for byte, and fails
// exactly where canon.Marshal does, with its error.
func TestBatchEncodingIsCanon(t *testing.T) {
	strs := []string{"", "forge", "forgx", "x", "span_not_byte_checked", "a \"quoted\" word\\", "tab\tline\nctrl\x01", "café 日本語 🙂", "bad\xffutf8", "\u2028"}
	r := rand.New(rand.NewPCG(1, 9))
	s := func() string { return strs[r.IntN(len(strs))] }
	failed := 0
	for i := range 5000 {
		batch := make([]Record, r.IntN(4))
		for j := range batch {
			batch[j] = Record{SchemaVersion: s(), Time: s(), Stage: s(), Subject: s(), Kind: s(), ReasonCode: s(), Key: s(), Detail: s(), CodeVersion: s()}
			switch r.IntN(3) {
			case 1:
				batch[j].InputDigests = []string{}
			case 2:
				batch[j].InputDigests = []string{s(), s()}
			}
		}
		want, wantErr := canon.Marshal(batch)
		got, err := appendBatch([]byte("prefix"), batch)
		if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("batch %d: direct error %v, canon error %v", i, err, wantErr)
		}
		if err != nil {
			if string(got) != "prefix" {
				t.Fatalf("batch %d: a failed encoding left %q", i, got)
			}
			failed++
			continue
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("batch %d:\ndirect %s\ncanon  %s", i, got, want)
		}
	}
	if failed == 0 || failed == 5000 {
		t.Fatalf("%d of 5000 batches failed to encode: the test does not cover both outcomes", failed)
	}
}

func FuzzBatchEncoding(f *testing.F) {
	f.Add("forge", "note", "span_not_byte_checked", "relation a|is|b", "no text stored", "0123abcd", true)
	f.Add("", "bad\xff", "\"", "\\", "\n\x01", "", false)
	f.Fuzz(func(t *testing.T, stage, kind, reason, key, detail, digest string, digests bool) {
		rec := Record{SchemaVersion: "v", Time: "2026-05-16T00:00:00Z", Stage: stage, Subject: key, Kind: kind,
			ReasonCode: reason, Key: key, Detail: detail, CodeVersion: digest}
		if digests {
			rec.InputDigests = []string{digest, stage}
		}
		// The same record twice, then one whose values differ from it in
		// places: a record equal to the previous one is encoded from it.
		other := rec
		other.Detail, other.Key, other.CodeVersion, other.Stage = rec.Key, rec.Detail, rec.Stage, rec.CodeVersion
		if digests {
			other.InputDigests = []string{stage, digest}
		}
		batch := []Record{rec, rec, other, rec}
		want, wantErr := canon.Marshal(batch)
		got, err := appendBatch(nil, batch)
		if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("direct %q (%v), canon %q (%v)", got, err, want, wantErr)
		}
	})
}

// BenchmarkAppendBatch encodes forge's batch at 10,000 relations: a note
// per accepted candidate, every record naming the stage's three inputs.
func BenchmarkAppendBatch(b *testing.B) {
	digest := func(c byte) string { return string(bytes.Repeat([]byte{c}, 64)) }
	inputs := []string{digest('a'), digest('b'), digest('c')}
	batch := make([]Record, 15500)
	for i := range batch {
		batch[i] = Record{SchemaVersion: "1", Time: "2026-12-01T22:00:00Z", Stage: "forge", Subject: "micro", Kind: KindNote,
			ReasonCode: "span_not_checked", Key: "relation term" + string(rune('a'+i%26)) + " is a thing",
			Detail:       "accepted; span not byte-checked for curated source(s) " + digest('d'),
			InputDigests: inputs, CodeVersion: "v0.0.0-devel"}
	}
	b.SetBytes(int64(batchSize(batch)))
	for b.Loop() {
		if _, err := appendBatch(make([]byte, 0, batchSize(batch)), batch); err != nil {
			b.Fatal(err)
		}
	}
}
