package jobhttp

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// An sseWriter writes Server-Sent Events to one response, each write bounded by
// a deadline so a client that stops reading is dropped instead of holding the
// handler forever.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     bytes.Buffer
}

// startSSE sends the event-stream headers and returns a writer for the events.
func startSSE(w http.ResponseWriter, timeout time.Duration) (*sseWriter, error) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // ask reverse proxies not to buffer the stream
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
	return s, s.flush()
}

// event writes one event. id is omitted when empty; data must be one line of
// JSON (the generated encoders never write a newline).
func (s *sseWriter) event(name, id string, data []byte) error {
	s.buf.Reset()
	if id != "" {
		s.buf.WriteString("id: ")
		s.buf.WriteString(id)
		s.buf.WriteByte('\n')
	}
	s.buf.WriteString("event: ")
	s.buf.WriteString(name)
	s.buf.WriteString("\ndata: ")
	s.buf.Write(data)
	s.buf.WriteString("\n\n")
	return s.send()
}

// comment writes a comment line, which clients ignore: a keep-alive.
func (s *sseWriter) comment(text string) error {
	s.buf.Reset()
	s.buf.WriteString(": ")
	s.buf.WriteString(text)
	s.buf.WriteString("\n\n")
	return s.send()
}

// retry tells the client how long to wait before reconnecting.
func (s *sseWriter) retry(d time.Duration) error {
	s.buf.Reset()
	s.buf.WriteString("retry: ")
	s.buf.WriteString(strconv.FormatInt(d.Milliseconds(), 10))
	s.buf.WriteString("\n\n")
	return s.send()
}

func (s *sseWriter) send() error {
	// A writer without deadline support (httptest's recorder) just writes.
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return err
	}
	return s.flush()
}

func (s *sseWriter) flush() error {
	if err := s.rc.Flush(); err != nil && err != http.ErrNotSupported {
		return err
	}
	return nil
}
