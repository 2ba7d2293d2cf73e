package proptest

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/registry"
)

// TestFleetFence is the property of the fleet's forwarding (decisions
// 0129, 0130 and 0153), against the test server: three hosts record into
// one history and serve their jobs to the fleet alone, at the addresses the
// fleet is configured with; a fourth configured host answers what no wire
// does (redirects to an internal service, HTML, a cookie); and a forger
// appends registrations of its own to the history, naming a configured
// host or another, and the address of another host or of the internal
// service. Each check's two sessions start jobs on random hosts, forge
// some, and ask the fleet for random jobs' follow, raw record, kill, input
// or snapshot, and at some point the fleet's clock passes every lease (the
// hosts beat no heartbeats, so each job's lease is the fleet's default from
// its registration). After every request:
//
//   - a request about another session's job, or an unknown one, is a 404
//     and reaches no host;
//   - a request about the caller's job whose lease has ended, and which
//     was not killed, is a 503 and reaches no host;
//   - a follow, raw, kill or input of the caller's live job reaches the
//     host its registration names, at the address the fleet was configured
//     with for that name and there only, under the caller's session; a job
//     whose host name the fleet has no address for is a 409 that reaches
//     no host; what the odd host answers is a 502 (or, for its kill, a 200
//     without its cookie);
//   - the internal service never receives a request, every answer says
//     nosniff, carries one of the wire's media types and no Location, and
//     every request any host received named the session that owns the job
//     it is about.
func TestFleetFence(t *testing.T) {
	dsn := pgtest.DSN(t)
	setChecks(t, pgChecks(t))
	fx := newFleetFixture(t, dsn, pgtest.Schema(t))
	checkNo := 0
	rapid.Check(t, func(rt *rapid.T) {
		checkNo++
		fx.offset.Store(0)
		m := &fleetMachine{fx: fx, rt: rt, sessions: []jobs.SessionID{
			jobs.SessionID(fmt.Sprintf("c%d-a", checkNo)), jobs.SessionID(fmt.Sprintf("c%d-b", checkNo)),
		}}
		rt.Repeat(map[string]func(*rapid.T){
			"start":   m.start,
			"forge":   m.forge,
			"request": m.request,
			"ask":     m.request, // twice as often as the rest
			"expire":  m.expire,
			"":        m.checkHosts,
		})
	})
}

// fleetLease is the fleet's lease of a run with no heartbeat.
const fleetLease = time.Hour

var fleetPropKey = jobhttp.FleetKey{ID: "prop", Secret: []byte("the-fleet-property-secret-0123456789")}

// A fleetFixture is three hosts on one history, a host that answers
// oddly, an internal service, a forger that appends to the history, and a
// fleet over it whose clock runs offset ahead of the machine's.
type fleetFixture struct {
	hosts    []*fleetPropHost
	odd      *fleetPropHost // configured, answers what no wire does
	internal *fleetPropHost // an address only forged registrations name
	forger   journal.Store
	fleet    *httptest.Server
	offset   atomic.Int64 // nanoseconds
}

// A fleetPropHost is a server of the fixture, recording the requests it receives.
type fleetPropHost struct {
	name string
	addr string
	reg  *registry.Registry // nil but for the hosts that run jobs
	mu   sync.Mutex
	got  []fleetForwarded
}

func (h *fleetPropHost) note(r *http.Request) {
	h.mu.Lock()
	h.got = append(h.got, fleetForwarded{session: r.Header.Get("Jobgen-Fleet-Session"), path: r.URL.Path})
	h.mu.Unlock()
}

// newFleetPropServer starts a server that notes each request it receives
// and answers it with serve.
func newFleetPropServer(t *testing.T, name string, serve http.HandlerFunc) *fleetPropHost {
	h := &fleetPropHost{name: name}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.note(r)
		serve(w, r)
	}))
	t.Cleanup(srv.Close)
	h.addr = srv.URL
	return h
}

