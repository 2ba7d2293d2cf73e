package httproute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jobgen/jobgen/httproute"
)

// problem is the refusal record of the tests' table.
type problem struct {
	Error string `json:"error"`
}

// note is the tests' request body, decoded strictly enough to refuse a
// key it does not know.
type note struct {
	Text string `json:"text"`
}

func (n *note) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	type plain note
	return dec.Decode((*plain)(n))
}

var int64Text = httproute.Text{Kind: httproute.TextInt, Bits: 64}

// table is a small wire: a page, a typed path, a literal beside it, a
// stream that resumes, a body, a route its server declines, and one it
// hands off.
func table() httproute.Table {
	return httproute.Table{
		Package: "things",
		Refusal: func(m string) any { return problem{Error: m} },
		Routes: []httproute.Route{
			{Name: "Page", Method: "GET", Path: "/", Public: true, Answer: httproute.AnswerFiles},
			{Name: "GetThing", Method: "GET", Path: "/api/things/{id}", Params: []httproute.Param{{Name: "id", Text: int64Text}}, Answer: httproute.AnswerJSON, Refusals: []int{404}},
			{Name: "WatchThings", Method: "GET", Path: "/api/things/events", Answer: httproute.AnswerStream,
				Query:  []httproute.Param{{Name: "from", Text: int64Text, Optional: true}},
				Events: &httproute.Events{Names: []string{"tick"}, Resume: "from"}},
			{Name: "NoteThing", Method: "POST", Path: "/api/things/{id}", Params: []httproute.Param{{Name: "id", Text: int64Text}},
				Body: &httproute.Body{Type: "note", MaxBytes: 32}, Answer: httproute.AnswerJSON},
			{Name: "Declined", Method: "GET", Path: "/api/declined", Answer: httproute.AnswerJSON},
			{Name: "Forward", Method: "POST", Path: "/api/forward", Body: &httproute.Body{Type: "note", MaxBytes: 64, Optional: true}, Answer: httproute.AnswerJSON},
			{Name: "Search", Method: "GET", Path: "/api/search", Query: []httproute.Param{{Name: "q", Text: httproute.Text{Kind: httproute.TextString}}}, Answer: httproute.AnswerJSON},
		},
	}
}

// callers is the tests' Caller: the X-Caller header names the caller.
type callerKey struct{}

func caller(r *http.Request) (context.Context, error) {
	who := r.Header.Get("X-Caller")
	if who == "" {
		return nil, httproute.Refuse(http.StatusUnauthorized, "no caller")
	}
	return context.WithValue(r.Context(), callerKey{}, who), nil
}

// serves are the table's routes, written as generated code writes them.
func serves(events chan<- httproute.Event) []httproute.Serve {
	return []httproute.Serve{
		func(c *httproute.Call) error {
			return c.Files(fstest.MapFS{"index.html": {Data: []byte("<p>page</p>")}, "app.mjs": {Data: []byte("x")}})
		},
		func(c *httproute.Call) error {
			id, err := httproute.ParseInt(c.Path("id"), 64)
			if err != nil {
				return c.BadPath("id", err)
			}
			if id == 404 {
				return httproute.Refuse(http.StatusNotFound, "no such thing")
			}
			return c.JSON(map[string]any{"id": id, "caller": c.Context().Value(callerKey{})})
		},
		func(c *httproute.Call) error {
			v, ok, err := c.Query("from")
			if err != nil {
				return err
			}
			from := int64(-1)
			if ok {
				if from, err = httproute.ParseInt(v, 64); err != nil {
					return c.BadQuery("from", err)
				}
			}
			s := c.Stream()
			if err := s.Put(httproute.NewEvent("tick", strconv.FormatInt(from+1, 10), []byte(`{}`))); err != nil {
				return err
			}
			s.Flush()
			if events != nil {
				events <- httproute.NewEvent("tick", "", nil)
			}
			<-c.Context().Done()
			return nil
		},
		func(c *httproute.Call) error {
			if _, err := httproute.ParseInt(c.Path("id"), 64); err != nil {
				return c.BadPath("id", err)
			}
			var n note
			if err := c.Body(&n); err != nil {
				return err
			}
			return c.JSON(n)
		},
		func(c *httproute.Call) error { return httproute.Decline("this server keeps no such list") },
		func(c *httproute.Call) error {
			var n note
			if err := c.Body(&n); err != nil {
				return err
			}
			return httproute.Handoff(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				w.Write(append([]byte("forwarded "), b...))
			}))
		},
		func(c *httproute.Call) error {
			if _, _, err := c.Query("q"); err != nil {
				return err
			}
			var found []string // none: a nil list
			return c.JSON(found)
		},
	}
}

