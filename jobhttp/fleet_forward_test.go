package jobhttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// A counter is a server that counts what it is sent and answers with
// answer: an internal service the fleet must never be made to reach, or a
// host that answers what no wire does.
type counter struct {
	srv      *httptest.Server
	requests atomic.Int64
}

func newCounter(t testing.TB, answer http.HandlerFunc) *counter {
	t.Helper()
	c := &counter{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		answer(w, r)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// forgeRegistration appends to the shared history, as anyone who may
// append to it can, the registration of a job of owner on host, and
// returns the job's id.
func forgeRegistration(t testing.TB, schema string, owner jobs.SessionID, host jobs.JobHost) jobs.JobID {
	t.Helper()
	ctx := context.Background()
	store, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	f := jobs.JobRegistered{JobID: jobs.NewJobID(), At: time.Now().UnixMilli(), Owner: owner, Kind: "forged", Label: "forged", Ordinal: 1, Record: true, Host: host}
	payload, err := jobs.EncodeFact(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(ctx, jobhistory.StreamOf(f), journal.Entry{Payload: payload}); err != nil {
		t.Fatal(err)
	}
	return f.JobID
}

// forwardedRoutes are the requests the fleet forwards to a job's host.
var forwardedRoutes = []struct {
	method, route, body string
}{
	{"GET", "/follow", ""},
	{"GET", "/raw", ""},
	{"POST", "/kill", `{"reason":"forged"}`},
	{"POST", "/input", `{"text":"id\n"}`},
}

// askFleet sends each forwarded route of job id to the fleet as session,
// without following a redirect, and returns the answers, bodies read.
func askFleet(t *testing.T, fleet *testFleet, id jobs.JobID, session string) map[string]answer {
	t.Helper()
	out := map[string]answer{}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, rt := range forwardedRoutes {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, rt.method, fleet.srv.URL+"/api/jobs/"+id.String()+rt.route, strings.NewReader(rt.body))
		req.Header.Set(sessionHeader, session)
		if rt.method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			cancel()
			t.Fatalf("%s %s: %v", rt.method, rt.route, err)
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<10))
		res.Body.Close()
		cancel()
		out[rt.route] = answer{status: res.StatusCode, header: res.Header, body: string(body)}
	}
	return out
}

type answer struct {
	status int
	header http.Header
	body   string
}

// The fleet forwards a job's follow, raw, kill and input only to the
// address the operator configured for the job's host (WithPeers),
// never to the address a registration in the shared history names: a
// forged registration cannot make the fleet reach an internal service,
// whether it names a host the fleet knows (then the fleet asks that host,
// which knows no such job) or one it does not (then the fleet refuses).
func TestFleetForwardsOnlyToTheAddressesItWasConfiguredWith(t *testing.T) {
	schema := pgtest.Schema(t)
	a := newFleetHost(t, schema, "host-a", 10*time.Second)
	internal := newCounter(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal secrets") })
	fleet := newTestFleet(t, schema, 10*time.Second, a)

	asKnown := forgeRegistration(t, schema, "s1", jobs.JobHost{Name: "host-a", Incarnation: jobs.NewIncarnationID(), Address: internal.srv.URL})
	asUnknown := forgeRegistration(t, schema, "s1", jobs.JobHost{Name: "host-x", Incarnation: jobs.NewIncarnationID(), Address: internal.srv.URL})
	fleet.waitRoster("s1", "the forged jobs", func(r []fleetJob) bool { return len(r) == 2 })

	before := a.requests.Load()
	for route, ans := range askFleet(t, fleet, asKnown, "s1") {
		if ans.status != http.StatusNotFound {
			t.Errorf("%s of a forged job naming host-a: %d %s; want host-a's 404 (it has no such job)", route, ans.status, ans.body)
		}
	}
	if got := a.requests.Load() - before; got != int64(len(forwardedRoutes)) {
		t.Errorf("host-a received %d of the forged job's %d requests; want all, at its configured address", got, len(forwardedRoutes))
	}
	for route, ans := range askFleet(t, fleet, asUnknown, "s1") {
		if ans.status != http.StatusConflict || !strings.Contains(ans.body, "host-x") {
			t.Errorf("%s of a forged job naming host-x: %d %s; want 409 naming the host the fleet does not forward to", route, ans.status, ans.body)
		}
	}
	if n := internal.requests.Load(); n != 0 {
		t.Fatalf("the internal service received %d requests through the fleet; want none", n)
	}
}

// The fleet relays only what the wire answers: JSON, an event stream or a
// raw record's text, always with nosniff; a redirect (which the fleet
// does not follow) or any other content is a 502, and a host's cookies and
// other headers stay behind.
func TestFleetRelaysOnlyTheWiresAnswers(t *testing.T) {
	schema := pgtest.Schema(t)
	internal := newCounter(t, func(w http.ResponseWriter, r *http.Request) {})
	odd := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/follow"): // a redirect in a wire media type
			w.Header().Set("Content-Type", "text/event-stream")
			http.Redirect(w, r, internal.srv.URL+"/admin", http.StatusFound)
		case strings.HasSuffix(r.URL.Path, "/raw"):
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<script>alert(1)</script>")
		case strings.HasSuffix(r.URL.Path, "/kill"):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "host=1")
			w.Header().Set("Refresh", "0; url="+internal.srv.URL)
			io.WriteString(w, `{"result":"requested"}`)
		default:
			w.Header().Set("Content-Type", "image/svg+xml")
			io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
		}
	})
	oddHost := jobs.JobHost{Name: "host-odd", Incarnation: jobs.NewIncarnationID(), Address: odd.srv.URL}
	fleet := newTestFleetWithPeers(t, schema, 10*time.Second, map[jobs.HostID]string{"host-odd": odd.srv.URL})
	id := forgeRegistration(t, schema, "s1", oddHost)
	fleet.waitRoster("s1", "the job", func(r []fleetJob) bool { return len(r) == 1 })

	got := askFleet(t, fleet, id, "s1")
	for route, want := range map[string]int{"/follow": http.StatusBadGateway, "/raw": http.StatusBadGateway, "/kill": http.StatusOK, "/input": http.StatusBadGateway} {
		ans := got[route]
		if ans.status != want {
			t.Errorf("%s answered by the host oddly: the fleet said %d %s; want %d", route, ans.status, ans.body, want)
		}
		if ans.header.Get("Location") != "" || ans.header.Get("Refresh") != "" || ans.header.Get("Set-Cookie") != "" {
			t.Errorf("%s: the fleet relayed the host's Location/Refresh/Set-Cookie: %v", route, ans.header)
		}
		if ans.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff on the fleet's answer: %v", route, ans.header)
		}
		if strings.Contains(ans.body, "<script>") {
			t.Errorf("%s: the fleet relayed the host's HTML: %s", route, ans.body)
		}
	}
	if n := internal.requests.Load(); n != 0 {
		t.Fatalf("the internal service received %d requests; want none", n)
	}
}
