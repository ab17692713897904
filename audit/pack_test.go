package audit

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"formation/store"
)

// forgeNotes is a batch like forge's on the original's workload shape: a
// note per accepted candidate, each naming its triple and a source digest.
func forgeNotes(n int) []Record {
	inputs := []string{strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)}
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Stage: "forge", Subject: "origshape", Kind: KindNote, ReasonCode: "span_not_byte_checked",
			Key:          fmt.Sprintf("relation term%d is_a term%d", i, i/7),
			Detail:       fmt.Sprintf("accepted; span not byte-checked for curated source(s) %064x", i*7919),
			InputDigests: inputs}
	}
	return recs
}

// A large batch is stored as one zstd frame, much smaller than its
// encoding, and reads back as the same records through a real store; a
// small one is stored as its canonical JSON, as before.
func TestLargeBatchesAreStoredPacked(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	w := &Writer{Store: s, Now: func() time.Time { clock = clock.Add(time.Second); return clock }, CodeVersion: "test"}
	for _, n := range []int{2, 16000} {
		recs := forgeNotes(n)
		if err := w.Append(ctx, recs...); err != nil {
			t.Fatal(err)
		}
		names, err := s.ListRefs(ctx, "audit/origshape/forge/")
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names)
		stored, _, err := s.GetRef(ctx, names[len(names)-1])
		if err != nil {
			t.Fatal(err)
		}
		body, err := Unpack(stored)
		if err != nil {
			t.Fatal(err)
		}
		packed := bytes.HasPrefix(stored, zstdMagic)
		if packed != (n > 2) || (!packed && !bytes.Equal(body, stored)) {
			t.Fatalf("%d records: stored compressed %v", n, packed)
		}
		if packed && len(stored)*5 > len(body) {
			t.Fatalf("%d records: %d bytes stored for %d", n, len(stored), len(body))
		}
		t.Logf("%d records: %d bytes of batch stored in %d", n, len(body), len(stored))
		back, err := DecodeBatch(stored)
		if err != nil || len(back) != n || back[n-1].Key != recs[n-1].Key || back[n-1].Detail != recs[n-1].Detail {
			t.Fatalf("%d records read back as %d (%v)", n, len(back), err)
		}
	}
	all, err := List(ctx, s, Filter{Subject: "origshape"})
	if err != nil || len(all) != 16002 {
		t.Fatalf("List: %d records, %v", len(all), err)
	}
}

// Unpack refuses a damaged frame, a truncated one, one that expands past
// the cap and one that holds another frame; bytes that are no frame pass
// through as they are.
func TestUnpackRefuses(t *testing.T) {
	body, err := appendBatch(nil, forgeNotes(2000))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := pack(body)
	if err != nil || !bytes.HasPrefix(stored, zstdMagic) {
		t.Fatalf("pack: %v", err)
	}
	if got, err := unpack(stored, int64(len(body))); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("a batch of exactly the cap: %v", err)
	}
	flipped := bytes.Clone(stored)
	flipped[len(flipped)/2] ^= 0x40
	twice, err := compress(stored)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]struct {
		stored []byte
		limit  int64
	}{
		"damaged":   {flipped, MaxBatchBytes},
		"truncated": {stored[:len(stored)-9], MaxBatchBytes},
		"magic":     {zstdMagic, MaxBatchBytes},
		"past cap":  {stored, int64(len(body)) - 1},
		"nested":    {twice, MaxBatchBytes},
	} {
		if _, err := unpack(bad.stored, bad.limit); err == nil {
			t.Fatalf("%s: unpacked", name)
		}
		if bad.limit == MaxBatchBytes {
			if _, err := DecodeBatch(bad.stored); err == nil {
				t.Fatalf("%s: decoded", name)
			}
		}
	}
	for _, plain := range [][]byte{nil, []byte(`[]`), []byte{0x28, 0xb5}} {
		if got, err := Unpack(plain); err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("Unpack(%q) = %q, %v", plain, got, err)
		}
	}
}

// FuzzDecodeBatch: no stored bytes make DecodeBatch panic, and a batch it
// reads reads the same compressed.
func FuzzDecodeBatch(f *testing.F) {
	for _, n := range []int{1, 400} {
		body, err := appendBatch(nil, forgeNotes(n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
		packed, err := compress(body)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(packed)
	}
	f.Add([]byte(`{"code_version":"v","input_digests":[],"records":[],"schema_version":"1","stage":"s","subject":"x","time":"t"}`))
	f.Fuzz(func(t *testing.T, stored []byte) {
		recs, err := DecodeBatch(stored)
		if err != nil || bytes.HasPrefix(stored, zstdMagic) {
			return
		}
		packed, err := compress(stored)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeBatch(packed)
		if err != nil || !reflect.DeepEqual(again, recs) {
			t.Fatalf("compressed, the batch reads as %d records (%v), not %d", len(again), err, len(recs))
		}
	})
}
