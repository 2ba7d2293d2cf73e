package proptest

import (
	"context"
	"fmt"
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
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/registry"
)

// TestFleetFence is the property of the fleet's forwarding (issue 28 item
// 4, decisions 0129 and 0130), against the test server: three hosts record
// into one history and serve their jobs to the fleet alone; each check's two
// sessions start jobs on random hosts and ask the fleet for random jobs'
// follow, raw record, kill or snapshot, and at some point the fleet's clock
// passes every lease (the hosts beat no heartbeats, so each job's lease is
// the fleet's default from its registration). After every request:
//
//   - a request about another session's job, or an unknown one, is a 404
//     and reaches no host;
//   - a request about the caller's job whose lease has ended, and which
//     was not killed, is a 503 and reaches no host;
//   - a follow, raw or kill of the caller's live job reaches its host, and
//     only its host, under the caller's session;
//   - every request any host received named the session that owns the
//     job it is about.
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
			"request": m.request,
			"expire":  m.expire,
			"":        m.checkHosts,
		})
	})
}

// fleetLease is the fleet's lease of a run with no heartbeat.
const fleetLease = time.Hour

var fleetPropKey = jobhttp.FleetKey{ID: "prop", Secret: []byte("the-fleet-property-secret-0123456789")}

// A fleetFixture is three hosts on one history and a fleet over it whose
// clock runs offset ahead of the machine's.
type fleetFixture struct {
	hosts  []*fleetPropHost
	fleet  *httptest.Server
	offset atomic.Int64 // nanoseconds
}

// A fleetPropHost is a host of the fixture, recording the requests it receives.
type fleetPropHost struct {
	name string
	reg  *registry.Registry
	mu   sync.Mutex
	got  []fleetForwarded
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
	for _, name := range []string{"host-a", "host-b", "host-c"} {
		store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema))
		if err != nil {
			t.Fatal(err)
		}
		h := &fleetPropHost{name: name}
		srv := httptest.NewUnstartedServer(nil)
		host := jobs.JobHost{Name: jobs.HostID(name), Incarnation: jobs.NewIncarnationID(), Address: "http://" + srv.Listener.Addr().String()}
		h.reg = registry.New(registry.WithRecorder(jobhistory.NewHostRecorder(store, host)))
		handler, err := jobhttp.New(jobhttp.Options{Registry: h.reg, Session: jobhttp.TrustFleet([]jobhttp.FleetKey{fleetPropKey}, nil)})
		if err != nil {
			t.Fatal(err)
		}
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.mu.Lock()
			h.got = append(h.got, fleetForwarded{session: r.Header.Get("Jobgen-Fleet-Session"), path: r.URL.Path})
			h.mu.Unlock()
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
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema), pgstore.WithPollInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	f, err := jobhttp.NewFleet(jobhttp.FleetOptions{
		History: store, Key: fleetPropKey, Lease: fleetLease,
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

type fleetPropJob struct {
	id     jobs.JobID
	owner  jobs.SessionID
	host   *fleetPropHost
	killed bool
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
	j := &fleetPropJob{id: snap.ID, owner: owner, host: h}
	m.jobs = append(m.jobs, j)
	// the fleet serves it once its tail delivered the registration
	deadline := time.Now().Add(10 * time.Second)
	for m.do("GET", j.id.String(), "", owner).StatusCode != http.StatusOK {
		if time.Now().After(deadline) {
			rt.Fatalf("the fleet never showed %s", j.id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (m *fleetMachine) expire(rt *rapid.T) {
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
	var body *strings.Reader
	if method == "POST" {
		body = strings.NewReader(`{"reason":"prop"}`)
	} else {
		body = strings.NewReader("")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, m.fx.fleet.URL+path, body)
	req.Header.Set("X-Prop-Session", string(session))
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		m.rt.Fatalf("%s %s: %v", method, path, err)
	}
	res.Body.Close() // a follow's stream is not read: its header is the answer
	return res
}

func (m *fleetMachine) request(rt *rapid.T) {
	caller := rapid.SampledFrom(m.sessions).Draw(rt, "caller")
	route := rapid.SampledFrom([]string{"follow", "raw", "kill", ""}).Draw(rt, "route")
	var j *fleetPropJob
	id := jobs.NewJobID().String()
	if len(m.jobs) > 0 && rapid.IntRange(0, 4).Draw(rt, "unknown") > 0 {
		j = m.jobs[rapid.IntRange(0, len(m.jobs)-1).Draw(rt, "job")]
		id = j.id.String()
	}
	method := "GET"
	if route == "kill" {
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
	case !m.expired && !j.killed:
		if res.StatusCode != http.StatusOK || reached != 1 {
			rt.Fatalf("%s %s of the caller's live job: %s, %d host requests; want 200 and one", method, route, res.Status, reached)
		}
		if got := j.host.received(); got[len(got)-1].session != string(caller) {
			rt.Fatalf("forwarded under session %q, want %q", got[len(got)-1].session, caller)
		}
		if route == "kill" {
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

// reached counts the requests about job id that the hosts received.
func (m *fleetMachine) reached(id string) int {
	n := 0
	for _, h := range m.fx.hosts {
		for _, f := range h.received() {
			if strings.Contains(f.path, id) {
				n++
			}
		}
	}
	return n
}

// checkHosts checks that every request a host received about one of this
// check's jobs named the job's owner, and reached the job's own host.
func (m *fleetMachine) checkHosts(rt *rapid.T) {
	for _, h := range m.fx.hosts {
		for _, f := range h.received() {
			for _, j := range m.jobs {
				if strings.Contains(f.path, j.id.String()) && (f.session != string(j.owner) || h != j.host) {
					rt.Fatalf("%s received %s for session %q; the job is %s's on %s", h.name, f.path, f.session, j.owner, j.host.name)
				}
			}
		}
	}
}
