package store_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"formation/internal/testutil"
	"formation/store"
	"formation/store/filestore"
)

// BenchmarkPutGet measures a Put of fresh bytes followed by a verified Get on
// each backend. SetBytes counts the object once, so MB/s is object bytes
// round-tripped (written and read back) per second.
func BenchmarkPutGet(b *testing.B) {
	backends := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"file", func(b *testing.B) store.Store {
			s, err := filestore.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"s3", func(b *testing.B) store.Store {
			srv := testutil.StartS3(b)
			srv.SetEnv(b)
			s, err := store.Open(b.Context(), "s3://"+srv.Bucket+"/bench")
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	sizes := []struct {
		name string
		n    int
	}{{"1KB", 1 << 10}, {"4MB", 4 << 20}}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b)
			for _, size := range sizes {
				b.Run(size.name, func(b *testing.B) { benchPutGet(b, s, size.n) })
			}
		})
	}
}

func benchPutGet(b *testing.B, s store.Store, n int) {
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b.SetBytes(int64(n))
	var i uint64
	for b.Loop() {
		i++
		// A new first word per iteration: every Put stores a new object.
		binary.LittleEndian.PutUint64(data, i^uint64(n)<<40)
		d, err := s.Put(b.Context(), data)
		if err != nil {
			b.Fatal(err)
		}
		got, err := s.Get(b.Context(), d)
		if err != nil || len(got) != n {
			b.Fatal(fmt.Errorf("get %s: %d bytes, %w", d, len(got), err))
		}
	}
}
