package httproute_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/httproute"
)

// message reads the refusal record of these tests, {"error": "..."}.
func message(body []byte) (string, error) {
	var v struct {
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Error == nil {
		return "", errors.New("no error body")
	}
	return *v.Error, nil
}

// answers serves one answer per request, in order, and keeps the requests.
type answers struct {
	mu   sync.Mutex
	seen []*http.Request
	each []func(w http.ResponseWriter)
}

func (a *answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	n := len(a.seen)
	a.seen = append(a.seen, r)
	a.mu.Unlock()
	if n >= len(a.each) {
		http.Error(w, `{"error":"no more answers"}`, http.StatusGone)
		return
	}
	a.each[n](w)
}

func events(text string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, text)
	}
}

func refuse(status int, msg string, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		fmt.Fprint(w, msg)
	}
}

// client is a client of a, whose waits are noted instead of slept.
func client(t *testing.T, a *answers, retries int) (*httproute.Client, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	var waits []time.Duration
	c, err := httproute.NewClient(srv.URL+"/root", message,
		httproute.WithRetries(retries),
		httproute.WithSleep(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	return c, &waits
}

// TestTheClientReadsHostileStreamsAsEveryClientDoes runs the rows of
// spec/testdata/client-hostile.json, which the Python and TypeScript
// clients read alike: the id sent back on reconnecting, the wait before it,
// and the seconds of a Retry-After.
func TestTheClientReadsHostileStreamsAsEveryClientDoes(t *testing.T) {
	data, err := os.ReadFile("../spec/testdata/client-hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Events []struct {
			Why         string
			Lines       []string
			LastEventID *string `json:"lastEventId"`
			RetryMs     *int    `json:"retryMs"`
		}
		RetryAfter []struct {
			Why     string
			Header  string
			Seconds *int
		} `json:"retryAfter"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	for _, row := range table.Events {
		t.Run(row.Why, func(t *testing.T) {
			a := &answers{each: []func(http.ResponseWriter){events(strings.Join(row.Lines, "\n") + "\n\n"), refuse(404, `{"error":"no such job"}`)}}
			c, waits := client(t, a, 1)
			var last error
			for _, err := range c.Stream(t.Context(), "api/follow", nil, []string{"output"}, true) {
				last = err
			}
			var refused *httproute.WireError
			if !errors.As(last, &refused) || refused.Message != "no such job" || len(a.seen) != 2 {
				t.Fatalf("the stream ended with %v after %d connections", last, len(a.seen))
			}
			got, sent := a.seen[1].Header.Get("Last-Event-ID"), a.seen[1].Header.Values("Last-Event-ID") != nil
			if want := row.LastEventID; (want == nil) == sent || (want != nil && *want != got) {
				t.Errorf("Last-Event-ID = %q (sent %v), want %v", got, sent, row.LastEventID)
			}
			want := 100 * time.Millisecond
			if row.RetryMs != nil {
				want = time.Duration(*row.RetryMs) * time.Millisecond
			}
			if len(*waits) != 1 || (*waits)[0] != want {
				t.Errorf("waited %v, want %v", *waits, want)
			}
		})
	}
	for _, row := range table.RetryAfter {
		t.Run(row.Why, func(t *testing.T) {
			a := &answers{each: []func(http.ResponseWriter){refuse(503, `{"error":"busy"}`, "Retry-After", row.Header)}}
			c, _ := client(t, a, 1)
			_, _, err := c.Do(t.Context(), "GET", "api/jobs", nil, nil)
			var refused *httproute.WireError
			if !errors.As(err, &refused) {
				t.Fatalf("Do: %v", err)
			}
			want := time.Duration(0)
			if row.Seconds != nil {
				want = time.Duration(*row.Seconds) * time.Second
			}
			if refused.RetryAfter != want {
				t.Errorf("RetryAfter = %v, want %v", refused.RetryAfter, want)
			}
		})
	}
}

// TestAStreamResumesAndGivesUpWithoutProgress: a dropped stream reconnects
// from the last id, a bye is a drop, progress refills the budget, and
// connections that bring only their first event spend it: with a budget of
// 2, the two after the bye are the last.
func TestAStreamResumesAndGivesUpWithoutProgress(t *testing.T) {
	opened := "event: opened\nid: 0\ndata: {}\n\n"
	a := &answers{each: []func(http.ResponseWriter){
		events(opened + "event: output\nid: 4\ndata: a\n\n"),
		events("event: opened\nid: 4\ndata: {}\n\nevent: output\nid: 8\ndata: b\n\nevent: bye\ndata: {}\n\n"),
		events("event: opened\nid: 8\ndata: {}\n\n"),
		events("event: opened\nid: 8\ndata: {}\n\n"),
	}}
	c, waits := client(t, a, 2)
	var got []string
	var last error
	for ev, err := range c.Stream(t.Context(), "api/follow", nil, []string{"opened", "output"}, true) {
		if err != nil {
			last = err
			break
		}
		got = append(got, ev.Name+"@"+ev.ID)
	}
	if want := "opened@0 output@4 opened@4 output@8 opened@8 opened@8"; strings.Join(got, " ") != want {
		t.Errorf("events %s, want %s", strings.Join(got, " "), want)
	}
	if last == nil || len(a.seen) != 4 || len(*waits) != 3 {
		t.Errorf("ended with %v after %d connections and %d waits; want the budget of 2 spent after the last progress", last, len(a.seen), len(*waits))
	}
	for i, want := range []string{"", "4", "8", "8"} {
		if got := a.seen[i].Header.Get("Last-Event-ID"); got != want {
			t.Errorf("connection %d resumed from %q, want %q", i, got, want)
		}
	}
	if a.seen[0].URL.Path != "/root/api/follow" || a.seen[0].Header.Get("Accept") != "text/event-stream" {
		t.Errorf("the stream asked for %s with Accept %q", a.seen[0].URL.Path, a.seen[0].Header.Get("Accept"))
	}
}

// TestARefusalIsAWireError: a refusal's message is the refusal record's,
// or the body's text, or the status's; a decline names its route.
func TestARefusalIsAWireError(t *testing.T) {
	a := &answers{each: []func(http.ResponseWriter){
		refuse(404, `{"error":"not served"}`, httproute.NotServedHeader, "ListFleetHosts"),
		refuse(502, "bad gateway\n"),
		refuse(500, ""),
		refuse(200, `[]`),
	}}
	c, _ := client(t, a, 1)
	var got []string
	for range 3 {
		_, _, err := c.Do(t.Context(), "GET", "api/x", nil, nil)
		var refused *httproute.WireError
		if !errors.As(err, &refused) {
			t.Fatalf("Do: %v", err)
		}
		got = append(got, fmt.Sprintf("%d %q %q %v", refused.Status, refused.Message, refused.NotServed, errors.Is(err, httproute.ErrNotServed)))
	}
	want := []string{`404 "not served" "ListFleetHosts" true`, `502 "bad gateway" "" false`, `500 "Internal Server Error" "" false`}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("refusals:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, data, err := c.Do(t.Context(), "POST", "api/x", nil, []byte(`{}`))
	if err != nil || string(data) != "[]" || a.seen[3].Header.Get("Content-Type") != "application/json" {
		t.Errorf("a POST: %q, %v, Content-Type %q", data, err, a.seen[3].Header.Get("Content-Type"))
	}
}

// TestAConnectionsFirstEventIsNoProgress: a server that drops every
// connection after its first event makes no progress, even when that event
// moves the resume point (a lossy resume opens past where it asked): with
// a budget of 2 the stream gives up after the third connection, with the
// drop, not the refusal a fourth would meet.
func TestAConnectionsFirstEventIsNoProgress(t *testing.T) {
	for _, resumable := range []bool{true, false} {
		a := &answers{}
		for i := range 4 {
			a.each = append(a.each, events(fmt.Sprintf("event: opened\nid: %d\ndata: {}\n\n", 10*(i+1))))
		}
		c, _ := client(t, a, 2)
		var last error
		for _, err := range c.Stream(t.Context(), "api/follow", nil, []string{"opened"}, resumable) {
			last = err
		}
		var refused *httproute.WireError
		if last == nil || errors.As(last, &refused) || len(a.seen) != 3 {
			t.Errorf("resumable %v: ended with %v after %d connections, want the drop after 3", resumable, last, len(a.seen))
		}
	}
}

// A client refuses a negative retry budget, naming the option, instead of
// reading it as none, and WithHeader twice sends the values of both.
func TestNewClientRefusesANegativeRetryBudgetAndAddsHeaders(t *testing.T) {
	refusal := func(body []byte) (string, error) { return string(body), nil }
	if _, err := httproute.NewClient("http://127.0.0.1:1/", refusal, httproute.WithRetries(-1)); err == nil || !strings.Contains(err.Error(), "WithRetries(-1)") {
		t.Errorf("NewClient with WithRetries(-1): %v, want an error naming it", err)
	}
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	c, err := httproute.NewClient(srv.URL, refusal,
		httproute.WithHeader(http.Header{"Authorization": {"Bearer alice"}}),
		httproute.WithHeader(http.Header{"X-Trace": {"1"}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Do(t.Context(), http.MethodGet, "api/jobs", nil, nil); err != nil {
		t.Fatal(err)
	}
	h := <-got
	if h.Get("Authorization") != "Bearer alice" || h.Get("X-Trace") != "1" {
		t.Errorf("the request's headers: %v, want both WithHeader's", h)
	}
}
