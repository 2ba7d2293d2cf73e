package jobhttp

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
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
// A ResponseWriter that cannot flush (a middleware that wraps it without
// Flush or Unwrap) still gets the stream, but its events wait in buffers
// until they fill: that is logged, once per stream, as the middleware's bug.
func (h *Handler) startSSE(w http.ResponseWriter) (*sseWriter, error) {
	return startSSE(w, h.opts.WriteTimeout, h.log)
}

// startSSE starts an event stream on w whose writes are each bounded by
// timeout; log hears of a writer that cannot flush.
func startSSE(w http.ResponseWriter, timeout time.Duration, log *slog.Logger) (*sseWriter, error) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no") // ask reverse proxies not to buffer the stream
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
	if err := s.rc.Flush(); errors.Is(err, http.ErrNotSupported) {
		log.Warn("jobhttp: the ResponseWriter cannot flush, so events are delayed: "+
			"a middleware wrapping it should implement http.Flusher or Unwrap", "writer", typeName(w))
	} else if err != nil {
		return nil, err
	}
	return s, nil
}

// event writes one event. id is omitted when empty; data must be one line of
// JSON (the generated encoders never write a newline).
func (s *sseWriter) event(name, id string, data []byte) error {
	s.buf.Reset()
	s.buf.Write(appendEvent(s.buf.AvailableBuffer(), name, id, data))
	return s.send()
}

// write writes events encoded by appendEvent, each under the write deadline,
// and flushes once after the last.
func (s *sseWriter) write(events ...[]byte) error {
	for _, ev := range events {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
		if _, err := s.w.Write(ev); err != nil {
			return err
		}
	}
	return s.flush()
}

// appendEvent appends one event to b: the id line when id is not empty, the
// event name, and data on one line.
func appendEvent(b []byte, name, id string, data []byte) []byte {
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
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

// flush sends what is written; a writer that cannot flush is no error (see
// startSSE).
func (s *sseWriter) flush() error {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// typeName names w's type for a log line.
func typeName(w http.ResponseWriter) string { return fmt.Sprintf("%T", w) }
