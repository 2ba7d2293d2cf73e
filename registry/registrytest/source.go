package registrytest

import (
	"strings"
	"sync"
)

// A Source is a producer's output read by absolute offset (a
// registry.OffsetReader) that keeps only its last Window bytes, as a
// bounded pipe buffer does; all of them when Window is 0. The zero value
// is ready to use; it is safe for concurrent use.
//
// A Source logs nothing unless asked: with LogOffsets it keeps the offset
// of every read, with LogReads everything written and every read that
// returned text or was lossy. An empty read, which is what an idle pump
// round makes, then allocates nothing.
type Source struct {
	Window     int
	LogOffsets bool
	LogReads   bool

	mu       sync.Mutex
	buf      string // the retained window
	start    int64  // offset of buf[0]
	written  strings.Builder
	offsets  []int64
	reads    []Read
	lastNext int64
}

// A Read is one read of a Source: the text it returned and whether bytes
// before it were lost.
type Read struct {
	Text  string
	Lossy bool
}

// Write adds text to the output, dropping what falls out of the window.
func (s *Source) Write(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.LogReads {
		s.written.WriteString(text)
	}
	s.buf += text
	if s.Window > 0 && len(s.buf) > s.Window {
		cut := len(s.buf) - s.Window
		s.buf = s.buf[cut:]
		s.start += int64(cut)
	}
}

// ReadFrom returns the text retained from offset on, the offset past it,
// and whether offset fell out of the window.
func (s *Source) ReadFrom(offset int64) (string, int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.LogOffsets {
		s.offsets = append(s.offsets, offset)
	}
	end := s.start + int64(len(s.buf))
	lossy := offset < s.start
	if lossy {
		offset = s.start
	}
	text := s.buf[offset-s.start:]
	if s.LogReads && (text != "" || lossy) {
		s.reads = append(s.reads, Read{text, lossy})
	}
	s.lastNext = end
	return text, end, lossy
}

// Offsets returns the offsets read from so far (with LogOffsets).
func (s *Source) Offsets() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.offsets...)
}

// Reads returns the reads that returned text, each lossy when it or an
// empty lossy read since the one before was; the bytes written so far; and
// where the last read ended (with LogReads).
func (s *Source) Reads() (reads []Read, written, lastNext int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pending := false
	for _, r := range s.reads {
		if r.Text == "" {
			pending = pending || r.Lossy
			continue
		}
		reads = append(reads, Read{r.Text, r.Lossy || pending})
		pending = false
	}
	return reads, int64(s.written.Len()), s.lastNext
}

// Written returns everything written so far (with LogReads).
func (s *Source) Written() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written.String()
}
