package jobhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/registry"
)

var testFleetKey = jobhttp.FleetKey{ID: "test-fleet", Secret: []byte("0123456789abcdef0123456789abcdef")}

// A fleetHost is one host of a test fleet: a registry recording into the
// shared history as host, served by a Handler that trusts the fleet's key
// alone, counting the requests it is sent.
type fleetHost struct {
	*server
	host     jobs.JobHost
	requests atomic.Int64
	beat     context.CancelFunc
}

func newFleetHost(t testing.TB, schema, name string, lease time.Duration) *fleetHost {
	t.Helper()
	ctx := context.Background()
	store, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	fh := &fleetHost{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fh.requests.Add(1)
		fh.h.ServeHTTP(w, r)
	}))
	fh.host = jobs.JobHost{Name: jobs.HostID(name), Incarnation: jobs.NewIncarnationID(), Address: "http://" + srv.Listener.Addr().String()}
	reg := registry.New(registry.WithRecorder(jobhistory.NewHostRecorder(store, fh.host)))
	h, err := jobhttp.New(reg, jobhttp.TrustFleet([]jobhttp.FleetKey{testFleetKey}, nil))
	if err != nil {
		t.Fatal(err)
	}
	fh.server = &server{t: t, reg: reg, h: h, srv: srv}
	srv.Start()
	beatCtx, beat := context.WithCancel(ctx)
	fh.beat = beat
	done := make(chan struct{})
	go func() {
		defer close(done)
		jobhistory.Heartbeat(beatCtx, store, fh.host, jobhistory.HeartbeatOptions{Every: lease / 4, Lease: lease})
	}()
	t.Cleanup(func() {
		beat()
		<-done
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
		reg.Close(ctx)
		store.Close(ctx)
	})
	return fh
}

// A testFleet is a Fleet over the history of hosts, served on a loopback
// listener.
type testFleet struct {
	*server
	fleet *jobhttp.Fleet
}

// The fleet forwards to hosts, each at the address it serves on.
func newTestFleet(t testing.TB, schema string, lease time.Duration, hosts ...*fleetHost) *testFleet {
	t.Helper()
	return newTestFleetFor(t, schema, lease, testSession, peersOf(hosts...))
}

// newTestFleetWithPeers is newTestFleet forwarding to the addresses peers
// gives each host name.
func newTestFleetWithPeers(t testing.TB, schema string, lease time.Duration, peers map[jobs.HostID]string) *testFleet {
	t.Helper()
	return newTestFleetFor(t, schema, lease, testSession, peers)
}

// peersOf is the address each of hosts serves on, by its name.
func peersOf(hosts ...*fleetHost) map[jobs.HostID]string {
	peers := map[jobs.HostID]string{}
	for _, h := range hosts {
		peers[h.host.Name] = h.host.Address
	}
	return peers
}

// newTestFleetFor is newTestFleet whose callers' session is what session
// says, forwarding to peers.
func newTestFleetFor(t testing.TB, schema string, lease time.Duration, session func(*http.Request) (jobs.SessionID, error), peers map[jobs.HostID]string) *testFleet {
	t.Helper()
	store, err := pgstore.Open(context.Background(), pgtest.DSN(t), pgstore.WithSchema(schema), pgstore.WithPollInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	f, err := jobhttp.NewFleet(jobhttp.FleetOptions{History: store, Session: session, Key: testFleetKey, Lease: lease, Peers: peers})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f.Close(ctx)
		srv.Close()
		store.Close(ctx)
	})
	return &testFleet{server: &server{t: t, srv: srv}, fleet: f}
}

// A fleetJob is one entry of a fleet's roster: the job and its placement.
type fleetJob struct {
	jobs.JobSnapshot
	wire.FleetPlacement
}

func decodeFleetJobs(t testing.TB, body []byte) []fleetJob {
	t.Helper()
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("roster %s: %v", body, err)
	}
	out := make([]fleetJob, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i].JobSnapshot); err != nil {
			t.Fatalf("roster entry %s: %v", r, err)
		}
		if err := json.Unmarshal(r, &out[i].FleetPlacement); err != nil {
			t.Fatalf("roster entry's placement %s: %v", r, err)
		}
	}
	return out
}

