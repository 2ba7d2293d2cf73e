package jobhttp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
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

// noFlush wraps a ResponseWriter without Flush or Unwrap, as a careless
// logging middleware does; wrote is closed once a Write carries mark.
type noFlush struct {
	w     http.ResponseWriter
	mark  string
	wrote chan struct{}
	once  *sync.Once
}

func (n *noFlush) Header() http.Header  { return n.w.Header() }
func (n *noFlush) WriteHeader(code int) { n.w.WriteHeader(code) }
func (n *noFlush) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(n.mark)) {
		n.once.Do(func() { close(n.wrote) })
	}
	return n.w.Write(b)
}

// A syncBuffer is a log destination tests read while handlers write to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestStreamsWorkBehindAMiddlewareWithoutFlush: a writer that cannot flush
// delays events, but the stream runs: the roster stream writes its events
// and ends with bye at Close, and the follow stream its frames, instead of
// answering an empty 200 at once. The missing Flush is logged.
func TestStreamsWorkBehindAMiddlewareWithoutFlush(t *testing.T) {
	for _, route := range []string{"roster", "follow"} {
		t.Run(route, func(t *testing.T) {
			var logs syncBuffer
			reg := registry.New()
			h, err := jobhttp.New(reg, testSession,
				jobhttp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
			)
			if err != nil {
				t.Fatal(err)
			}
			mark := "event: roster"
			if route == "follow" {
				mark = "compiling"
			}
			wrote, once := make(chan struct{}), &sync.Once{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(&noFlush{w: w, mark: mark, wrote: wrote, once: once}, r)
			}))
			defer srv.Close()
			s := &server{t: t, reg: reg, h: h, srv: srv}
			snap, p := s.startRecording("alice", "build", 0)
			p.job.Append("compiling\n", jobs.AppendOptions{})
			path := "/api/jobs/events"
			if route == "follow" {
				path = "/api/jobs/" + snap.ID.String() + "/follow"
			}
			body := make(chan string, 1)
			go func() {
				res := s.request("GET", path, "alice", nil, nil)
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				body <- string(b)
			}()
			select {
			case <-wrote:
			case b := <-body:
				t.Fatalf("the %s stream ended before writing %q: %q", route, mark, b)
			case <-time.After(5 * time.Second):
				t.Fatalf("the %s stream never wrote %q", route, mark)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := h.Close(ctx); err != nil {
				t.Fatal(err)
			}
			got := <-body
			want := []string{"event: roster", "event: bye"}
			if route == "follow" {
				want = []string{"event: opened", "event: output", "compiling", "event: bye"}
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s stream behind a middleware without Flush: %q, want %q in it", route, got, w)
				}
			}
			if !strings.Contains(logs.String(), "cannot flush") {
				t.Errorf("the missing Flush was not logged: %q", logs.String())
			}
			p.finish(jobs.JobStatusCompleted, "")
			reg.Close(ctx)
		})
	}
}
