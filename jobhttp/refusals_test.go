package jobhttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// A route is a method and a path of the wire ({id} a job's or a child's).
type route struct{ method, path string }

// handlerRoutes are the routes a Handler serves; the fleet serves them too
// (declining the subagents by name) and fleetRoutes besides.
var handlerRoutes = []route{
	{"GET", "/"},
	{"GET", "/api/jobs"},
	{"GET", "/api/jobs/events"},
	{"GET", "/api/jobs/{id}"},
	{"GET", "/api/jobs/{id}/follow"},
	{"POST", "/api/jobs/{id}/kill"},
	{"POST", "/api/jobs/{id}/input"},
	{"GET", "/api/jobs/{id}/raw"},
	{"GET", "/api/history"},
	{"GET", "/api/subagents"},
	{"GET", "/api/subagents/events"},
	{"GET", "/api/subagents/{id}/history"},
}

var fleetRoutes = append(slices.Clone(handlerRoutes), route{"GET", "/api/fleet"})

// unknownPaths are paths no route has, asked with each method.
var unknownPaths = []string{"/api/nope", "/api/jobs/{id}/nope", "/api/jobs/{id}/kill/again", "/api/subagents/{id}", "/api/", "/nope.js"}

// checkRefusals asks srv every route with each method it does not take,
// and every unknown path with every method, and checks each answer is the
// wire's refusal: a wire.ErrorBody, 405 with an Allow naming the route's
// method for a known path, 404 for an unknown one.
func checkRefusals(t *testing.T, s *server, routes []route) {
	t.Helper()
	id := jobs.NewJobID().String()
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}
	refusal := func(method, path string, status int, allow string) {
		t.Helper()
		res := s.request(method, strings.ReplaceAll(path, "{id}", id), "s1", strings.NewReader(`{}`), map[string]string{"Content-Type": "application/json"})
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var body wire.ErrorBody
		switch {
		case res.StatusCode != status:
			t.Errorf("%s %s: %s %q; want %d", method, path, res.Status, data, status)
		case !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json"):
			t.Errorf("%s %s: %d with Content-Type %q: %q; want a wire.ErrorBody", method, path, status, res.Header.Get("Content-Type"), data)
		case method != "HEAD" && (json.Unmarshal(data, &body) != nil || body.Error == ""):
			t.Errorf("%s %s: %d %q; want a wire.ErrorBody that says why", method, path, status, data)
		case allow != "" && !slices.Contains(strings.Split(res.Header.Get("Allow"), ", "), allow):
			t.Errorf("%s %s: 405 with Allow %q; want it to name %s", method, path, res.Header.Get("Allow"), allow)
		}
	}
	for _, rt := range routes {
		for _, m := range methods {
			if m == rt.method || (m == "HEAD" && rt.method == "GET") {
				continue
			}
			refusal(m, rt.path, http.StatusMethodNotAllowed, rt.method)
		}
	}
	for _, path := range unknownPaths {
		for _, m := range methods {
			refusal(m, path, http.StatusNotFound, "")
		}
	}
}

// Every route of a Handler asked with another method is a 405 naming the
// methods it takes, and every path no route has a 404, each a
// wire.ErrorBody as every other refusal is, and never the mux's plain text.
func TestEveryRefusalOfAHandlersRoutesIsAnErrorBody(t *testing.T) {
	checkRefusals(t, newServer(t, nil), handlerRoutes)
}

// The same of a Fleet, whose routes are the Handler's and its own.
func TestEveryRefusalOfAFleetsRoutesIsAnErrorBody(t *testing.T) {
	fleet := newTestFleet(t, pgtest.Schema(t), time.Second)
	checkRefusals(t, fleet.server, fleetRoutes)
}

// A fleet declines the subagent routes by name: a 404 whose ErrorBody says
// the fleet serves none, whoever asks.
func TestAFleetDeclinesTheSubagentRoutesByName(t *testing.T) {
	fleet := newTestFleet(t, pgtest.Schema(t), time.Second)
	for _, path := range []string{"/api/subagents", "/api/subagents/events", "/api/subagents/" + jobs.NewJobID().String() + "/history"} {
		res := fleet.request("GET", path, "s1", nil, nil)
		body := decodeStrict[wire.ErrorBody](t, path, res)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body.Error, "serves no subagents") {
			t.Errorf("GET %s on a fleet: %s %q; want 404 saying the fleet serves no subagents", path, res.Status, body.Error)
		}
	}
}