// oddAnswer is what the odd host answers: for a follow or input a
// redirect to the internal service (in a wire media type, so only the
// redirect is wrong), for a raw record HTML, for a kill JSON with a cookie
// and a Refresh to the internal service.
func oddAnswer(internal string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/follow"):
			w.Header().Set("Content-Type", "text/event-stream")
			http.Redirect(w, r, internal+"/admin", http.StatusFound)
		case strings.HasSuffix(r.URL.Path, "/input"):
			w.Header().Set("Content-Type", "application/json")
			http.Redirect(w, r, internal+"/admin", http.StatusTemporaryRedirect)
		case strings.HasSuffix(r.URL.Path, "/raw"):
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<script>alert(1)</script>")
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "odd=1")
			w.Header().Set("Refresh", "0; url="+internal)
			fmt.Fprint(w, `{}`)
		}
	}
}

// A fleetForwarded is one request a host received: the session the fleet
// signed it for, and its path.
type fleetForwarded struct {
	session string
	path    string
}

func (h *fleetPropHost) received() []fleetForwarded {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]fleetForwarded(nil), h.got...)
}

func newFleetFixture(t *testing.T, dsn, schema string) *fleetFixture {
	ctx := context.Background()
	fx := &fleetFixture{}
	fx.internal = newFleetPropServer(t, "internal", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal") })
	fx.odd = newFleetPropServer(t, "host-odd", oddAnswer(fx.internal.addr))
	peers := map[jobs.HostID]string{"host-odd": fx.odd.addr}
	for _, name := range []string{"host-a", "host-b", "host-c"} {
		store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(nil)
		h := &fleetPropHost{name: name, addr: "http://" + srv.Listener.Addr().String()}
		host := jobs.JobHost{Name: jobs.HostID(name), Incarnation: jobs.NewIncarnationID(), Address: h.addr}
		peers[host.Name] = h.addr
		h.reg = registry.New(registry.WithRecorder(jobhistory.NewHostRecorder(store, host)))
		handler, err := jobhttp.New(h.reg, jobhttp.TrustFleet([]jobhttp.FleetKey{fleetPropKey}, nil))
		if err != nil {
			t.Fatal(err)
		}
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.note(r)
			handler.ServeHTTP(w, r)
		})
		srv.Start()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			handler.Close(ctx)
			srv.Close()
			h.reg.Close(ctx)
			store.Close(ctx)
		})
		fx.hosts = append(fx.hosts, h)
	}
	forger, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { forger.Close(context.Background()) })
	fx.forger = forger
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema), pgstore.WithPollInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	f, err := jobhttp.NewFleet(jobhttp.FleetOptions{
		History: store, Key: fleetPropKey, Lease: fleetLease, Peers: peers,
		Session: func(r *http.Request) (jobs.SessionID, error) {
			return jobs.SessionID(r.Header.Get("X-Prop-Session")), nil
		},
		Now: func() time.Time { return time.Now().Add(time.Duration(fx.offset.Load())) },
	})
	if err != nil {
		t.Fatal(err)
	}
	fx.fleet = httptest.NewServer(f)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f.Close(ctx)
		fx.fleet.Close()
		store.Close(ctx)
	})
	return fx
}

// A fleetMachine is one check: its sessions' jobs and whether the leases ended.
type fleetMachine struct {
	fx       *fleetFixture
	rt       *rapid.T
	sessions []jobs.SessionID
	jobs     []*fleetPropJob
	expired  bool
}

// A fleetPropJob is a job of a check: one a host runs, or one forged,
// whose registration names hostName (and whose host, the server at the
// address the fleet is configured with for that name, nil when it has
// none, does not know it).
type fleetPropJob struct {
	id       jobs.JobID
	owner    jobs.SessionID
	host     *fleetPropHost
	hostName jobs.HostID
	forged   bool
	killed   bool
}

func (m *fleetMachine) start(rt *rapid.T) {
	if len(m.jobs) >= 6 {
		rt.Skip("enough jobs")
	}
	h := m.fx.hosts[rapid.IntRange(0, len(m.fx.hosts)-1).Draw(rt, "host")]
	owner := rapid.SampledFrom(m.sessions).Draw(rt, "owner")
	snap, err := h.reg.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "prop", Label: "fleet", Owner: owner},
		Run: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			done := make(chan jobs.JobOutcome, 1)
			job.Append("out\n", jobs.AppendOptions{})
			return jobs.Hooks{
				Cancel: func(reason string) error {
					done <- jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: reason}
					return nil
				},
				Done: func() (jobs.JobOutcome, error) { return <-done, nil },
			}, nil
		},
	})
	if err != nil {
		rt.Fatal(err)
	}
	m.shown(&fleetPropJob{id: snap.ID, owner: owner, host: h, hostName: jobs.HostID(h.name)})
}

