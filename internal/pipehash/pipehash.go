// Package pipehash computes the SHA-256 of a buffer while the buffer is
// still being written: the writer hands over each part it has finished,
// and a goroutine hashes the parts as they come, so that when the writing
// ends only the bytes after the last part remain to be hashed. An audit
// batch being encoded and an object being decompressed are hashed so.
package pipehash

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// From is the size from which handing parts over pays for the goroutine:
// below it, hash the whole buffer at the end.
const From = 1 << 20

// queued is how many parts may wait for the hashing goroutine before the
// writer waits for it.
const queued = 64

// SHA256 hashes the parts of a buffer handed to Add, in order. A part must
// not change once handed over (a buffer that only grows never writes its
// old bytes again, and a larger copy of it leaves the old array as it
// was). The zero value is ready; Sum or Stop must end every SHA256 that
// was handed a part, so that its goroutine ends.
type SHA256 struct {
	h     hash.Hash
	parts chan []byte
	done  chan struct{}
	n     int // bytes handed over
}

// Add hands over the next part of the buffer.
func (p *SHA256) Add(part []byte) {
	if p.h == nil {
		p.h = sha256.New()
		p.parts = make(chan []byte, queued)
		p.done = make(chan struct{})
		go func() {
			defer close(p.done)
			for part := range p.parts {
				p.h.Write(part)
			}
		}()
	}
	p.parts <- part
	p.n += len(part)
}

// Len is how many bytes have been handed over.
func (p *SHA256) Len() int { return p.n }

// Sum returns the lowercase hex SHA-256 of all, the whole buffer, whose
// first Len bytes are the parts handed over.
func (p *SHA256) Sum(all []byte) string {
	if p.h == nil {
		s := sha256.Sum256(all)
		return hex.EncodeToString(s[:])
	}
	p.Stop()
	p.h.Write(all[p.n:])
	return hex.EncodeToString(p.h.Sum(nil))
}

// Stop waits until the parts handed over are hashed and ends the
// goroutine; a writer that gives up calls it instead of Sum.
func (p *SHA256) Stop() {
	if p.parts != nil {
		close(p.parts)
		<-p.done
		p.parts = nil
	}
}