// roster reads session's roster from the fleet.
func (f *testFleet) roster(session string) []fleetJob {
	f.t.Helper()
	res := f.request("GET", "/api/jobs", session, nil, nil)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		f.t.Fatalf("roster of %s: %s: %s", session, res.Status, body)
	}
	return decodeFleetJobs(f.t, body)
}

// waitRoster waits until session's roster satisfies ok, and returns it.
func (f *testFleet) waitRoster(session string, what string, ok func([]fleetJob) bool) []fleetJob {
	f.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := f.roster(session)
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the roster of %s never showed %s: %+v", session, what, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func find(r []fleetJob, id jobs.JobID) (fleetJob, bool) {
	for _, j := range r {
		if j.ID == id {
			return j, true
		}
	}
	return fleetJob{}, false
}

// The fleet shows each session its jobs on every host, with their host,
// live as they register and settle; forwards a follow to the owning host,
// where the host's own fence holds; and never forwards one session's
// request about another's job.
func TestFleetServesEveryHostsJobsFencedBySession(t *testing.T) {
	schema := pgtest.Schema(t)
	a, b := newFleetHost(t, schema, "host-a", 2*time.Second), newFleetHost(t, schema, "host-b", 2*time.Second)
	fleet := newTestFleet(t, schema, 2*time.Second, a, b)

	onA, pa := a.startRecording("s1", "build on a", 0)
	onB, pb := b.startRecording("s1", "test on b", 0)
	other, _ := b.startRecording("s2", "someone else's", 0)
	pa.job.Append("hello from a\n", jobs.AppendOptions{})
	r := fleet.waitRoster("s1", "both hosts' jobs", func(r []fleetJob) bool { return len(r) == 2 })
	if j, _ := find(r, onA.ID); j.Host.Name != "host-a" || j.Host.Incarnation != a.host.Incarnation || j.Host.Address != "" || j.Status != jobs.JobStatusRunning || j.Lost {
		t.Fatalf("s1's job on host-a in the roster: %+v; want running on host-a's run, no address", j)
	}
	if j, _ := find(r, onB.ID); j.Host.Name != "host-b" || j.Name != "test-1" {
		t.Fatalf("s1's job on host-b in the roster: %+v", j)
	}
	if r := fleet.waitRoster("s2", "its job", func(r []fleetJob) bool { return len(r) > 0 }); len(r) != 1 || r[0].ID != other.ID {
		t.Fatalf("s2's roster: %+v; want its one job", r)
	}

	// A follow through the fleet is the host's follow stream.
	st := fleet.stream("/api/jobs/"+onA.ID.String()+"/follow", "s1", nil)
	if ev, _ := st.nextFrame(); ev.name != "opened" {
		t.Fatalf("first frame through the fleet: %q", ev.name)
	}
	if ev, frame := st.nextFrame(); ev.name != "output" || frame.(jobs.OutputFrame).Chunks[0].Text != "hello from a\n" {
		t.Fatalf("output through the fleet: %q %+v", ev.name, frame)
	}
	st.res.Body.Close()

	// s2 asking for s1's job: the same 404 as for no job, and no request reaches the host.
	before := a.requests.Load()
	for _, path := range []string{"/follow", "/raw", ""} {
		res := fleet.request("GET", "/api/jobs/"+onA.ID.String()+path, "s2", nil, nil)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("s2 GET s1's job%s through the fleet: %s, want 404", path, res.Status)
		}
	}
	res := fleet.request("POST", "/api/jobs/"+onA.ID.String()+"/kill", "s2", strings.NewReader(`{}`), map[string]string{"Content-Type": "application/json"})
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || a.requests.Load() != before {
		t.Fatalf("s2 killing s1's job through the fleet: %s, %d requests reached the host; want 404 and none", res.Status, a.requests.Load()-before)
	}
	// A request to the host that claims a session without the fleet's signature is refused.
	res = a.request("GET", "/api/jobs/"+onA.ID.String(), "", nil, map[string]string{"Jobgen-Fleet-Session": "s1", "Jobgen-Fleet-Key": testFleetKey.ID})
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a request to the host naming a session without a signature: %s, want 401", res.Status)
	}

	// A kill through the fleet reaches the host; the settlement reaches the roster.
	res = fleet.request("POST", "/api/jobs/"+onB.ID.String()+"/kill", "s1", strings.NewReader(`{"reason":"from the fleet"}`), map[string]string{"Content-Type": "application/json"})
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("s1 killing its job through the fleet: %s", res.Status)
	}
	fleet.waitRoster("s1", "the kill", func(r []fleetJob) bool { j, _ := find(r, onB.ID); return j.Status == jobs.JobStatusKilled })
	pb.finish(jobs.JobStatusCompleted, "")
}

