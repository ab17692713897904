package pipehash

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// Whatever parts a growing buffer is handed over in, and however often it
// is copied into a larger one meanwhile, Sum is the SHA-256 of the whole.
func TestSumIsTheWholeBuffersHash(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	for trial := range 200 {
		var p SHA256
		var buf []byte
		handed := 0
		for range r.IntN(40) {
			chunk := make([]byte, r.IntN(3000))
			for i := range chunk {
				chunk[i] = byte(r.Uint32())
			}
			buf = append(buf, chunk...)
			if r.IntN(3) == 0 && len(buf) > handed {
				p.Add(buf[handed:len(buf):len(buf)])
				handed = len(buf)
			}
		}
		if p.Len() != handed {
			t.Fatalf("trial %d: Len %d, handed %d", trial, p.Len(), handed)
		}
		want := sha256.Sum256(buf)
		if got := p.Sum(buf); got != hex.EncodeToString(want[:]) {
			t.Fatalf("trial %d: %s, want %x", trial, got, want)
		}
	}
}

// A writer that gives up stops the hash without a sum; stopping twice, or
// a hash never handed a part, is fine.
func TestStop(t *testing.T) {
	var p SHA256
	p.Add(bytes.Repeat([]byte("x"), 10))
	p.Stop()
	p.Stop()
	var q SHA256
	q.Stop()
	if q.Sum(nil) != hex.EncodeToString(func() []byte { s := sha256.Sum256(nil); return s[:] }()) {
		t.Fatal("the sum of an empty buffer")
	}
}
