package jobhttp

import (
	"net/http"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/httproute"
)

// sessionStreams counts the event streams each session holds open against
// a cap, and refuses them all once closed: the one place a Handler and a
// Fleet admit streams. (The adapter ends the streams it frames at Close;
// done ends what a fleet forwards.)
type sessionStreams struct {
	max int
	// done is closed by close; every stream watches it.
	done    chan struct{}
	running sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	perSess map[jobs.SessionID]int
}

func newSessionStreams(max int) *sessionStreams {
	return &sessionStreams{max: max, done: make(chan struct{}), perSess: map[jobs.SessionID]int{}}
}

// streamRetryAfter is the Retry-After of a refused stream, in seconds: about
// how long a browser takes to notice that a closed tab's stream is gone.
const streamRetryAfter = "5"

// open counts a stream against its session's cap, or returns the refusal
// saying why it cannot have one: 503 once closed, 429 with Retry-After and
// what to do when the session is at its cap. The returned release must be
// called when the stream ends.
func (s *sessionStreams) open(session jobs.SessionID) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, httproute.Refuse(http.StatusServiceUnavailable, "the server is shutting down")
	}
	if n := s.perSess[session]; n >= s.max {
		return nil, httproute.Refusef(http.StatusTooManyRequests, "this session is at its cap of open event streams "+
			"(%d, jobhttp.WithMaxStreamsPerSession): close another page or followed job of the session, "+
			"or raise the cap; retry in %s s", n, streamRetryAfter).WithHeader("Retry-After", streamRetryAfter)
	}
	s.perSess[session]++
	s.running.Add(1)
	return func() {
		s.mu.Lock()
		if s.perSess[session]--; s.perSess[session] == 0 {
			delete(s.perSess, session)
		}
		s.mu.Unlock()
		s.running.Done()
	}, nil
}

// close ends every stream and admits no more; it may be called again.
// Taking mu orders it with open: a stream counted before it is waited for,
// and none is counted after it.
func (s *sessionStreams) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
}

// wait returns once every stream has ended.
func (s *sessionStreams) wait() { s.running.Wait() }
