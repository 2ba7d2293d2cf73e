package registry

import (
	"crypto/rand"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
)

// idBatch is how many ids one read of crypto/rand yields.
const idBatch = 256

// An idSource issues random (version 4, RFC 9562) JobIDs, the kind
// jobs.NewJobID makes, from crypto/rand bytes read idBatch ids at a time: an
// id then costs no system call and no allocation. Batches are kept in a
// sync.Pool, which holds one per processor, so starts on different cores
// never share one. Bytes are zeroed as they are handed out, so a batch never
// holds an id already issued; a batch the pool drops is garbage whose ids
// were never issued.
type idSource struct {
	batches sync.Pool // of *idBytes
}

type idBytes struct {
	buf [16 * idBatch]byte
	pos int // next unused byte; len(buf) when empty
}

func newIDSource() *idSource {
	s := &idSource{}
	s.batches.New = func() any { return &idBytes{pos: 16 * idBatch} }
	return s
}

func (s *idSource) next() jobs.JobID {
	var id jobs.JobID
	b := s.batches.Get().(*idBytes)
	if b.pos == len(b.buf) {
		rand.Read(b.buf[:]) // never fails (crypto/rand crashes the program instead)
		b.pos = 0
	}
	chunk := b.buf[b.pos : b.pos+16]
	copy(id[:], chunk)
	clear(chunk)
	b.pos += 16
	s.batches.Put(b)
	id[6] = id[6]&0x0f | 0x40 // version 4
	id[8] = id[8]&0x3f | 0x80 // RFC 9562 variant
	return id
}
