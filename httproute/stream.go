package httproute

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// An Event is one Server-Sent Event, encoded once: its id line (when it
// has one), its event name and its data on one line. Any number of streams
// may write the same Event, which is how one encoding serves every
// follower of a job.
type Event struct{ b []byte }

// NewEvent encodes an event. data must be one line (a JSON document as
// the generated encoders write it); id is left out when empty.
func NewEvent(name, id string, data []byte) Event {
	b := make([]byte, 0, len(data)+len(name)+len(id)+24)
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	return Event{b}
}

// Bytes is the event as the stream writes it.
func (e Event) Bytes() []byte { return e.b }

// A Stream is the event stream of one request to a stream route. It starts
// (the event-stream headers, 200) with its first write, so that until then
// the route's method may still refuse or hand off. Every write is bounded
// by Options.WriteTimeout; a keep-alive comment goes out every
// Options.KeepAlive from a goroutine of the stream's own. A write that
// fails ends the method's context. Its methods are for generated code,
// which wraps it in a type per route.
type Stream struct {
	c       *Call
	rc      *http.ResponseController
	cancel  context.CancelFunc
	turn    chan struct{} // one slot: the writer holding it writes
	started bool
	broken  error // the first failed write; every later write fails with it
	stop    chan struct{}
	stopped chan struct{} // closed when the keep-alive goroutine has returned
}

// Put writes one event, without flushing it.
func (s *Stream) Put(e Event) error { return s.write(e.b, false) }

// Flush sends what Put wrote.
func (s *Stream) Flush() error { return s.write(nil, true) }

// Retry tells the client how long to wait before it reconnects.
func (s *Stream) Retry(d time.Duration) error {
	return s.write([]byte("retry: "+strconv.FormatInt(d.Milliseconds(), 10)+"\n\n"), true)
}

// bye writes the event that tells a client the server closed the stream.
func (s *Stream) bye() { s.write([]byte("event: bye\ndata: {}\n\n"), true) }

// write writes b under the stream's turn, starting the stream first, and
// flushes when asked.
func (s *Stream) write(b []byte, flush bool) error {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	if s.broken != nil {
		return s.broken
	}
	if !s.started {
		if err := s.start(); err != nil {
			return s.fail(err)
		}
	}
	if len(b) > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.c.h.opts.WriteTimeout))
		if _, err := s.c.w.Write(b); err != nil {
			return s.fail(err)
		}
	}
	if flush {
		if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return s.fail(err)
		}
	}
	return nil
}

// fail breaks the stream with err and ends the method's context; the
// caller holds the turn.
func (s *Stream) fail(err error) error {
	s.broken = err
	s.cancel()
	return err
}

// start sends the event-stream headers and starts the keep-alives; the
// caller holds the turn. A ResponseWriter that cannot flush (a middleware
// that wraps it without Flush or Unwrap) still gets the stream, but its
// events wait in buffers until they fill: that is logged, as the
// middleware's bug.
func (s *Stream) start() error {
	w := s.c.w
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no") // ask reverse proxies not to buffer the stream
	w.WriteHeader(http.StatusOK)
	s.started = true
	s.rc = http.NewResponseController(w)
	if err := s.rc.Flush(); errors.Is(err, http.ErrNotSupported) {
		s.c.h.log.Warn("httproute: the ResponseWriter cannot flush, so events are delayed: "+
			"a middleware wrapping it should implement http.Flusher or Unwrap", "writer", fmt.Sprintf("%T", w))
	} else if err != nil {
		return err
	}
	s.stop, s.stopped = make(chan struct{}), make(chan struct{})
	go s.keepAlive(s.c.h.opts.KeepAlive)
	return nil
}

// keepAlive writes a comment every interval until the stream stops or a
// write fails. It waits for the turn through the channel, so that a
// testing/synctest bubble sees it durably blocked, as it would not behind
// a mutex.
func (s *Stream) keepAlive(every time.Duration) {
	defer close(s.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		select {
		case <-s.stop:
			return
		case s.turn <- struct{}{}:
		}
		err := s.broken
		if err == nil {
			_ = s.rc.SetWriteDeadline(time.Now().Add(s.c.h.opts.WriteTimeout))
			if _, err = s.c.w.Write([]byte(": keep-alive\n\n")); err == nil {
				if ferr := s.rc.Flush(); ferr != nil && !errors.Is(ferr, http.ErrNotSupported) {
					err = ferr
				}
			}
			if err != nil {
				s.fail(err)
			}
		}
		<-s.turn
		if err != nil {
			return
		}
	}
}

// stopKeepAlive ends the keep-alives and waits for their goroutine.
func (s *Stream) stopKeepAlive() {
	if s.stop == nil {
		return
	}
	close(s.stop)
	<-s.stopped
}
