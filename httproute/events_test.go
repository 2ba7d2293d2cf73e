package httproute_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/httproute"
)

// writesRecorder is a ResponseRecorder that keeps each Write's bytes apart.
type writesRecorder struct {
	*httptest.ResponseRecorder
	mu     sync.Mutex
	writes [][]byte
}

func (w *writesRecorder) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, bytes.Clone(b))
	return w.ResponseRecorder.Write(b)
}

// TestEventsLyingBackToBackGoOutAsOneWrite: WriteEvents sends each run of
// events that AppendEvent laid back to back in one array as one Write of
// the ResponseWriter, the events on their own (NewEvent's) as one Write
// each, in order, and an Event's Bytes cannot be appended over the events
// after it.
func TestEventsLyingBackToBackGoOutAsOneWrite(t *testing.T) {
	ev := func(i int) httproute.Event {
		return httproute.NewEvent("tick", strconv.Itoa(i), []byte(`{"n":`+strconv.Itoa(i)+`}`))
	}
	// run lays events i..j-1 back to back in an array of room bytes.
	run := func(room, i, j int) []httproute.Event {
		buf := make([]byte, 0, room)
		var out []httproute.Event
		for k := i; k < j; k++ {
			var e httproute.Event
			buf, e = httproute.AppendEvent(buf, ev(k))
			out = append(out, e)
		}
		return out
	}
	cat := func(parts ...[]httproute.Event) []httproute.Event {
		var out []httproute.Event
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		events []httproute.Event
		writes []int // events per write, in order
	}{
		{"one run", run(4096, 0, 5), []int{5}},
		{"events on their own", []httproute.Event{ev(0), ev(1), ev(2)}, []int{1, 1, 1}},
		{"a run, one on its own, a run of another array", cat(run(4096, 0, 3), []httproute.Event{ev(3)}, run(4096, 4, 6)), []int{3, 1, 2}},
		{"an array that moved while it grew", run(40, 0, 4), []int{1, 1, 2}},
		{"a run out of order", cat(run(4096, 0, 3)[1:], run(4096, 0, 3)[:1]), []int{2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w *writesRecorder
			srv := serves(nil)
			srv[2] = func(c *httproute.Call) error { return httproute.WriteEvents(c.Stream(), tc.events) }
			h := httproute.NewHandler(table(), srv, httproute.WithCaller(caller))
			r := httptest.NewRequest("GET", "/api/things/events", nil)
			r.Header.Set("X-Caller", "alice")
			w = &writesRecorder{ResponseRecorder: httptest.NewRecorder()}
			h.ServeHTTP(w, r)
			var sizes []int
			k := 0
			for _, b := range w.writes {
				n := 0
				for k < len(tc.events) && bytes.HasPrefix(b, tc.events[k].Bytes()) {
					b = b[len(tc.events[k].Bytes()):]
					k, n = k+1, n+1
				}
				if len(b) != 0 {
					t.Fatalf("write %d holds %q beyond whole events in order", len(sizes), b)
				}
				sizes = append(sizes, n)
			}
			if k != len(tc.events) || !slicesEqual(sizes, tc.writes) {
				t.Errorf("%d of %d events, in writes of %v events, want %v", k, len(tc.events), sizes, tc.writes)
			}
		})
	}
	t.Run("appending to Bytes", func(t *testing.T) {
		events := run(4096, 0, 2)
		want := bytes.Clone(events[1].Bytes())
		_ = append(events[0].Bytes(), "xxxxxxxx"...)
		if !bytes.Equal(events[1].Bytes(), want) {
			t.Errorf("appending to the first event's Bytes changed the second: %q", events[1].Bytes())
		}
	})
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAStreamOverHTTP1IsTheConnectionUpToItsClose: over HTTP/1.1 a
// stream's body is not chunked (each write of events is one write of the
// connection) and the connection closes after it; its events arrive whole.
func TestAStreamOverHTTP1IsTheConnectionUpToItsClose(t *testing.T) {
	h := httproute.NewHandler(table(), serves(nil), httproute.WithCaller(caller))
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest("GET", srv.URL+"/api/things/events?from=6", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Caller", "alice")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || len(res.TransferEncoding) != 0 || !res.Close || res.ContentLength != -1 {
		t.Errorf("status %d, transfer encoding %v, close %v, length %d: want 200, none, close, unknown", res.StatusCode, res.TransferEncoding, res.Close, res.ContentLength)
	}
	want := "id: 7\nevent: tick\ndata: {}\n\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(res.Body, got); err != nil || string(got) != want {
		t.Errorf("read %q (%v), want %q", got, err, want)
	}
}