// A host that stops beating leaves its unsettled jobs lost once its lease
// ends: the roster and history say so, and nothing is forwarded to it; a
// job that settled before stays settled.
func TestFleetShowsADeadHostsJobsLost(t *testing.T) {
	schema := pgtest.Schema(t)
	lease := 1500 * time.Millisecond
	a, b := newFleetHost(t, schema, "host-a", lease), newFleetHost(t, schema, "host-b", lease)
	fleet := newTestFleet(t, schema, lease, a, b)
	running, _ := b.startRecording("s1", "dies with b", 0)
	done, pd := b.startRecording("s1", "settles first", 0)
	alive, _ := a.startRecording("s1", "lives on a", 0)
	pd.finish(jobs.JobStatusCompleted, "ok")
	fleet.waitRoster("s1", "the jobs", func(r []fleetJob) bool {
		j, _ := find(r, done.ID)
		return len(r) == 3 && j.Status == jobs.JobStatusCompleted
	})
	if r := fleet.roster("s1"); func() bool { j, _ := find(r, running.ID); return j.Lost }() {
		t.Fatalf("a live host's job shown lost: %+v", r)
	}

	b.beat() // host-b stops beating: as a host SIGKILLed
	r := fleet.waitRoster("s1", "host-b's job lost", func(r []fleetJob) bool { j, _ := find(r, running.ID); return j.Lost })
	if j, _ := find(r, alive.ID); j.Lost || j.Status != jobs.JobStatusRunning {
		t.Fatalf("host-a's job after host-b died: %+v; want running, not lost", j)
	}
	if j, _ := find(r, done.ID); j.Lost || j.Status != jobs.JobStatusCompleted {
		t.Fatalf("host-b's settled job after it died: %+v; want completed, not lost", j)
	}
	res := fleet.request("GET", "/api/jobs/"+running.ID.String()+"/follow", "s1", nil, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "host-b is lost") {
		t.Fatalf("follow of a lost job: %s %s; want 503 saying its host is lost", res.Status, body)
	}
	res = fleet.request("GET", "/api/history", "s1", nil, nil)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	var ivs []struct {
		wire.Interval
		wire.FleetPlacement
	}
	if err := json.Unmarshal(body, &ivs); err != nil {
		t.Fatalf("history %s: %v", body, err)
	}
	lost := 0
	for _, iv := range ivs {
		if iv.JobID == running.ID && (iv.Complete || !iv.Lost || iv.Host.Name != "host-b") {
			t.Fatalf("the lost job's interval: %+v; want incomplete and lost on host-b", iv)
		}
		if iv.Lost {
			lost++
		}
	}
	if len(ivs) != 3 || lost != 1 {
		t.Fatalf("history: %d intervals, %d lost; want 3 and 1: %s", len(ivs), lost, body)
	}
	res = fleet.request("GET", "/api/fleet", "s1", nil, nil)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	var hosts []wire.FleetHost
	if err := json.Unmarshal(body, &hosts); err != nil || len(hosts) != 2 || hosts[0].Host.Name != "host-a" || hosts[0].Lost || !hosts[1].Lost {
		t.Fatalf("/api/fleet: %s (%v); want host-a alive and host-b lost", body, err)
	}
}

// The page the fleet serves is the console's, and the routes the console
// uses that the fleet does not serve answer 404.
func TestFleetServesTheConsolePage(t *testing.T) {
	fleet := newTestFleet(t, pgtest.Schema(t), time.Second)
	res := fleet.request("GET", "/", "", nil, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `<script type="module" src="app.mjs">`) {
		t.Fatalf("GET /: %s", res.Status)
	}
	res = fleet.request("GET", "/api/subagents", "s1", nil, nil)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /api/subagents on the fleet: %s, want 404", res.Status)
	}
	res = fleet.request("GET", "/api/jobs", "", nil, nil)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /api/jobs without a session: %s, want 401", res.Status)
	}
}
