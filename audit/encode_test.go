package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/artifact"
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
		// The shared form of records that share (other's own fields
		// only differ), and the records read back from it.
		other = rec
		other.Detail, other.Key, other.Kind, other.ReasonCode = rec.Key, rec.Detail, rec.ReasonCode, rec.Kind
		sharing := []Record{rec, rec, other, rec}
		checkShared(t, sharing)
	})
}

// checkShared holds the shared form of recs (which share) to canon.Marshal
// of it, error for error, and holds DecodeBatch of it to recs.
func checkShared(t *testing.T, recs []Record) {
	t.Helper()
	at := func(i int) Record { return recs[i] }
	want, wantErr := canon.Marshal(sharedOf(len(recs), at))
	got, err := appendShared([]byte("prefix"), len(recs), at, nil)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("shared form: direct error %v, canon error %v", err, wantErr)
	}
	if err != nil {
		if string(got) != "prefix" {
			t.Fatalf("a failed shared encoding left %q", got)
		}
		return
	}
	if !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Fatalf("shared form:\ndirect %s\ncanon  %s", got, want)
	}
	back, err := DecodeBatch(want)
	if err != nil {
		t.Fatalf("decode the shared form: %v", err)
	}
	wantBack := slices.Clone(recs)
	for i := range wantBack {
		if wantBack[i].InputDigests == nil {
			wantBack[i].InputDigests = []string{}
		}
	}
	if !reflect.DeepEqual(back, wantBack) {
		t.Fatalf("the shared form reads back as\n%+v\nnot\n%+v", back, wantBack)
	}
}

// The shared form's direct encoding is canon.Marshal's, byte for byte, and
// fails exactly where canon.Marshal does; it reads back as the records.
func TestSharedEncodingIsCanon(t *testing.T) {
	strs := []string{"", "forge", "note", "span_not_checked", "a \"quoted\" word\\", "tab\tline\nctrl\x01", "café 日本語 🙂", "bad\xffutf8", "\u2028"}
	r := rand.New(rand.NewPCG(2, 8))
	s := func() string { return strs[r.IntN(len(strs))] }
	for range 3000 {
		shared := Record{SchemaVersion: s(), Time: s(), Stage: s(), Subject: s(), CodeVersion: s()}
		switch r.IntN(3) {
		case 1:
			shared.InputDigests = []string{}
		case 2:
			shared.InputDigests = []string{s(), s()}
		}
		recs := make([]Record, 1+r.IntN(4))
		for j := range recs {
			recs[j] = shared
			recs[j].Kind, recs[j].ReasonCode, recs[j].Key, recs[j].Detail = s(), s(), s(), s()
			if j > 0 && r.IntN(2) == 0 {
				recs[j].Detail = recs[j-1].Detail
			}
		}
		checkShared(t, recs)
	}
}

// A batch takes the shared form exactly when its records agree on stage,
// subject and input digests; a stored list of records (every batch before
// the shared form) still reads.
func TestBatchFormChosenAndBothRead(t *testing.T) {
	in := []string{strings.Repeat("a", 64)}
	base := Record{Stage: "forge", Subject: "micro", Kind: KindNote, ReasonCode: "span_not_checked", Key: "k", InputDigests: in}
	for _, c := range []struct {
		change func(*Record)
		shared bool
	}{
		{func(*Record) {}, true},
		{func(r *Record) { r.Key, r.Detail, r.Kind, r.ReasonCode = "k2", "d2", KindDrop, "duplicate_merged" }, true},
		{func(r *Record) { r.Stage = "mine" }, false},
		{func(r *Record) { r.Subject = "other" }, false},
		{func(r *Record) { r.InputDigests = nil }, false},
		{func(r *Record) { r.InputDigests = []string{strings.Repeat("b", 64)} }, false},
	} {
		second := base
		second.InputDigests = slices.Clone(in)
		c.change(&second)
		var got capture
		w := &Writer{Store: &got, Now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }, CodeVersion: "v1"}
		if err := w.Append(context.Background(), base, second); err != nil {
			t.Fatal(err)
		}
		if isShared := got.body[0] == '{'; isShared != c.shared {
			t.Fatalf("records %+v and %+v: shared form %v, want %v", base, second, isShared, c.shared)
		}
		back, err := DecodeBatch(got.body)
		if err != nil || len(back) != 2 || back[1].Key != second.Key || back[1].Stage != second.Stage ||
			back[1].Subject != second.Subject || back[1].Time != "2026-12-02T00:00:00Z" || back[1].CodeVersion != "v1" {
			t.Fatalf("read back %+v (%v)", back, err)
		}
	}
	legacy := []byte(`[{"code_version":"v0","detail":"d","input_digests":[],"key":"k","kind":"drop","reason_code":"duplicate_merged","schema_version":"1.0.0","stage":"forge","subject":"optics","time":"2026-05-16T00:00:00Z"}]`)
	back, err := DecodeBatch(legacy)
	if err != nil || len(back) != 1 || back[0].ReasonCode != "duplicate_merged" || back[0].Subject != "optics" {
		t.Fatalf("a list batch reads as %+v (%v)", back, err)
	}
	for _, bad := range []string{`{"records":[]}`, `{}`, `"x"`, `[{"kind":1}]`, ``} {
		if _, err := DecodeBatch([]byte(bad)); err == nil {
			t.Fatalf("DecodeBatch(%q) took it", bad)
		}
	}
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

