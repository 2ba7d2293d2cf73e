package procjob

import (
	"strconv"
	"sync"
	"unicode/utf8"
)

// A stream collects one output of a process. It is the io.Writer the process
// writes to and the registry.OffsetReader the pump reads from, keeping at least
// the last window bytes (at most twice that) addressable by absolute offset. It also feeds the consuming
// cursor (shared by all streams of a job) so that reader sees every byte.
type stream struct {
	mu     sync.Mutex
	buf    []byte
	start  int64 // absolute offset of buf[0]
	window int
	closed bool // the process has exited: a trailing partial rune is final
	sink   *consumer
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	if len(s.buf) > 2*s.window {
		// Keep the last window bytes. Compacting only past twice the window
		// makes the copy cost amortised constant per byte written.
		over := len(s.buf) - s.window
		n := copy(s.buf, s.buf[over:])
		s.buf = s.buf[:n]
		s.start += int64(over)
	}
	s.sink.write(p)
	return len(p), nil
}

// close marks the stream complete, so ReadFrom hands out a trailing partial
// UTF-8 sequence instead of waiting for the rest of it.
func (s *stream) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// ReadFrom returns the bytes from offset to the end of the last complete
// UTF-8 sequence, so the record never holds half a character, and whether
// bytes before them fell out of the window.
func (s *stream) ReadFrom(offset int64) (string, int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lossy := offset < s.start
	if lossy {
		offset = s.start
	}
	end := s.start + int64(len(s.buf))
	if offset >= end {
		return "", offset, lossy
	}
	avail := s.buf[offset-s.start:]
	if !s.closed {
		avail = avail[:completeUTF8(avail)]
	}
	return string(avail), offset + int64(len(avail)), lossy
}

// completeUTF8 returns the length of b without a trailing incomplete UTF-8
// sequence. Invalid bytes are not held back: they will never complete.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if !utf8.RuneStart(b[i]) {
			continue
		}
		if !utf8.FullRune(b[i:]) {
			return i
		}
		break
	}
	return len(b)
}

// A consumer is the consuming model cursor: every byte any stream of the job
// writes, in arrival order, until ReadOutput takes it. It keeps at least the
// last limit unread bytes (at most twice that); older unread bytes are
// dropped and the next read says how many.
type consumer struct {
	mu      sync.Mutex
	buf     []byte
	limit   int
	dropped int64
}

func (c *consumer) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	if len(c.buf) > 2*c.limit {
		over := len(c.buf) - c.limit
		n := copy(c.buf, c.buf[over:])
		c.buf = c.buf[:n]
		c.dropped += int64(over)
	}
}

// read takes everything unread.
func (c *consumer) read() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := string(c.buf)
	if c.dropped > 0 {
		out = "[" + strconv.FormatInt(c.dropped, 10) + " bytes of output dropped unread]\n" + out
		c.dropped = 0
	}
	c.buf = c.buf[:0]
	return out
}
