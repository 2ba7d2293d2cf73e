package httproute_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/httproute"
)

// lockedRecorder is a ResponseRecorder a test reads while a stream writes.
type lockedRecorder struct {
	mu sync.Mutex
	*httptest.ResponseRecorder
}

func (l *lockedRecorder) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ResponseRecorder.Write(b)
}

func (l *lockedRecorder) body() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Body.String()
}

// openStream starts GET path on h in a goroutine and returns its recorder
// and a channel closed when the handler returned.
func openStream(h http.Handler, path string, header map[string]string) (*lockedRecorder, <-chan struct{}) {
	r := httptest.NewRequest("GET", path, nil)
	r.Header.Set("X-Caller", "alice")
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := &lockedRecorder{ResponseRecorder: httptest.NewRecorder()}
	done := make(chan struct{})
	go func() { defer close(done); h.ServeHTTP(w, r) }()
	return w, done
}

func TestAStreamKeepsAliveAndCloseEndsItWithBye(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		events := make(chan httproute.Event, 1)
		h := httproute.NewHandler(table(), serves(events), httproute.WithCaller(caller), httproute.WithKeepAlive(10*time.Second))
		w, done := openStream(h, "/api/things/events", nil)
		<-events
		time.Sleep(25 * time.Second)
		synctest.Wait()
		if got := strings.Count(w.body(), ": keep-alive\n\n"); got != 2 {
			t.Errorf("after 25 s of a 10 s keep-alive: %d comments in %q, want 2", got, w.body())
		}
		if err := h.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-done
		if body := w.body(); !strings.HasPrefix(body, "id: 0\nevent: tick\ndata: {}\n\n") || !strings.HasSuffix(body, "event: bye\ndata: {}\n\n") {
			t.Errorf("the stream wrote %q, want its event first and bye last", body)
		}
		if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type %q", ct)
		}
		// A stream opened after Close runs with its context ended: its
		// method returns at once, and the client is told why.
		w, done = openStream(h, "/api/things/events", nil)
		<-events
		<-done
		if !strings.HasSuffix(w.body(), "event: bye\ndata: {}\n\n") {
			t.Errorf("a stream opened after Close wrote %q, want it to end with bye", w.body())
		}
	})
}

func TestLastEventIDIsReadAsTheResumeParameter(t *testing.T) {
	h := httproute.NewHandler(table(), serves(nil), httproute.WithCaller(caller))
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the method writes its first event and returns
	for _, tc := range []struct {
		query, header, want string
		status              int
	}{
		{"", "", "id: 0\n", http.StatusOK},
		{"?from=4", "", "id: 5\n", http.StatusOK},
		{"?from=4", "9", "id: 10\n", http.StatusOK},
		{"", "x", "Last-Event-ID: ", http.StatusBadRequest},
		{"?from=07", "", "from: ", http.StatusBadRequest},
	} {
		r := httptest.NewRequest("GET", "/api/things/events"+tc.query, nil).WithContext(ctx)
		r.Header.Set("X-Caller", "alice")
		if tc.header != "" {
			r.Header.Set("Last-Event-ID", tc.header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("from %q, Last-Event-ID %q: %d %q, want %d with %q", tc.query, tc.header, w.Code, w.Body, tc.status, tc.want)
		}
	}
}

// failingWriter refuses every write after the first n.
type failingWriter struct {
	*httptest.ResponseRecorder
	n int
}

func (f *failingWriter) Write(b []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, http.ErrHandlerTimeout
	}
	return f.ResponseRecorder.Write(b)
}

func TestAFailedWriteEndsTheStreamsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := httproute.NewHandler(table(), serves(nil), httproute.WithCaller(caller), httproute.WithKeepAlive(time.Second))
		r := httptest.NewRequest("GET", "/api/things/events", nil)
		r.Header.Set("X-Caller", "alice")
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(&failingWriter{ResponseRecorder: httptest.NewRecorder(), n: 1}, r)
		}()
		// The first keep-alive fails; the method, waiting on its context,
		// returns without anyone closing anything.
		time.Sleep(2 * time.Second)
		<-done
	})
}
