package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/registry"
	"pgregory.net/rapid"
)

var testFleetKey = jobhttp.FleetKey{ID: "test-fleet", Secret: []byte("0123456789abcdef0123456789abcdef")}

// fleetTokens are the bearer tokens each host of a test fleet takes from
// its direct callers.
var fleetTokens = map[string]jobs.SessionID{"alice-token": "alice", "bob-token": "bob"}

// A mcpHost is one host of a test fleet on a shared PostgreSQL history: a
// registry recording as its host, the tools over it reading the history,
// and an MCP handler at /mcp that takes its callers' tokens and the
// fleet's signature, counting the requests it hears. fleet, when set, is
// the host's view of the fleet, its handler's Forwarder.
type mcpHost struct {
	*runtime
	srv      *httptest.Server
	h        *mcpserver.Handler
	requests atomic.Int64
	fleet    *jobhttp.Fleet
}

func openHistory(t *testing.T, schema string) *pgstore.Store {
	t.Helper()
	store, err := pgstore.Open(context.Background(), pgtest.DSN(t), pgstore.WithSchema(schema), pgstore.WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	return store
}

// newMCPHost starts host name; peers, given the host's own address, makes
// it forward through a fleet of its own.
func newMCPHost(t *testing.T, schema, name string, peers func(self string) map[jobs.HostID]string) *mcpHost {
	t.Helper()
	store := openHistory(t, schema)
	mh := &mcpHost{}
	mux := http.NewServeMux()
	mh.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mh.requests.Add(1)
		mux.ServeHTTP(w, r)
	}))
	host := jobs.JobHost{Name: jobs.HostID(name), Incarnation: jobs.NewIncarnationID(), Address: "http://" + mh.srv.Listener.Addr().String()}
	mh.runtime = newRuntimeWith(t, []registry.Option{registry.WithRecorder(jobhistory.NewHostRecorder(store, host))}, agenttools.WithHistory(store))
	var opts []mcpserver.HandlerOption
	if peers != nil {
		f, err := jobhttp.NewFleet(openHistory(t, schema), bearer(fleetTokens), testFleetKey, jobhttp.WithPeers(peers(host.Address)), jobhttp.WithLease(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close(context.Background()) })
		mh.fleet, opts = f, append(opts, mcpserver.WithFleet(f))
		mux.Handle("/api/", f) // the fleet's roster, for the test to wait on
	}
	h, err := mcpserver.NewHandler(jobhttp.TrustFleet([]jobhttp.FleetKey{testFleetKey}, bearer(fleetTokens)),
		func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return mh.tools.For(s), nil },
		opts...)
	if err != nil {
		t.Fatal(err)
	}
	mh.h = h
	mux.Handle("/mcp", h)
	mh.srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Close(ctx)
		mh.srv.Close()
	})
	return mh
}

func (mh *mcpHost) wire(t *testing.T, token, version string) *wire {
	return &wire{t: t, url: mh.srv.URL + "/mcp", token: token, version: version}
}

// placed waits until the host's fleet view holds the job id of alice.
func (mh *mcpHost) placed(t *testing.T, id string) {
	t.Helper()
	if err := mh.placedFor("alice-token", id); err != nil {
		t.Fatal(err)
	}
}