// forge appends a registration of a job nobody runs to the history, as
// anyone who may append to it can: naming a configured host, the odd host
// or one the fleet has no address for, and the address of a host or of
// the internal service.
func (m *fleetMachine) forge(rt *rapid.T) {
	if len(m.jobs) >= 6 {
		rt.Skip("enough jobs")
	}
	byName := map[jobs.HostID]*fleetPropHost{"host-odd": m.fx.odd, "host-x": nil}
	names := []jobs.HostID{"host-odd", "host-x"}
	addrs := []string{m.fx.internal.addr, m.fx.odd.addr}
	for _, h := range m.fx.hosts {
		byName[jobs.HostID(h.name)] = h
		names, addrs = append(names, jobs.HostID(h.name)), append(addrs, h.addr)
	}
	name := rapid.SampledFrom(names).Draw(rt, "forged host")
	f := jobs.JobRegistered{
		JobID: jobs.NewJobID(), At: time.Now().UnixMilli(), Owner: rapid.SampledFrom(m.sessions).Draw(rt, "owner"),
		Kind: "forged", Label: "forged", Ordinal: 1, Record: true,
		Host: jobs.JobHost{Name: name, Incarnation: jobs.NewIncarnationID(), Address: rapid.SampledFrom(addrs).Draw(rt, "forged address")},
	}
	payload, err := jobs.EncodeFact(f)
	if err != nil {
		rt.Fatal(err)
	}
	if _, err := m.fx.forger.Append(context.Background(), jobhistory.StreamOf(f), journal.Entry{Payload: payload}); err != nil {
		rt.Fatal(err)
	}
	m.shown(&fleetPropJob{id: f.JobID, owner: f.Owner, host: byName[name], hostName: name, forged: true})
}

