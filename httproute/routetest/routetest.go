// Package routetest walks a route table against a handler that serves it,
// as journal/storetest runs the journal's contract against a store: every
// route of the table, so a route the spec adds is walked without a line of
// test. For each route it sends
//
//   - a well-formed request, which must be answered 2xx, with one of the
//     route's declared refusals, or, for a route the handler declines
//     (httproute.Decline), a 404 naming the route in Jobgen-Not-Served, and
//     only the routes the caller lists as declined may be;
//   - every other method, each a 405 whose Allow lists the methods the path
//     takes;
//   - unknown paths beside it, each a 404 that is no decline;
//   - each parameter malformed (a 404 in the path, a 400 in the query, in
//     Last-Event-ID too for a stream's resume parameter), a required query
//     parameter missing (400), and for a body one too large (413), one that
//     is no JSON (400), no Content-Type (415) and one from another site
//     (403);
//   - without a caller (when Options.Authorize gives one), a 401 for every
//     route that is not public;
//
// and checks that every refusal is exactly the table's refusal record, as
// JSON.
package routetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/httproute"
)

// Options say what a walk needs to know of the handler.
type Options struct {
	// Authorize makes a request the caller's: its credentials, and the
	// Host the handler answers for. Nil sends requests as they are, and
	// the walk does not try a request without a caller.
	Authorize func(r *http.Request)
	// Declined names the routes the handler declines.
	Declined []string
	// Value returns a well-formed value of a parameter of a route (an id
	// the handler knows, say), or "" for the walk's own.
	Value func(route string, p httproute.Param) string
	// Body returns the body of a well-formed request to a route with one,
	// or "" for {}.
	Body func(route string) string
}

// A reporter is where a walk reports: a *testing.T, or a test's own.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// A walker is one walk: the table, the handler, and what it counts.
type walker struct {
	t        reporter
	table    httproute.Table
	h        http.Handler
	opts     Options
	msgKey   string // the refusal record's key that holds the message
	requests *int   // sent so far, by every subtest
}

// Walk walks table against h, reporting each answer that breaks the
// contract, and returns the number of requests it sent.
func Walk(t *testing.T, table httproute.Table, h http.Handler, opts Options) int {
	t.Helper()
	return walk(t, table, h, opts, func(name string, route func(reporter)) {
		t.Run(name, func(t *testing.T) { route(t) })
	})
}

// walk is Walk reporting to rep, each route run by each (a subtest).
func walk(rep reporter, table httproute.Table, h http.Handler, opts Options, each func(name string, route func(reporter))) int {
	w := &walker{t: rep, table: table, h: h, opts: opts, msgKey: messageKey(rep, table), requests: new(int)}
	for _, name := range opts.Declined {
		if table.Route(name) == nil {
			rep.Errorf("Declined names %s, which is no route of %s", name, table.Package)
		}
	}
	for i := range table.Routes {
		r := &table.Routes[i]
		each(r.Name, func(rep reporter) {
			w := *w
			w.t = rep
			w.wellFormed(r)
			w.otherMethods(r)
			w.unknownPaths(r)
			w.badParams(r)
			w.badBodies(r)
			w.noCaller(r)
		})
	}
	return *w.requests
}

// messageKey finds which key of the refusal record holds its message.
func messageKey(t reporter, table httproute.Table) string {
	const probe = "routetest probe"
	var m map[string]any
	data, _ := json.Marshal(table.Refusal(probe))
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s's refusal record is no JSON object: %s", table.Package, data)
	}
	for k, v := range m {
		if v == probe {
			return k
		}
	}
	t.Fatalf("%s's refusal record %s holds no message", table.Package, data)
	return ""
}

// A probe is one request the walk sends and what it wants back.
type probe struct {
	what           string
	method, path   string
	header         map[string]string
	body           string
	stream, bare   bool // stream: the context ends once answered; bare: no caller
	status         int  // 0: 2xx or a declared refusal
	allow, decline string
}

// send sends p and checks the answer.
func (w *walker) send(r *httproute.Route, p probe) {
	req := httptest.NewRequest(p.method, p.path, strings.NewReader(p.body))
	if w.opts.Authorize != nil {
		w.opts.Authorize(req)
		if p.bare {
			req.Header = http.Header{}
		}
	}
	for k, v := range p.header {
		req.Header.Set(k, v)
	}
	if p.stream {
		ctx, cancel := context.WithCancel(req.Context())
		cancel() // a stream answers its first event, or its refusal, and returns
		req = req.WithContext(ctx)
	}
	rec := httptest.NewRecorder()
	w.h.ServeHTTP(rec, req)
	*w.requests++
	w.check(r, p, rec)
}

// check holds an answer to what p wants.
func (w *walker) check(r *httproute.Route, p probe, rec *httptest.ResponseRecorder) {
	what := fmt.Sprintf("%s (%s %s)", p.what, p.method, p.path)
	notServed := rec.Header().Get(httproute.NotServedHeader)
	switch {
	case p.status == 0 && p.decline != "":
		if rec.Code != http.StatusNotFound || notServed != p.decline {
			w.t.Errorf("%s: %d %s=%q, want the decline of a route the handler declines: 404 naming %s", what, rec.Code, httproute.NotServedHeader, notServed, p.decline)
		}
	case p.status == 0 && rec.Code < 300:
		return
	case p.status == 0 && notServed != "":
		w.t.Errorf("%s: declined (%s), but the route is not in Options.Declined", what, notServed)
	case p.status == 0 && !slices.Contains(r.Refusals, rec.Code):
		w.t.Errorf("%s: %d %s, which is no refusal the route declares (%v)", what, rec.Code, strings.TrimSpace(rec.Body.String()), r.Refusals)
	case p.status != 0 && rec.Code != p.status:
		w.t.Errorf("%s: %d %s, want %d", what, rec.Code, strings.TrimSpace(rec.Body.String()), p.status)
	case p.status != 0 && notServed != "":
		w.t.Errorf("%s: answered as a decline of %s", what, notServed)
	}
	if p.allow != "" && rec.Header().Get("Allow") != p.allow {
		w.t.Errorf("%s: Allow %q, want %q", what, rec.Header().Get("Allow"), p.allow)
	}
	if rec.Code >= 400 {
		w.refusal(what, rec)
	}
}

// refusal checks that an answer is the refusal record, byte for byte.
func (w *walker) refusal(what string, rec *httptest.ResponseRecorder) {
	var m map[string]any
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		w.t.Errorf("%s: refused as %q, want the refusal record's application/json: %q", what, ct, rec.Body)
		return
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		w.t.Errorf("%s: refused with %q, which is no refusal record: %v", what, rec.Body, err)
		return
	}
	msg, _ := m[w.msgKey].(string)
	want, _ := json.Marshal(w.table.Refusal(msg))
	if msg == "" || rec.Body.String() != string(want)+"\n" {
		w.t.Errorf("%s: refused with %q, want the refusal record %s with a message", what, rec.Body, want)
	}
}
