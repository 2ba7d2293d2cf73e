package proptest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/httproute/routetest"
)

// wireMethods are the methods a stray request draws from.
var wireMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// stray sends a request no route serves: a known path with a method none
// of its routes takes, or a path no route has, drawn from the spec's route
// table (wire.Routes) and segments beside it. The model is the table
// itself, read here on its own: such a request is a 405 whose Allow lists
// the path's methods, or a 404, and either is a wire.ErrorBody; nothing
// changes.
func (m *wireMachine) stray(rt *rapid.T) {
	routes := wire.Routes().Routes
	r := routes[rapid.IntRange(0, len(routes)-1).Draw(rt, "route")]
	segs := strings.Split(r.Path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = rapid.SampledFrom([]string{m.pickJob(rt).id.String(), "x", "events"}).Draw(rt, "param")
		}
	}
	switch rapid.IntRange(0, 3).Draw(rt, "shape") {
	case 1:
		segs = append(segs, rapid.SampledFrom([]string{"nope", "kill", "follow", ""}).Draw(rt, "extra"))
	case 2:
		if len(segs) > 1 {
			segs[1] = rapid.SampledFrom([]string{"apis", "API", "nope"}).Draw(rt, "first")
		}
	}
	path := strings.Join(segs, "/")
	allow := routetest.Allow(wire.Routes(), path)
	method := rapid.SampledFrom(wireMethods).Draw(rt, "method")
	if slices.Contains(allow, method) {
		return // a request a route serves: the other actions' business
	}
	session := rapid.SampledFrom(wireSessions).Draw(rt, "session")
	host := rapid.SampledFrom(wireHosts).Draw(rt, "host")
	res := m.request(rt, method, path, session, host, map[string]string{"Content-Type": "application/json"}, "{}")
	body, err := readAll(res)
	if err != nil {
		rt.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	code := res.StatusCode
	want, wantAllow := http.StatusNotFound, ""
	if len(allow) > 0 {
		want, wantAllow = http.StatusMethodNotAllowed, strings.Join(allow, ", ")
	}
	switch {
	case !m.served(host):
		refusedHost(rt, "a stray "+method+" "+path, code, body)
		return
	case code != want || res.Header.Get("Allow") != wantAllow:
		rt.Fatalf("%s %s: %d Allow %q %s, want %d Allow %q", method, path, code, res.Header.Get("Allow"), body, want, wantAllow)
	case res.Header.Get("Content-Type") != "application/json" || res.Header.Get(httproute.NotServedHeader) != "":
		rt.Fatalf("%s %s: %d as %q (%s %q), want a wire.ErrorBody of no declined route", method, path, code, res.Header.Get("Content-Type"), httproute.NotServedHeader, res.Header.Get(httproute.NotServedHeader))
	}
	var e wire.ErrorBody
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		rt.Fatalf("%s %s: %d %q is no wire.ErrorBody with a reason (%v)", method, path, code, body, err)
	}
}