func newHandler(t *testing.T) *httproute.Handler {
	t.Helper()
	h := httproute.NewHandler(table(), serves(nil), httproute.WithCaller(caller))
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// do serves one request and returns the answer.
func do(h http.Handler, method, path string, body string, header map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// refusal decodes an answer as the refusal record, failing when it is not one.
func refusal(t *testing.T, what string, w *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, want the refusal record's application/json", what, ct)
	}
	var p problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Error == "" {
		t.Errorf("%s: %q is not a refusal record with a message (%v)", what, w.Body.String(), err)
	}
	return p.Error
}

var alice = map[string]string{"X-Caller": "alice"}

func TestUnknownPathsAndMethodsAnswerTheRefusalRecord(t *testing.T) {
	h := newHandler(t)
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/api/nothing", http.StatusNotFound, ""},
		{"POST", "/api/nothing/at/all", http.StatusNotFound, ""},
		{"GET", "/api/things/1/extra", http.StatusNotFound, ""},
		{"GET", "/api/things/", http.StatusNotFound, ""},
		{"DELETE", "/api/things/1", http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{"PUT", "/api/things/events", http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{"PUT", "/", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"POST", "/app.mjs", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"POST", "/nope.js", http.StatusNotFound, ""},
		{"GET", "/api/forward", http.StatusMethodNotAllowed, "POST"},
	} {
		w := do(h, tc.method, tc.path, "", alice)
		what := tc.method + " " + tc.path
		if w.Code != tc.status || w.Header().Get("Allow") != tc.allow {
			t.Errorf("%s: %d Allow %q, want %d Allow %q", what, w.Code, w.Header().Get("Allow"), tc.status, tc.allow)
		}
		refusal(t, what, w)
	}
}

func TestALiteralSegmentWinsOverAParameter(t *testing.T) {
	h := newHandler(t)
	w := do(h, "GET", "/api/things/7", "", alice)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"id":7`) || !strings.Contains(w.Body.String(), `"caller":"alice"`) {
		t.Fatalf("GET /api/things/7: %d %s, want the thing as alice", w.Code, w.Body)
	}
	if w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("a JSON answer's headers: %v", w.Header())
	}
	// /api/things/events is the stream, not the thing "events", whose id
	// would not parse.
	r := httptest.NewRequest("GET", "/api/things/events", nil)
	r.Header.Set("X-Caller", "alice")
	ctx, cancel := context.WithCancel(r.Context())
	cancel()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	if w.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("GET /api/things/events: %d %q, want the event stream", w.Code, w.Body)
	}
}

func TestAMalformedPathParameterNamesNothing(t *testing.T) {
	h := newHandler(t)
	for _, id := range []string{"x", "007", "+1", "1e0", "%20"} {
		w := do(h, "GET", "/api/things/"+id, "", alice)
		if w.Code != http.StatusNotFound {
			t.Errorf("GET /api/things/%s: %d, want 404", id, w.Code)
		}
		refusal(t, id, w)
	}
}

func TestTheCallerIsAskedFirstThenTheStateChangeGuard(t *testing.T) {
	h := newHandler(t)
	for _, tc := range []struct {
		what   string
		header map[string]string
		path   string
		status int
	}{
		{"no caller, no JSON, a bad id", nil, "/api/things/x", http.StatusUnauthorized},
		{"no JSON, a bad id", alice, "/api/things/x", http.StatusUnsupportedMediaType},
		{"a form", map[string]string{"X-Caller": "a", "Content-Type": "application/x-www-form-urlencoded"}, "/api/things/1", http.StatusUnsupportedMediaType},
		{"another site, a bad id", map[string]string{"X-Caller": "a", "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, "/api/things/x", http.StatusForbidden},
		{"another origin", map[string]string{"X-Caller": "a", "Content-Type": "application/json", "Origin": "https://evil.example"}, "/api/things/1", http.StatusForbidden},
		{"a bad id", map[string]string{"X-Caller": "a", "Content-Type": "application/json"}, "/api/things/x", http.StatusNotFound},
	} {
		w := do(h, "POST", tc.path, `{"text":"hi"}`, tc.header)
		if w.Code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.what, w.Code, w.Body, tc.status)
		}
		refusal(t, tc.what, w)
	}
	if w := do(h, "GET", "/app.mjs", "", nil); w.Code != http.StatusOK {
		t.Errorf("the public page without a caller: %d, want 200", w.Code)
	}
}

func TestABodyIsReadThroughItsLimitAndDecodedStrictly(t *testing.T) {
	h := newHandler(t)
	jsonAlice := map[string]string{"X-Caller": "alice", "Content-Type": "application/json"}
	for _, tc := range []struct {
		body   string
		status int
	}{
		{`{"text":"hi"}`, http.StatusOK},
		{`{"text":"` + strings.Repeat("x", 40) + `"}`, http.StatusRequestEntityTooLarge},
		{`{"txt":"hi"}`, http.StatusBadRequest},
		{`{"text":"hi"} {}`, http.StatusBadRequest},
		{``, http.StatusBadRequest},
	} {
		w := do(h, "POST", "/api/things/1", tc.body, jsonAlice)
		if w.Code != tc.status {
			t.Errorf("body %q: %d %s, want %d", tc.body, w.Code, w.Body, tc.status)
		}
		if tc.status != http.StatusOK {
			refusal(t, tc.body, w)
		}
	}
	if w := do(h, "POST", "/api/things/1", strings.Repeat("x", 40), jsonAlice); !strings.Contains(w.Body.String(), "32 bytes") {
		t.Errorf("a 413 says the limit: %s", w.Body)
	}
}

func TestTheQueryIsStrict(t *testing.T) {
	h := newHandler(t)
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"?q=x", http.StatusOK},
		{"", http.StatusBadRequest},
		{"?q=x&q=y", http.StatusBadRequest},
	} {
		w := do(h, "GET", "/api/search"+tc.query, "", alice)
		if w.Code != tc.status {
			t.Errorf("search %q: %d %s, want %d", tc.query, w.Code, w.Body, tc.status)
		}
		if tc.status == http.StatusOK && w.Body.String() != "[]" {
			t.Errorf("an empty list answers %q, want []", w.Body)
		}
	}
}

func TestADeclinedRouteSaysItIsNotServed(t *testing.T) {
	h := newHandler(t)
	w := do(h, "GET", "/api/declined", "", alice)
	if w.Code != http.StatusNotFound || w.Header().Get(httproute.NotServedHeader) != "Declined" {
		t.Fatalf("a declined route: %d %s=%q, want 404 naming the route", w.Code, httproute.NotServedHeader, w.Header().Get(httproute.NotServedHeader))
	}
	if msg := refusal(t, "declined", w); msg != "this server keeps no such list" {
		t.Errorf("the decline says %q, want its reason", msg)
	}
	if !errors.Is(httproute.Decline("x"), httproute.ErrNotServed) || errors.Is(httproute.Refuse(404, "x"), httproute.ErrNotServed) {
		t.Error("errors.Is(err, ErrNotServed) must hold for a decline and only for one")
	}
	if w := do(h, "GET", "/api/things/404", "", alice); w.Header().Get(httproute.NotServedHeader) != "" {
		t.Error("a refusal that is no decline carries the not-served header")
	}
}

func TestAHandoffServesTheRequestWithItsBody(t *testing.T) {
	h := newHandler(t)
	w := do(h, "POST", "/api/forward", `{"text":"kill"}`, map[string]string{"X-Caller": "a", "Content-Type": "application/json"})
	if w.Body.String() != `forwarded {"text":"kill"}` {
		t.Fatalf("the handoff answered %q, want the body forwarded as it came", w.Body)
	}
}

func TestAFilesRouteAnswersAMissingFileWithTheRecord(t *testing.T) {
	h := newHandler(t)
	if w := do(h, "GET", "/", "", nil); w.Code != http.StatusOK || w.Body.String() != "<p>page</p>" || w.Header().Get("Content-Security-Policy") == "" {
		t.Errorf("GET /: %d %q %v, want the index with its policy", w.Code, w.Body, w.Header())
	}
	for _, path := range []string{"/nope.js", "/..", "/api"} {
		w := do(h, "GET", path, "", nil)
		if w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, w.Code)
		}
		refusal(t, path, w)
	}
	if w := do(h, "GET", "/index.html", "", nil); w.Code != http.StatusMovedPermanently {
		t.Errorf("GET /index.html: %d, want the file server's redirect to ./", w.Code)
	}
}

func TestNumbersAreReadOnlyAsAServerWritesThem(t *testing.T) {
	for _, s := range []string{"", "+1", "01", "-0", "1e0", " 1", "0x1", "9223372036854775808"} {
		if _, err := httproute.ParseInt(s, 64); err == nil {
			t.Errorf("ParseInt(%q) accepted it", s)
		}
	}
	for _, s := range []string{"0", "1", "-1", "9223372036854775807"} {
		if v, err := httproute.ParseInt(s, 64); err != nil || strconv.FormatInt(v, 10) != s {
			t.Errorf("ParseInt(%q) = %d, %v", s, v, err)
		}
	}
	if _, err := httproute.ParseInt("128", 8); err == nil {
		t.Error("ParseInt(128, 8) accepted a value out of range")
	}
	if _, err := httproute.ParseUint("-1", 64); err == nil {
		t.Error("ParseUint(-1) accepted it")
	}
	if _, err := httproute.ParseBool("True"); err == nil {
		t.Error("ParseBool(True) accepted it")
	}
}

func TestWithAddsTheExtraKeysAndReadsBoth(t *testing.T) {
	type item struct {
		ID int `json:"id"`
	}
	type extra struct {
		Host string `json:"host,omitzero"`
	}
	for _, tc := range []struct {
		w    httproute.With[item, extra]
		want string
	}{
		{httproute.With[item, extra]{Item: item{ID: 1}}, `{"id":1}`},
		{httproute.With[item, extra]{Item: item{ID: 1}, Extra: extra{Host: "h"}}, `{"id":1,"host":"h"}`},
	} {
		got, err := json.Marshal(tc.w)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: %s %v, want %s", tc.w, got, err, tc.want)
		}
		var back httproute.With[item, extra]
		if err := json.Unmarshal(got, &back); err != nil || back != tc.w {
			t.Errorf("read back %s: %+v %v", got, back, err)
		}
	}
}

// A duration that cannot work is the calling code's mistake, found where the
// handler is made rather than when a stream first waits on it: the option
// panics, naming itself, as NewHandler does for serves that miss the table.
func TestStreamOptionsPanicOnADurationThatIsNotPositive(t *testing.T) {
	for name, mk := range map[string]func(){
		"WithWriteTimeout(0s)": func() { httproute.WithWriteTimeout(0) },
		"WithKeepAlive(-1s)":   func() { httproute.WithKeepAlive(-time.Second) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), name) {
					t.Errorf("%s: recovered %v, want a panic naming it", name, r)
				}
			}()
			mk()
		}()
	}
}
