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
// id then costs no system call and no allocation. Bytes are zeroed as they
// are handed out, so the buffer never holds an id already issued.
type idSource struct {
	mu  sync.Mutex
	buf [16 * idBatch]byte
	pos int // next unused byte; len(buf) when empty
}

func newIDSource() *idSource { return &idSource{pos: 16 * idBatch} }

func (s *idSource) next() jobs.JobID {
	var id jobs.JobID
	s.mu.Lock()
	if s.pos == len(s.buf) {
		rand.Read(s.buf[:]) // never fails (crypto/rand crashes the program instead)
		s.pos = 0
	}
	chunk := s.buf[s.pos : s.pos+16]
	copy(id[:], chunk)
	clear(chunk)
	s.pos += 16
	s.mu.Unlock()
	id[6] = id[6]&0x0f | 0x40 // version 4
	id[8] = id[8]&0x3f | 0x80 // RFC 9562 variant
	return id
}
