package registrytest

import (
	"strings"
	"sync"
)

// A Source is a producer's output read by absolute offset (a
// registry.OffsetReader, and a registry.NotifyingReader) that keeps only its
// last Window bytes, as a bounded pipe buffer does; all of them when Window
// is 0. The zero value is ready to use; it is safe for concurrent use. Wrap
// it in a [Polled] to hide its notices.
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
	notify   func() // from NotifyWrites; called after each Write
	notices  int    // NotifyWrites calls
	buf      string // the retained window
	start    int64  // offset of buf[0]
	written  strings.Builder
	offsets  []int64
	calls    int // ReadFrom calls
	reads    []Read
	lastNext int64
}

// A Read is one read of a Source: the text it returned and whether bytes
// before it were lost.
type Read struct {
	Text  string
	Lossy bool
}

// Write adds text to the output, dropping what falls out of the window,
// and then calls the function NotifyWrites was given, if any.
func (s *Source) Write(text string) {
	s.mu.Lock()
	s.write(text)
	notify := s.notify
	s.mu.Unlock()
	if notify != nil {
		notify()
	}
}

// NotifyWrites makes Write call notify after each write, until stop is
// called.
func (s *Source) NotifyWrites(notify func()) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notify = notify
	s.notices++
	gen := s.notices
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.notices == gen {
			s.notify = nil
		}
	}
}

// Notified reports whether a notify from NotifyWrites is in place.
func (s *Source) Notified() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notify != nil
}

func (s *Source) write(text string) {
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
	s.calls++
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

// ReadCalls returns how many times ReadFrom was called.
func (s *Source) ReadCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
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

// A Polled is an OffsetReader that hides whether the one it holds can
// notify, so a pump polls it.
type Polled struct {
	Reader interface {
		ReadFrom(offset int64) (string, int64, bool)
	}
}

// ReadFrom reads the held reader.
func (p Polled) ReadFrom(offset int64) (string, int64, bool) { return p.Reader.ReadFrom(offset) }