// placedFor waits until the host's fleet view holds the job id of token's
// session.
func (mh *mcpHost) placedFor(token, id string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, mh.srv.URL+"/api/jobs/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the fleet never placed job %s: %d", id, resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func jobIDOf(t *testing.T, taskID string) jobs.JobID {
	t.Helper()
	var id jobs.JobID
	if err := json.Unmarshal([]byte(`"`+taskID+`"`), &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// In a fleet on one history, a task created on host A is read, awaited
// and cancelled through host B, in both protocol forms: B forwards each
// request naming it to A, signed for the caller's session, and A answers
// from its registry (the output, the wait, the kill), where B's own facts
// would have called the running job lost; the job tools' calls naming it
// go there too. Bob, through B, learns nothing of alice's tasks, and
// nothing of his reaches A.
func TestFleetForwardsTasksToTheirHost(t *testing.T) {
	schema := pgtest.Schema(t)
	a := newMCPHost(t, schema, "a", nil)
	b := newMCPHost(t, schema, "b", func(self string) map[jobs.HostID]string {
		return map[jobs.HostID]string{"a": a.srv.URL, "b": self}
	})

	start := func(label string) string {
		created := decodeTask(t, a.wire(t, "alice-token", "2026-07-28").ok("tools/call", map[string]any{"name": "start_job", "arguments": map[string]any{"label": label}}))
		if created.ResultType != "task" || created.Status != "working" {
			t.Fatalf("start_job on A = %+v, want a working task", created)
		}
		b.placed(t, created.TaskID)
		return created.TaskID
	}
	awaited, cancelled := start("build"), start("server")
	job := a.job(jobIDOf(t, awaited))
	job.write("compiling\n")
	job.UpdateDetail("1 of 2")

	alice, aliceOld := b.wire(t, "alice-token", "2026-07-28"), b.wire(t, "alice-token", "2025-11-25")
	for _, w := range []*wire{alice, aliceOld} {
		before := a.requests.Load()
		if got := decodeTask(t, w.ok("tasks/get", map[string]any{"taskId": awaited})); got.Status != "working" || got.StatusMessage != "1 of 2" {
			t.Errorf("%s tasks/get through B = %+v, want A's working task with its progress line", w.version, got)
		}
		if a.requests.Load() == before {
			t.Errorf("%s tasks/get through B never reached A", w.version)
		}
	}

	bob := b.wire(t, "bob-token", "2026-07-28")
	bob.client = &http.Client{Timeout: 5 * time.Second} // a tasks/result of alice's running task would wait
	before := a.requests.Load()
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel", "tasks/update"} {
		_, foreign := bob.call(method, map[string]any{"taskId": awaited})
		nobody := jobs.NewJobID().String()
		_, unknown := bob.call(method, map[string]any{"taskId": nobody})
		if foreign == nil || unknown == nil || foreign.Code != -32602 || strings.ReplaceAll(unknown.Message, nobody, awaited) != foreign.Message {
			t.Errorf("bob's %s of alice's task through B: %+v; of an unknown one: %+v; want the same unknown task", method, foreign, unknown)
		}
	}
	if n := a.requests.Load() - before; n != 0 {
		t.Errorf("bob's requests about alice's task reached A %d times, want none", n)
	}

	// A header that names another task than the body is refused, not
	// routed by either.
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"` + awaited + `"}}`
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/mcp", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Authorization": "Bearer alice-token", "Mcp-Protocol-Version": "2025-11-25", "Mcp-Name": cancelled} {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("tasks/get whose Mcp-Name is another task: %v %v, want 400", resp.Status, err)
	} else {
		resp.Body.Close()
	}

	// The job tools' calls go where the job runs too: job_output reads A's
	// output, job_wait as a task is A's working task, and bob's job_kill of
	// alice's job is unknown and never reaches A.
	out := alice.ok("tools/call", map[string]any{"name": "job_output", "arguments": map[string]any{"jobId": awaited}})
	if !strings.Contains(string(out), "compiling") {
		t.Errorf("job_output through B = %s, want A's output", out)
	}
	if got := decodeTask(t, alice.ok("tools/call", map[string]any{"name": "job_wait", "arguments": map[string]any{"jobId": cancelled}})); got.ResultType != "task" || got.Status != "working" {
		t.Errorf("job_wait as a task through B = %+v, want A's working task", got)
	}
	before = a.requests.Load()
	if res := bob.ok("tools/call", map[string]any{"name": "job_kill", "arguments": map[string]any{"jobId": cancelled}}); !strings.Contains(string(res), "unknownJob") || a.requests.Load() != before {
		t.Errorf("bob's job_kill of alice's job through B = %s (reached A: %v), want unknownJob, not forwarded", res, a.requests.Load() != before)
	}

	// A task asked about on B the moment A answered its creation is found,
	// whether or not B's fleet has read its registration yet.
	fresh := decodeTask(t, a.wire(t, "alice-token", "2026-07-28").ok("tools/call", map[string]any{"name": "start_job", "arguments": map[string]any{"label": "fresh"}}))
	if got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": fresh.TaskID})); got.Status != "working" {
		t.Errorf("tasks/get through B at once after the creation on A = %+v, want working", got)
	}

	done := make(chan json.RawMessage)
	go func() { done <- aliceOld.ok("tasks/result", map[string]any{"taskId": awaited}) }()
	time.Sleep(50 * time.Millisecond) // tasks/result waits, on A
	job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "built"}, nil)
	var res struct {
		StructuredContent struct {
			JobID    string
			Finished bool
			Notice   string
		}
		Content []struct{ Text string }
	}
	_ = json.Unmarshal(<-done, &res)
	if !res.StructuredContent.Finished || res.StructuredContent.JobID != awaited || !strings.Contains(res.StructuredContent.Notice, "completed: built") {
		t.Errorf("tasks/result through B = %+v, want job_wait's result at the settlement", res.StructuredContent)
	}
	if len(res.Content) != 2 || res.Content[1].Text != "compiling\n" {
		t.Errorf("tasks/result content through B = %+v, want the result and A's output", res.Content)
	}
	if got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": awaited})); got.Status != "completed" || got.Result == nil || len(got.Result.Content) != 2 {
		t.Errorf("tasks/get through B after the settlement = %+v, want completed with A's output inlined", got)
	}

	alice.ok("tasks/cancel", map[string]any{"taskId": cancelled})
	snap, err := a.reg.Get("alice", jobIDOf(t, cancelled))
	if err != nil || snap.Status != jobs.JobStatusKilled {
		t.Errorf("A's job after tasks/cancel through B: %+v %v, want killed", snap, err)
	}
	if got := decodeTask(t, aliceOld.ok("tasks/get", map[string]any{"taskId": cancelled})); got.Status != "cancelled" {
		t.Errorf("tasks/get through B after tasks/cancel = %+v, want cancelled", got)
	}
	t.Logf("a task read through host B:\n%s", strings.Join(aliceOld.log, "\n"))
}

// TestFleetTaskFence is the fence of task requests through a fleet, as a
// property: alice and bob each hold tasks on host A, and random requests
// read or cancel them, and each other's, through host B, in both protocol
// forms. The model says: the owner's request reaches A and answers the
// job's state (working, or cancelled once cancelled); anyone else's is the
// error an id nobody issued gets, word for word, never reaches A, and
// stops nothing. The tasks are started once, and the model carries over
// from check to check, since each step is a round trip through two hosts.
func TestFleetTaskFence(t *testing.T) {
	schema := pgtest.Schema(t)
	a := newMCPHost(t, schema, "a", nil)
	b := newMCPHost(t, schema, "b", func(self string) map[jobs.HostID]string {
		return map[jobs.HostID]string{"a": a.srv.URL, "b": self}
	})
	tokens := map[jobs.SessionID]string{"alice": "alice-token", "bob": "bob-token"}
	owner := map[string]jobs.SessionID{}
	cancelled := map[string]bool{}
	var tasks []string
	for _, s := range []jobs.SessionID{"alice", "bob"} {
		for range 3 {
			created := decodeTask(t, a.wire(t, tokens[s], "2026-07-28").ok("tools/call", map[string]any{"name": "start_job", "arguments": map[string]any{"label": "p"}}))
			tasks = append(tasks, created.TaskID)
			owner[created.TaskID] = s
		}
	}
	for _, id := range tasks {
		if err := b.placedFor(tokens[owner[id]], id); err != nil {
			t.Fatal(err)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		for range rapid.IntRange(1, 6).Draw(rt, "steps") {
			s := rapid.SampledFrom([]jobs.SessionID{"alice", "bob"}).Draw(rt, "session")
			version := rapid.SampledFrom([]string{"2025-11-25", "2026-07-28"}).Draw(rt, "version")
			id := rapid.SampledFrom(tasks).Draw(rt, "task")
			method := rapid.SampledFrom([]string{"tasks/get", "tasks/get", "tasks/cancel"}).Draw(rt, "method")
			w := b.wire(t, tokens[s], version)
			w.client = &http.Client{Timeout: 5 * time.Second} // a forwarded wait would hang
			before := a.requests.Load()
			res, e := w.call(method, map[string]any{"taskId": id})
			reached := a.requests.Load() != before
			if owner[id] != s {
				nobody := jobs.NewJobID().String()
				_, want := w.call(method, map[string]any{"taskId": nobody})
				if e == nil || want == nil || reached || strings.ReplaceAll(want.Message, nobody, id) != e.Message || e.Code != want.Code {
					rt.Fatalf("%s by %s of %s's task through B: %s %+v (reached A: %v), want the answer to an id nobody issued, %+v", method, s, owner[id], res, e, reached, want)
				}
				continue
			}
			if !reached {
				rt.Fatalf("%s by the owner %s through B never reached A", method, s)
			}
			switch {
			case method == "tasks/cancel" && cancelled[id] && version < "2026-07-28":
				if e == nil {
					rt.Fatalf("tasks/cancel of a cancelled task: %s, want an error (it has finished)", res)
				}
			case method == "tasks/cancel":
				if e != nil {
					rt.Fatalf("tasks/cancel by the owner: %+v", e)
				}
				cancelled[id] = true
			default:
				want := "working"
				if cancelled[id] {
					want = "cancelled"
				}
				if got := decodeTask(t, res); e != nil || got.TaskID != id || got.Status != want {
					rt.Fatalf("tasks/get by the owner through B: %s %+v, want %s", res, e, want)
				}
			}
		}
		for _, id := range tasks {
			snap, err := a.reg.Get(owner[id], jobIDOf(t, id))
			if err != nil || (snap.Status == jobs.JobStatusKilled) != cancelled[id] {
				rt.Fatalf("A's job %s of %s is %s (%v), the model says cancelled=%v", id, owner[id], snap.Status, err, cancelled[id])
			}
		}
	})
}
