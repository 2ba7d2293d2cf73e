package routetest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/httproute"
)

type problem struct {
	Error string `json:"error"`
}

type note struct {
	Text string `json:"text"`
}

// table is a wire of a page, a read by id, a stream that resumes, a state
// change with a body, and a route its server declines.
func table() httproute.Table {
	id := []httproute.Param{{Name: "id", Type: "int64", Text: httproute.Text{Kind: httproute.TextInt, Bits: 64}}}
	return httproute.Table{
		Package: "things",
		Refusal: func(m string) any { return problem{Error: m} },
		Routes: []httproute.Route{
			{Name: "Page", Method: "GET", Path: "/", Public: true, Answer: httproute.AnswerFiles},
			{Name: "GetThing", Method: "GET", Path: "/api/things/{id}", Params: id, Answer: httproute.AnswerJSON, Refusals: []int{404}},
			{Name: "WatchThings", Method: "GET", Path: "/api/things/events", Answer: httproute.AnswerStream,
				Query:  []httproute.Param{{Name: "from", Type: "int64", Text: httproute.Text{Kind: httproute.TextInt, Bits: 64}, Optional: true}},
				Events: &httproute.Events{Names: []string{"tick"}, Resume: "from"}},
			{Name: "NoteThing", Method: "POST", Path: "/api/things/{id}", Params: id, Body: &httproute.Body{Type: "note", MaxBytes: 64}, Answer: httproute.AnswerJSON},
			{Name: "Declined", Method: "GET", Path: "/api/declined", Answer: httproute.AnswerJSON},
		},
	}
}

func handler() *httproute.Handler {
	caller := func(r *http.Request) (context.Context, error) {
		if r.Header.Get("X-Caller") == "" {
			return nil, fmt.Errorf("no caller")
		}
		return r.Context(), nil
	}
	thing := func(c *httproute.Call) error {
		id, err := httproute.ParseInt(c.Path("id"), 64)
		if err != nil {
			return c.BadPath("id", err)
		}
		if id != 7 {
			return httproute.Refuse(http.StatusNotFound, "no such thing")
		}
		return c.JSON(map[string]int64{"id": id})
	}
	return httproute.NewHandler(table(), []httproute.Serve{
		func(c *httproute.Call) error { return c.Files(fstest.MapFS{"index.html": {Data: []byte("page")}}) },
		thing,
		func(c *httproute.Call) error {
			if v, ok, err := c.Query("from"); err != nil {
				return err
			} else if ok {
				if _, err := httproute.ParseInt(v, 64); err != nil {
					return c.BadQuery("from", err)
				}
			}
			s := c.Stream()
			s.Put(httproute.NewEvent("tick", "1", []byte("{}")))
			return s.Flush()
		},
		func(c *httproute.Call) error {
			var n note
			if err := c.Body(&n); err != nil {
				return err
			}
			return thing(c)
		},
		func(c *httproute.Call) error { return httproute.Decline("not here") },
	}, httproute.WithCaller(caller))
}

// recorder is a reporter that keeps what a walk reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...) }

func walkInto(h http.Handler, declined ...string) (*recorder, int) {
	rep := &recorder{}
	n := walk(rep, table(), h, Options{
		Authorize: func(r *http.Request) { r.Header.Set("X-Caller", "a") },
		Declined:  declined,
		Value: func(route string, p httproute.Param) string {
			if p.Name == "id" {
				return "7"
			}
			return ""
		},
	}, func(_ string, route func(reporter)) { route(rep) })
	return rep, n
}

func TestAHandlerThatKeepsTheContractPassesTheWalk(t *testing.T) {
	rep, n := walkInto(handler(), "Declined")
	if len(rep.errs) > 0 {
		t.Fatalf("the walk of a handler that keeps the contract reports:\n%s", strings.Join(rep.errs, "\n"))
	}
	if n < 20 {
		t.Errorf("the walk sent %d requests, too few to have tried every method and parameter", n)
	}
}

// breaking wraps the handler so that a request fn picks is answered by
// answer instead.
func breaking(fn func(r *http.Request) bool, answer http.HandlerFunc) http.Handler {
	h := handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fn(r) {
			answer(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func TestTheWalkCatchesAHandlerThatBreaksTheContract(t *testing.T) {
	for _, tc := range []struct {
		name     string
		h        http.Handler
		declined []string
		want     string
	}{
		{"a plain-text 404 for an unknown path",
			breaking(func(r *http.Request) bool { return strings.Contains(r.URL.Path, nope) },
				func(w http.ResponseWriter, r *http.Request) { http.Error(w, "404 page not found", http.StatusNotFound) }),
			[]string{"Declined"}, "refusal record"},
		{"a plain-text 405",
			breaking(func(r *http.Request) bool { return r.Method == "DELETE" },
				func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Allow", "GET, HEAD, POST")
					http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				}),
			[]string{"Declined"}, "refusal record"},
		{"a 405 without Allow",
			breaking(func(r *http.Request) bool { return r.Method == "PUT" },
				func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusMethodNotAllowed)
					w.Write([]byte(`{"error":"no"}` + "\n"))
				}),
			[]string{"Declined"}, "Allow"},
		{"a decline the test does not list", handler(), nil, "not in Options.Declined"},
		{"a listed route that is served", handler(), []string{"Declined", "GetThing"}, "the decline of a route"},
		{"a refusal the route does not declare",
			breaking(func(r *http.Request) bool { return r.URL.Path == "/api/things/events" && r.Method == "GET" },
				func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusConflict)
					w.Write([]byte(`{"error":"busy"}` + "\n"))
				}),
			[]string{"Declined"}, "no refusal the route declares"},
	} {
		rep, _ := walkInto(tc.h, tc.declined...)
		if !strings.Contains(strings.Join(rep.errs, "\n"), tc.want) {
			t.Errorf("%s: the walk reports %q, want something about %q", tc.name, rep.errs, tc.want)
		}
	}
}
