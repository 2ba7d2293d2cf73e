package jobhttp_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/registry"
)

// The tests' callers name their session in a header that only this test
// function trusts: a runtime would authenticate the request instead.
const sessionHeader = "X-Test-Session"

func testSession(r *http.Request) (jobs.SessionID, error) {
	s := r.Header.Get(sessionHeader)
	if s == "" {
		return "", errors.New("no test session")
	}
	return jobs.SessionID(s), nil
}

// A server is a registry served by a jobhttp.Handler on a loopback listener.
type server struct {
	t   testing.TB
	reg *registry.Registry
	h   *jobhttp.Handler
	srv *httptest.Server
}

func newServer(t testing.TB, opts []jobhttp.Option, regOpts ...registry.Option) *server {
	t.Helper()
	return newServerAs(t, testSession, opts, regOpts...)
}

// newServerAs is newServer with the runtime's session function session
// instead of the test header's.
func newServerAs(t testing.TB, session func(*http.Request) (jobs.SessionID, error), opts []jobhttp.Option, regOpts ...registry.Option) *server {
	t.Helper()
	reg := registry.New(regOpts...)
	h, err := jobhttp.New(reg, session, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
		reg.Close(ctx)
	})
	return &server{t: t, reg: reg, h: h, srv: srv}
}

// A producer is a job the test ends explicitly: it stays alive until the test
// calls finish, or it is cancelled (then it settles killed). Nothing but the
// test or a kill ends it, so no clock can settle it early.
type producer struct {
	job    jobs.RecordingJob
	result chan jobs.JobOutcome
	once   sync.Once
}

func (p *producer) finish(status jobs.JobStatus, detail string) {
	p.once.Do(func() { p.result <- jobs.JobOutcome{Status: status, Detail: detail} })
}

func (p *producer) hooks() jobs.Hooks {
	return jobs.Hooks{
		Cancel: func(reason string) error { p.finish(jobs.JobStatusKilled, reason); return nil },
		Done:   func() (jobs.JobOutcome, error) { return <-p.result, nil },
	}
}

// startRecording starts a recording job owned by session and returns it with
// its producer.
func (s *server) startRecording(session jobs.SessionID, label string, limit int64) (jobs.JobSnapshot, *producer) {
	s.t.Helper()
	p := &producer{result: make(chan jobs.JobOutcome, 1)}
	snap, err := s.reg.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "test", Label: label, Owner: session, OutputLimitBytes: limit},
		Run: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			p.job = job
			return p.hooks(), nil
		},
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { p.finish(jobs.JobStatusCompleted, "") })
	return snap, p
}

// startPlain starts a plain job owned by session.
func (s *server) startPlain(session jobs.SessionID, label string) (jobs.JobSnapshot, *producer) {
	s.t.Helper()
	p := &producer{result: make(chan jobs.JobOutcome, 1)}
	snap, err := s.reg.Start(context.Background(), jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "plain", Label: label, Owner: session},
		Run: func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			return p.hooks(), nil
		},
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { p.finish(jobs.JobStatusCompleted, "") })
	return snap, p
}

// request makes a request as session ("" sends no session). A "Host" in
// header replaces the Host the request names.
func (s *server) request(method, path, session string, body io.Reader, header map[string]string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if session != "" {
		req.Header.Set(sessionHeader, session)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := s.srv.Client().Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	return res
}

// An event is one Server-Sent Event.
type event struct {
	id, name, data string
}

// A stream reads events from an SSE response.
type stream struct {
	t   testing.TB
	res *http.Response
	sc  *bufio.Scanner
}

func (s *server) stream(path, session string, header map[string]string) *stream {
	s.t.Helper()
	res := s.request("GET", path, session, nil, header)
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		s.t.Fatalf("GET %s: %s: %s", path, res.Status, body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		s.t.Fatalf("GET %s: Content-Type %q, want text/event-stream", path, ct)
	}
	st := &stream{t: s.t, res: res, sc: bufio.NewScanner(res.Body)}
	st.sc.Buffer(make([]byte, 1<<20), 1<<20)
	s.t.Cleanup(func() { res.Body.Close() })
	return st
}

// next returns the next event, skipping comments and retry fields; ok is false
// when the stream ended.
func (st *stream) next() (ev event, ok bool) {
	st.t.Helper()
	have := false
	for st.sc.Scan() {
		line := st.sc.Text()
		switch {
		case line == "":
			if have {
				return ev, true
			}
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry:"):
		case strings.HasPrefix(line, "id: "):
			ev.id, have = strings.TrimPrefix(line, "id: "), true
		case strings.HasPrefix(line, "event: "):
			ev.name, have = strings.TrimPrefix(line, "event: "), true
		case strings.HasPrefix(line, "data: "):
			ev.data, have = strings.TrimPrefix(line, "data: "), true
		default:
			st.t.Fatalf("unexpected SSE line %q", line)
		}
	}
	return event{}, false
}

// mustNext returns the next event or fails.
func (st *stream) mustNext() event {
	st.t.Helper()
	ev, ok := st.next()
	if !ok {
		st.t.Fatalf("stream ended early (%v)", st.sc.Err())
	}
	return ev
}

// nextFrame returns the next event decoded as a follow frame.
func (st *stream) nextFrame() (event, jobs.FollowFrame) {
	st.t.Helper()
	ev := st.mustNext()
	frame, err := jobs.DecodeFollowFrame([]byte(ev.data))
	if err != nil {
		st.t.Fatalf("event %q: %v: %s", ev.name, err, ev.data)
	}
	return ev, frame
}

// ended fails unless the stream ends with no more events.
func (st *stream) ended() {
	st.t.Helper()
	if ev, ok := st.next(); ok {
		st.t.Fatalf("stream went on with %+v", ev)
	}
}
