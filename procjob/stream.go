package procjob

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A stream collects one output of a process. It is the io.Writer the process
// writes to and the registry.OffsetReader the pump reads from, keeping at least
// the last window bytes (at most twice that) addressable by absolute offset. It also feeds the consuming
// cursor (shared by all streams of a job) so that reader sees every byte.
// It is a registry.NotifyingReader: a pump on a shared pacer reads it only
// after it was written to.
type stream struct {
	mu     sync.Mutex
	notify func() // from NotifyWrites; called after each write
	notes  int    // NotifyWrites calls, so a stale stop leaves a newer notify
	buf    []byte
	start  int64 // absolute offset of buf[0]
	window int
	closed bool      // the process has exited: a trailing partial rune is final
	sink   *consumer // the consuming cursor; nil for narration, which it never gets
	// channel is the channel the stream's bytes go to the consumer as.
	channel jobs.Channel
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.write(p)
	notify := s.notify
	s.mu.Unlock()
	if notify != nil {
		notify()
	}
	return len(p), nil
}

// NotifyWrites makes Write call notify after each write, until stop is
// called.
func (s *stream) NotifyWrites(notify func()) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notify = notify
	s.notes++
	note := s.notes
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.notes == note {
			s.notify = nil
		}
	}
}

// write keeps p. s.mu must be held.
func (s *stream) write(p []byte) {
	s.buf = append(s.buf, p...)
	if len(s.buf) > 2*s.window {
		// Keep the last window bytes. Compacting only past twice the window
		// makes the copy cost amortised constant per byte written.
		over := len(s.buf) - s.window
		n := copy(s.buf, s.buf[over:])
		s.buf = s.buf[:n]
		s.start += int64(over)
	}
	if s.sink != nil {
		s.sink.write(p, s.channel)
	}
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
// writes, in arrival order, until ReadOutput takes it. It keeps the last
// limit unread bytes in a ring that grows with them up to limit and is let go
// by each read; older unread bytes are dropped and the next read says how many.
// With labels (a job whose stdout and stderr are pipes of their own), a write
// on another channel than the last one's starts a line "[stderr]" or
// "[stdout]", after a newline when the last write ended mid-line: stdout
// alone reads as written, and a model can tell an error from the output.
type consumer struct {
	mu      sync.Mutex
	ring    []byte // the unread bytes start at head and wrap; len(ring) <= limit
	head    int
	n       int // unread bytes in ring
	limit   int
	dropped int64
	labels  bool
	last    jobs.Channel // the channel of the last write, "" before any
	midLine bool         // the last write did not end with a newline
}

// minRing is the first ring a consumer allocates.
const minRing = 4 << 10

func (c *consumer) write(p []byte, ch jobs.Channel) {
	if len(p) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.labels && ch != c.last && (c.last != "" || ch != jobs.ChannelStdout) {
		label := "[" + string(ch) + "]\n"
		if c.midLine {
			label = "\n" + label
		}
		c.writeLocked([]byte(label))
	}
	c.last, c.midLine = ch, p[len(p)-1] != '\n'
	c.writeLocked(p)
}

// writeLocked keeps p in the ring; c.mu is held.
func (c *consumer) writeLocked(p []byte) {
	if len(p) >= c.limit {
		// Only the tail of p survives, and none of what was unread.
		c.dropped += int64(c.n + len(p) - c.limit)
		p = p[len(p)-c.limit:]
		c.head, c.n = 0, 0
	}
	if need := c.n + len(p); need > len(c.ring) && len(c.ring) < c.limit {
		c.grow(min(c.limit, max(need, 2*len(c.ring), minRing)))
	}
	if over := c.n + len(p) - len(c.ring); over > 0 {
		c.head = (c.head + over) % len(c.ring)
		c.n -= over
		c.dropped += int64(over)
	}
	tail := (c.head + c.n) % len(c.ring)
	k := copy(c.ring[tail:], p)
	copy(c.ring, p[k:])
	c.n += len(p)
}

// grow moves the unread bytes to a ring of the given size, oldest first.
func (c *consumer) grow(size int) {
	ring := make([]byte, size)
	k := copy(ring, c.ring[c.head:min(len(c.ring), c.head+c.n)])
	copy(ring[k:], c.ring[:c.n-k])
	c.ring, c.head = ring, 0
}

// read takes everything unread and lets the ring go.
func (c *consumer) read() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readLocked()
}

// readUpTo takes at most n unread bytes (the dropped-bytes header
// included), cut before a rune the cut would split or that is not whole
// yet, so the rest, read next, starts where it ends; n <= 0 takes all.
func (c *consumer) readUpTo(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n <= 0 || c.n+len(c.header()) <= n {
		return c.readLocked()
	}
	header := c.header()
	if len(header) >= n {
		return "" // the header alone does not fit: the next read carries it
	}
	k := n - len(header)
	b := make([]byte, 0, n)
	b = append(b, header...)
	first := min(c.n, len(c.ring)-c.head)
	b = append(b, c.ring[c.head:c.head+min(first, k)]...)
	if k > first {
		b = append(b, c.ring[:k-first]...)
	}
	cut := len(header) + registry.CompleteUTF8(string(b[len(header):]))
	taken := cut - len(header)
	c.head = (c.head + taken) % max(len(c.ring), 1)
	c.n -= taken
	c.dropped = 0
	return string(b[:cut])
}

// header says how many bytes were dropped unread, if any were.
func (c *consumer) header() string {
	if c.dropped == 0 {
		return ""
	}
	return "[" + strconv.FormatInt(c.dropped, 10) + " bytes of output dropped unread]\n"
}

// readLocked is read; c.mu is held.
func (c *consumer) readLocked() string {
	var b strings.Builder
	header := c.header()
	b.Grow(len(header) + c.n)
	b.WriteString(header)
	first := min(c.n, len(c.ring)-c.head)
	b.Write(c.ring[c.head : c.head+first])
	b.Write(c.ring[:c.n-first])
	c.ring, c.head, c.n, c.dropped = nil, 0, 0, 0
	return b.String()
}

// unread is how many bytes wait for the next read.
func (c *consumer) unread() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// retained is the capacity the consumer holds, read or not.
func (c *consumer) retained() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cap(c.ring)
}
