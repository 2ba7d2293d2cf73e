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
//
// Its bytes may lie in an array that holds the events appended after it
// (AppendEvent): b's capacity then runs on over them, so that WriteEvents
// can tell a run of events lying back to back and send it as one write.
// Nothing ever writes into that capacity through an Event.
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

// Bytes is the event as the stream writes it. Its capacity is its length,
// so that appending to it never reaches the events after it.
func (e Event) Bytes() []byte { return e.b[:len(e.b):len(e.b)] }

// event is e itself: WriteEvents takes any type that embeds an Event.
func (e Event) event() Event { return e }

// AppendEvent appends e's bytes to buf and returns the grown buf and the
// event as it lies there. Events appended one after another to the same
// array lie back to back, and WriteEvents sends such a run as one write
// of that array, copying nothing: a job's frames, encoded once into one
// array, reach each of its followers in one write wherever in the run the
// follower starts. The caller must never change buf's bytes below its
// length afterwards (the events handed out are those bytes); when append
// moves buf to a new array, the events before the move and after it are
// two runs.
func AppendEvent(buf []byte, e Event) ([]byte, Event) {
	at := len(buf)
	buf = append(buf, e.b...)
	return buf, Event{buf[at:]}
}

// follows reports whether next lies right after run in run's array.
func follows(run []byte, next []byte) bool {
	return len(next) > 0 && cap(run) > len(run) && &run[:len(run)+1][len(run)] == &next[0]
}

// A Stream is the event stream of one request to a stream route. It starts
// (the event-stream headers, 200) with its first write, so that until then
// the route's method may still refuse or hand off. Every write is bounded
// by WithWriteTimeout; a keep-alive comment goes out every
// WithKeepAlive, from a timer rather than a goroutine of its own, so
// an idle stream costs no goroutine. A write that fails ends the method's
// context. Its methods are for generated code, which wraps it in a type
// per route.
type Stream struct {
	c       *Call
	rc      *http.ResponseController
	cancel  context.CancelFunc
	turn    chan struct{} // one slot: the writer holding it writes
	started bool
	broken  error       // the first failed write; every later write fails with it
	alive   *time.Timer // the next keep-alive, once started
	stopped bool        // no more keep-alives; set holding the turn
}

// Put writes one event, without flushing it.
func (s *Stream) Put(e Event) error { return s.write(e.b, false) }

// Flush sends what Put wrote.
func (s *Stream) Flush() error { return s.write(nil, true) }

// WriteEvents writes events and flushes them, under one write deadline and
// one turn, as one write would: the generated Write of each stream's own
// event type (which embeds Event). Events that lie back to back in one
// array (AppendEvent) go to the ResponseWriter as one Write, so a run of
// large frames costs the connection one chunk and as few system calls as
// its size allows, not a chunk each.
func WriteEvents[E interface{ event() Event }](s *Stream, events []E) error {
	if err := s.begin(); err != nil {
		return err
	}
	defer s.end()
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.c.h.opts.WriteTimeout))
	for i := 0; i < len(events); {
		run := events[i].event().b
		for i++; i < len(events) && follows(run, events[i].event().b); i++ {
			run = run[:len(run)+len(events[i].event().b)]
		}
		if _, err := s.c.w.Write(run); err != nil {
			return s.fail(err)
		}
	}
	return s.flush()
}

// Retry tells the client how long to wait before it reconnects.
func (s *Stream) Retry(d time.Duration) error {
	return s.write([]byte("retry: "+strconv.FormatInt(d.Milliseconds(), 10)+"\n\n"), true)
}

// bye writes the event that tells a client the server closed the stream.
func (s *Stream) bye() { s.write([]byte("event: bye\ndata: {}\n\n"), true) }

// write writes b under the stream's turn, starting the stream first, and
// flushes when asked.
func (s *Stream) write(b []byte, flush bool) error {
	if err := s.begin(); err != nil {
		return err
	}
	defer s.end()
	if len(b) > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.c.h.opts.WriteTimeout))
		if _, err := s.c.w.Write(b); err != nil {
			return s.fail(err)
		}
	}
	if flush {
		return s.flush()
	}
	return nil
}

// begin takes the turn of a stream that is not broken, starting it first;
// end gives the turn back. A begin that fails has given it back already.
func (s *Stream) begin() error {
	s.turn <- struct{}{}
	if s.broken != nil {
		<-s.turn
		return s.broken
	}
	if !s.started {
		if err := s.start(); err != nil {
			err = s.fail(err)
			<-s.turn
			return err
		}
	}
	return nil
}

func (s *Stream) end() { <-s.turn }

// flush sends what was written; a writer that cannot flush is no error
// (see start). The caller holds the turn.
func (s *Stream) flush() error {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return s.fail(err)
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
	if r := s.c.r; r.ProtoMajor == 1 && r.ProtoAtLeast(1, 1) {
		// The body is the connection's bytes up to its close, not chunks
		// (net/http's identity mode, the setup the SSE specification
		// recommends): a write of a run of events is one system call, as a
		// raw socket's would be (decision 0226).
		hdr.Set("Transfer-Encoding", "identity")
	}
	w.WriteHeader(http.StatusOK)
	s.started = true
	s.rc = http.NewResponseController(w)
	if err := s.rc.Flush(); errors.Is(err, http.ErrNotSupported) {
		s.c.h.log.Warn("httproute: the ResponseWriter cannot flush, so events are delayed: "+
			"a middleware wrapping it should implement http.Flusher or Unwrap", "writer", fmt.Sprintf("%T", w))
	} else if err != nil {
		return err
	}
	s.alive = time.AfterFunc(s.c.h.opts.KeepAlive, s.keepAlive)
	return nil
}

// keepAlive writes a comment, unless the stream stopped or broke, and sets
// the timer for the next one. It waits for the turn through the channel,
// so that a testing/synctest bubble sees it durably blocked, as it would
// not behind a mutex.
func (s *Stream) keepAlive() {
	s.turn <- struct{}{}
	defer func() { <-s.turn }()
	if s.stopped || s.broken != nil {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.c.h.opts.WriteTimeout))
	if _, err := s.c.w.Write([]byte(": keep-alive\n\n")); err != nil {
		s.fail(err)
		return
	}
	if s.flush() == nil {
		s.alive.Reset(s.c.h.opts.KeepAlive)
	}
}

// stopKeepAlive ends the keep-alives: none is written after it returns (a
// timer that fired meanwhile finds the stream stopped).
func (s *Stream) stopKeepAlive() {
	s.turn <- struct{}{}
	s.stopped = true
	if s.alive != nil {
		s.alive.Stop()
	}
	<-s.turn
}
