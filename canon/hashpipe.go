package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// hashPipe hashes chunks on a second goroutine so that encoding and hashing
// of a large artifact overlap. It is only started once the first chunk is
// full; small values are hashed inline. Chunks travel through a small ring of
// buffers, so memory stays at a few chunk sizes whatever the artifact's size.
type hashPipe struct {
	h     hash.Hash
	work  chan []byte
	free  chan []byte
	done  chan struct{}
	start bool
}

const pipeDepth = 4

func newHashPipe() *hashPipe {
	return &hashPipe{h: sha256.New()}
}

// handOff takes a full chunk and returns an empty buffer to continue in.
func (p *hashPipe) handOff(chunk []byte) []byte {
	if !p.start {
		p.start = true
		p.work = make(chan []byte, pipeDepth)
		p.free = make(chan []byte, pipeDepth+1)
		p.done = make(chan struct{})
		for i := 0; i < pipeDepth; i++ {
			p.free <- make([]byte, 0, cap(chunk))
		}
		go p.loop()
	}
	p.work <- chunk
	return (<-p.free)[:0]
}

func (p *hashPipe) loop() {
	for chunk := range p.work {
		p.h.Write(chunk)
		p.free <- chunk
	}
	close(p.done)
}

// finish hashes the last partial chunk and returns the hex digest.
func (p *hashPipe) finish(last []byte) string {
	if p.start {
		close(p.work)
		<-p.done
	}
	p.h.Write(last)
	return hex.EncodeToString(p.h.Sum(nil))
}

// abort stops the goroutine after an encoding error.
func (p *hashPipe) abort() {
	if p.start {
		close(p.work)
		<-p.done
	}
}