// shown adds j to the check once the fleet serves it, when its tail has
// delivered the registration.
func (m *fleetMachine) shown(j *fleetPropJob) {
	m.jobs = append(m.jobs, j)
	deadline := time.Now().Add(10 * time.Second)
	for m.do("GET", j.id.String(), "", j.owner).StatusCode != http.StatusOK {
		if time.Now().After(deadline) {
			m.rt.Fatalf("the fleet never showed %s", j.id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expire moves the fleet's clock past every lease: rarely, and only once a
// few jobs have been asked about alive, since afterwards nothing is
// forwarded.
func (m *fleetMachine) expire(rt *rapid.T) {
	if len(m.jobs) < 3 || rapid.IntRange(0, 2).Draw(rt, "expire now") > 0 {
		rt.Skip("not yet")
	}
	m.fx.offset.Store(int64(2 * fleetLease))
	m.expired = true
}

// do sends a request to the fleet about job id (route "" is its snapshot)
// as session, and returns its response once its header arrived.
func (m *fleetMachine) do(method, id, route string, session jobs.SessionID) *http.Response {
	path := "/api/jobs/" + id
	if route != "" {
		path += "/" + route
	}
	body := strings.NewReader(map[string]string{"kill": `{"reason":"prop"}`, "input": `{"text":"ls\n"}`}[route])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, m.fx.fleet.URL+path, body)
	req.Header.Set("X-Prop-Session", string(session))
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := noRedirects.Do(req)
	if err != nil {
		m.rt.Fatalf("%s %s: %v", method, path, err)
	}
	res.Body.Close() // a follow's stream is not read: its header is the answer
	if ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); !wireMediaTypes[ct] || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
		res.Header.Get("Location") != "" || res.Header.Get("Refresh") != "" || res.Header.Get("Set-Cookie") != "" {
		m.rt.Fatalf("%s %s: the fleet answered %s with %v; want a wire media type, nosniff, no Location, Refresh or cookie", method, path, res.Status, res.Header)
	}
	return res
}

// noRedirects is a client that hands back a redirect rather than follow it.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// wireMediaTypes are the media types of the wire's answers.
var wireMediaTypes = map[string]bool{"application/json": true, "text/event-stream": true, "text/plain": true}

// request asks the fleet about a job of the check (an unknown one one time
// in five), as its owner three times in four.
func (m *fleetMachine) request(rt *rapid.T) {
	caller := rapid.SampledFrom(m.sessions).Draw(rt, "caller")
	route := rapid.SampledFrom([]string{"follow", "raw", "kill", "input", ""}).Draw(rt, "route")
	var j *fleetPropJob
	id := jobs.NewJobID().String()
	if len(m.jobs) > 0 && rapid.IntRange(0, 4).Draw(rt, "unknown") > 0 {
		j = m.jobs[rapid.IntRange(0, len(m.jobs)-1).Draw(rt, "job")]
		id = j.id.String()
		if rapid.IntRange(0, 3).Draw(rt, "as its owner") > 0 {
			caller = j.owner
		}
	}
	method := "GET"
	if route == "kill" || route == "input" {
		method = "POST"
	}
	before := m.reached(id)
	res := m.do(method, id, route, caller)
	reached := m.reached(id) - before
	switch {
	case j == nil || j.owner != caller:
		if res.StatusCode != http.StatusNotFound || reached != 0 {
			rt.Fatalf("%s %q of %s's job by %s: %s, %d requests reached a host; want 404 and none", method, route, ownerOf(j), caller, res.Status, reached)
		}
	case route == "":
		if res.StatusCode != http.StatusOK || reached != 0 {
			rt.Fatalf("snapshot of the caller's job: %s, %d host requests; want 200 served by the fleet", res.Status, reached)
		}
	case m.expired && !j.killed:
		if res.StatusCode != http.StatusServiceUnavailable || reached != 0 {
			rt.Fatalf("%s %s of a job whose host's lease ended: %s, %d requests reached a host; want 503 and none", method, route, res.Status, reached)
		}
	case j.host == nil:
		if res.StatusCode != http.StatusConflict || reached != 0 {
			rt.Fatalf("%s %s of a job on %s, a host the fleet has no address for: %s, %d requests reached a host; want 409 and none", method, route, j.hostName, res.Status, reached)
		}
	case !m.expired && !j.killed:
		want := http.StatusOK
		switch {
		case j.host == m.fx.odd && route != "kill":
			want = http.StatusBadGateway // a redirect or HTML: not relayed
		case j.forged && j.host != m.fx.odd:
			want = http.StatusNotFound // the host knows no such job
		case route == "input":
			want = http.StatusConflict // the host's answer: the job has no terminal
		}
		if res.StatusCode != want || reached != 1 {
			rt.Fatalf("%s %s of the caller's live job on %s: %s, %d host requests; want %d and one", method, route, j.hostName, res.Status, reached, want)
		}
		if got := j.host.received(); got[len(got)-1].session != string(caller) {
			rt.Fatalf("forwarded under session %q, want %q", got[len(got)-1].session, caller)
		}
		if route == "kill" && !j.forged {
			j.killed = true
		}
	}
	m.checkHosts(rt)
}

func ownerOf(j *fleetPropJob) string {
	if j == nil {
		return "no one"
	}
	return string(j.owner)
}

// servers are every server of the fixture a request could reach.
func (m *fleetMachine) servers() []*fleetPropHost {
	return append([]*fleetPropHost{m.fx.odd, m.fx.internal}, m.fx.hosts...)
}

// reached counts the requests about job id that the servers received.
func (m *fleetMachine) reached(id string) int {
	n := 0
	for _, h := range m.servers() {
		for _, f := range h.received() {
			if strings.Contains(f.path, id) {
				n++
			}
		}
	}
	return n
}

// checkHosts checks that the internal service received nothing, and that
// every request a server received about one of this check's jobs named the
// job's owner and reached the server the fleet is configured with for the
// job's host name.
func (m *fleetMachine) checkHosts(rt *rapid.T) {
	if got := m.fx.internal.received(); len(got) > 0 {
		rt.Fatalf("the internal service received %+v through the fleet", got)
	}
	for _, h := range m.servers() {
		for _, f := range h.received() {
			for _, j := range m.jobs {
				if strings.Contains(f.path, j.id.String()) && (f.session != string(j.owner) || h != j.host) {
					rt.Fatalf("%s received %s for session %q; the job is %s's on %s", h.name, f.path, f.session, j.owner, j.hostName)
				}
			}
		}
	}
}