// capture is a RefStore that keeps what SetRef is given.
type capture struct {
	name string
	body []byte
}

func (c *capture) GetRef(context.Context, string) ([]byte, string, error) { return nil, "", nil }
func (c *capture) ListRefs(context.Context, string) ([]string, error)     { return nil, nil }
func (c *capture) SetRef(_ context.Context, name, _ string, value []byte) (string, error) {
	c.name, c.body = name, value
	return "", nil
}

// Append stamps and redacts each record on its way into the encoding and
// hashes the encoding as it grows; the batch it writes is canon.Marshal of
// the stamped, redacted copy Append used to build (in the shared form when
// the records share), and the batch's name
// ends with the first 16 hex digits of its SHA-256, whether the batch is
// small (hashed whole) or megabytes (hashed in parts on another goroutine).
func TestAppendWritesTheStampedBatch(t *testing.T) {
	const secret = "hunter2-secret-value"
	inputs := []string{strings.Repeat("a", 64), strings.Repeat("b", 64)}
	clock := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	for _, n := range []int{1, 3, 4000, 20000, -6, -20000} {
		// A negative n: -n records, some without input digests, so that
		// they do not share and the batch is a list of records.
		mixed := n < 0
		n = max(n, -n)
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = Record{Stage: "forge", Subject: "micro", Kind: KindNote, ReasonCode: "span_not_checked",
				Key: fmt.Sprintf("relation [\"term%d\",\"is\",\"t\"]", i), Detail: "accepted; span not byte-checked",
				InputDigests: inputs, Time: "ignored", SchemaVersion: "ignored"}
			switch i % 7 {
			case 3:
				recs[i].Detail = "the key " + secret + " was refused"
			case 5:
				if mixed {
					recs[i].InputDigests = nil
				}
			}
		}
		orig := slices.Clone(recs)
		w := &Writer{Now: func() time.Time { return clock }, CodeVersion: "v1", Secrets: []string{secret}}
		want := make([]Record, n)
		for i, r := range recs {
			r.SchemaVersion, r.Time, r.CodeVersion = artifact.SchemaVersion, "2026-12-01T22:00:00Z", "v1"
			if r.InputDigests == nil {
				r.InputDigests = []string{}
			}
			r.Detail = strings.ReplaceAll(r.Detail, secret, "[redacted]")
			want[i] = r
		}
		var whole any = want
		if !mixed {
			whole = sharedOf(n, func(i int) Record { return want[i] })
		}
		wantBody, err := canon.Marshal(whole)
		if err != nil {
			t.Fatal(err)
		}
		if got := shares(recs); got == mixed {
			t.Fatalf("%d records, mixed %v: shares %v", n, mixed, got)
		}
		var c capture
		w.Store = &c
		if err := w.Append(context.Background(), recs...); err != nil {
			t.Fatal(err)
		}
		body, err := Unpack(c.body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, wantBody) {
			t.Fatalf("%d records: the batch is not canon.Marshal of the stamped records", n)
		}
		if packed := bytes.HasPrefix(c.body, zstdMagic); packed != (len(wantBody) >= packFrom) {
			t.Fatalf("%d records, %d bytes: stored compressed %v", n, len(wantBody), packed)
		}
		sum := sha256.Sum256(wantBody)
		if !strings.HasSuffix(c.name, "-"+hex.EncodeToString(sum[:])[:16]) || !strings.HasPrefix(c.name, "audit/micro/forge/20261201T220000Z-") {
			t.Fatalf("%d records: batch named %s", n, c.name)
		}
		if !slices.EqualFunc(recs, orig, func(a, b Record) bool { return reflect.DeepEqual(a, b) }) {
			t.Fatalf("%d records: Append changed the caller's records", n)
		}
	}
}

// appendRecords hands its flush function parts of the encoding in order,
// each once about flushEvery bytes have gathered, and never writes a part
// again: the parts and the bytes after them are the encoding.
func TestFlushedPartsAreTheEncoding(t *testing.T) {
	batch := make([]Record, 30000)
	for i := range batch {
		batch[i] = Record{Stage: "forge", Subject: "micro", Kind: KindNote, Key: fmt.Sprint("key ", i), Detail: fmt.Sprint("detail ", i/3)}
	}
	var parts, copies [][]byte
	n := 0
	got, err := appendRecords(make([]byte, 0, 1024), len(batch), func(i int) Record { return batch[i] }, func(p []byte) {
		parts, copies = append(parts, p), append(copies, bytes.Clone(p))
		n += len(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := canon.Marshal(batch)
	if !bytes.Equal(got, want) {
		t.Fatal("the encoding with flushes is not canon.Marshal's")
	}
	if len(parts) < 2 {
		t.Fatalf("%d parts flushed from %d bytes", len(parts), len(got))
	}
	if !bytes.Equal(append(bytes.Join(parts, nil), got[n:]...), want) {
		t.Fatal("the parts and the rest are not the encoding")
	}
	for i := range parts {
		if !bytes.Equal(parts[i], copies[i]) {
			t.Fatalf("part %d was written again after it was flushed", i)
		}
		if len(parts[i]) < flushEvery {
			t.Fatalf("part %d holds %d bytes", i, len(parts[i]))
		}
	}
}
