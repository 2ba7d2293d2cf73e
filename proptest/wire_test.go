package proptest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// TestWireMachine is the model-based property of jobhttp:
// random sequences of roster, job, follow (fresh, resumed by ?from= or
// Last-Event-ID, left open across appends and read later, closed), kill
// and history requests from three sessions under several Host names and
// origins, against a registry whose jobs the test appends to, finishes and
// kills. It runs inside a synctest bubble with the server on in-memory
// connections, so the registry's flush interval and the handler's
// keep-alives cost no real time, and an unread stream is a client that
// stopped reading: its frames back up and it falls behind the record.
// After every request the model checks:
//
//   - a request for a Host the handler does not serve is a 403 on every
//     route, and changes nothing;
//   - a session sees only its own jobs: the roster is exactly its jobs in
//     order, another session's job and an unknown one answer the same 404,
//     and its history holds the intervals of its jobs and no others;
//   - a follow opens at the offset asked for (the earliest retained one
//     when none is), and every output frame carries the model's bytes at
//     their offsets, contiguously from the follower's cursor: it never
//     repeats a byte, skips none that the record still holds (a resume in
//     the middle of a character starts at the next one), and says lossy
//     exactly when it skips evicted bytes; a drained follower of a live job
//     reaches the job's total, one of a settled job ends with its status;
//   - a kill is honoured only for a served Host, a JSON body and an origin
//     the browser calls this server's, from the job's own session; and so
//     is input, which only a live terminal job takes (409 for the others),
//     and which reaches its terminal exactly when it is answered 200;
//   - a request no route of spec/wire.yaml's table serves (a method its
//     path does not take, a path no route has) is a 405 with the path's
//     Allow, or a 404, and a wire.ErrorBody either way.
func TestWireMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		rapid.SyncTest(rt, func(rt *rapid.T) {
			m := newWireMachine(rt)
			defer m.close()
			rt.Repeat(m.actions())
		})
	})
}

var (
	wireSessions = []jobs.SessionID{"a", "b", "c"}
	// wireHosts are the Host headers requests use. Under the default hosts
	// the loopback names are served; under wireListedHosts, the listed ones.
	wireHosts       = []string{"localhost:8080", "127.0.0.1:8080", "[::1]:8080", "jobs.example", "jobs.example:443", "127.0.0.1:9999", "attacker.example:8080", "localhost.attacker.example"}
	wireListedHosts = []string{"jobs.example", "127.0.0.1:8080"}
	wireTexts       = []string{"a", "bc", "line\n", "é", "€x", "😀", "ok\n", "ĳĳĳ", "0123456789"}
)

// A wireMachine is a registry served by jobhttp, its model and its clients.
type wireMachine struct {
	rt     *rapid.T
	reg    *registry.Registry
	h      *jobhttp.Handler
	store  *subagenttest.MemStore
	srv    *http.Server
	ln     *pipeListener
	client *http.Client
	listed bool // WithHosts is wireListedHosts; else the default
	jobs   []*wireJob
	follow []*wireFollower
}

// A wireJob is the model of one job: its owner, its whole output, and
// whether it has settled.
type wireJob struct {
	id      jobs.JobID
	owner   jobs.SessionID
	record  bool
	keys    *wireKeys // a terminal job's terminal; nil for every other job
	face    jobs.RecordingJob
	result  chan jobs.JobOutcome
	once    sync.Once
	text    string
	ends    []int64 // where each append ended: where shared frames begin and end
	settled bool
	unknown bool // an id the registry never had, "owned" by a session for the draws
}

func (j *wireJob) finish(status jobs.JobStatus) {
	j.once.Do(func() { j.result <- jobs.JobOutcome{Status: status} })
}

// A wireFollower is one open follow stream and what it has been sent.
type wireFollower struct {
	job    *wireJob
	res    *http.Response
	sc     *bufio.Scanner
	cursor int64
	ended  bool
}

func newWireMachine(rt *rapid.T) *wireMachine {
	limits := registry.Limits{
		MaxPerOwner:          1 << 10,
		RetainBytes:          rapid.IntRange(8, 48).Draw(rt, "retain"),
		SettledRetainBytes:   rapid.IntRange(4, 24).Draw(rt, "settledRetain"),
		ObserveMaxFrameBytes: rapid.IntRange(4, 32).Draw(rt, "maxFrame"),
	}
	m := &wireMachine{rt: rt, store: subagenttest.NewMemStore(), ln: newPipeListener(), listed: rapid.Bool().Draw(rt, "listedHosts")}
	m.reg = registry.New(registry.WithLimits(limits),
		registry.WithRecorder(journal.NewRecorder(m.store, jobs.EncodeFact, jobhistory.StreamOf)))
	opts := []jobhttp.Option{
		jobhttp.WithHistory(jobhttp.StoreHistory(m.store)),
		jobhttp.WithMaxStreamsPerSession(1 << 10),
		jobhttp.WithWriteTimeout(24 * time.Hour), // a stream the test has not read yet is never dropped
	}
	if m.listed {
		opts = append(opts, jobhttp.WithHosts(wireListedHosts...))
	}
	h, err := jobhttp.New(m.reg, func(r *http.Request) (jobs.SessionID, error) {
		return jobs.SessionID(r.Header.Get("X-Session")), nil
	}, opts...)
	if err != nil {
		rt.Fatal(err)
	}
	m.h = h
	m.srv = &http.Server{Handler: h}
	go m.srv.Serve(m.ln)
	m.client = &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) { return m.ln.dial(), nil },
	}}
	return m
}

// close ends every stream, the server, the registry and the client, so the
// bubble's goroutines all end.
func (m *wireMachine) close() {
	for _, f := range m.follow {
		f.res.Body.Close()
	}
	ctx := context.Background()
	m.h.Close(ctx)
	m.srv.Close()
	for _, j := range m.jobs {
		j.finish(jobs.JobStatusCompleted)
	}
	m.reg.Close(ctx)
	m.client.Transport.(*http.Transport).CloseIdleConnections()
	synctest.Wait()
}

func (m *wireMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"start":       m.start,
		"append":      m.append,
		"finish":      m.finish,
		"roster":      m.roster,
		"get":         m.get,
		"openFollow":  m.openFollow,
		"drainFollow": m.drainFollow,
		"closeFollow": m.closeFollow,
		"kill":        m.kill,
		"input":       m.input,
		"history":     m.history,
		"stray":       m.stray,
	}
}

// served is the model of WithHosts: which Host headers are answered.
// The default serves the loopback names on any port; the list, a name on
// any port and a host:port on that port.
func (m *wireMachine) served(host string) bool {
	if m.listed {
		return host == "jobs.example" || host == "jobs.example:443" || host == "127.0.0.1:8080"
	}
	return host == "localhost:8080" || host == "127.0.0.1:8080" || host == "127.0.0.1:9999" || host == "[::1]:8080"
}

func (m *wireMachine) start(rt *rapid.T) {
	j := &wireJob{
		owner:  rapid.SampledFrom(wireSessions[:2]).Draw(rt, "owner"),
		record: rapid.IntRange(0, 4).Draw(rt, "kind") > 0,
		result: make(chan jobs.JobOutcome, 1),
	}
	hooks := jobs.Hooks{
		Cancel: func(string) error { j.finish(jobs.JobStatusKilled); return nil },
		Done:   func() (jobs.JobOutcome, error) { return <-j.result, nil },
	}
	common := jobs.JobStartCommon{Kind: "wire", Label: "job", Owner: j.owner}
	var start jobs.JobStart = jobs.PlainJobStart{JobStartCommon: common,
		Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) { return hooks, nil }}
	switch {
	case j.record && rapid.Bool().Draw(rt, "terminal"):
		j.keys = &wireKeys{}
		start = jobs.RecordingJobStart{JobStartCommon: common,
			RunTerminal: func(_ context.Context, face jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
				j.face = face
				return hooks, j.keys.input(), nil
			}}
	case j.record:
		start = jobs.RecordingJobStart{JobStartCommon: common,
			Run: func(_ context.Context, face jobs.RecordingJob) (jobs.Hooks, error) { j.face = face; return hooks, nil }}
	}
	snap, err := m.reg.Start(context.Background(), start)
	if err != nil {
		rt.Fatalf("start: %v", err)
	}
	j.id = snap.ID
	m.jobs = append(m.jobs, j)
}

// live returns the recording jobs that have not settled.
func (m *wireMachine) live() []*wireJob {
	var out []*wireJob
	for _, j := range m.jobs {
		if j.record && !j.settled {
			out = append(out, j)
		}
	}
	return out
}

func (m *wireMachine) append(rt *rapid.T) {
	live := m.live()
	if len(live) == 0 {
		rt.Skip("no live recording job")
	}
	j := live[rapid.IntRange(0, len(live)-1).Draw(rt, "job")]
	for range rapid.IntRange(1, 6).Draw(rt, "appends") {
		text := rapid.SampledFrom(wireTexts).Draw(rt, "text")
		j.face.Append(text, jobs.AppendOptions{})
		j.text += text
		j.ends = append(j.ends, int64(len(j.text)))
	}
}

func (m *wireMachine) finish(rt *rapid.T) {
	var open []*wireJob
	for _, j := range m.jobs {
		if !j.settled {
			open = append(open, j)
		}
	}
	if len(open) == 0 {
		rt.Skip("every job has settled")
	}
	j := open[rapid.IntRange(0, len(open)-1).Draw(rt, "job")]
	j.finish(jobs.JobStatusCompleted)
	m.settle(rt, j)
}

// settle waits for the registry to settle j.
func (m *wireMachine) settle(rt *rapid.T, j *wireJob) {
	synctest.Wait()
	snap, err := m.reg.Get(j.owner, j.id)
	if err != nil || !snap.Status.Terminal() {
		rt.Fatalf("job %s did not settle: %s %v", j.id, snap.Status, err)
	}
	j.settled = true
}

// request sends one request as session to host and returns the status and
// body; a stream's body is left open in res.
func (m *wireMachine) request(rt *rapid.T, method, path string, session jobs.SessionID, host string, header map[string]string, body string) *http.Response {
	req, err := http.NewRequest(method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
	if err != nil {
		rt.Fatal(err)
	}
	req.Host = host
	req.Header.Set("X-Session", string(session))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := m.client.Do(req)
	if err != nil {
		rt.Fatalf("%s %s: %v", method, path, err)
	}
	return res
}

// plain makes a request whose answer is not a stream and returns its
// status and body.
func (m *wireMachine) plain(rt *rapid.T, method, path string, session jobs.SessionID, host string, header map[string]string, body string) (int, []byte) {
	res := m.request(rt, method, path, session, host, header, body)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		rt.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return res.StatusCode, b
}

// refusedHost checks the answer to a request for a Host that is not served.
func refusedHost(rt *rapid.T, what string, code int, body []byte) {
	if code != http.StatusForbidden || !strings.Contains(string(body), "WithHosts") {
		rt.Fatalf("%s for an unserved Host: %d %s, want 403 naming WithHosts", what, code, body)
	}
}

func (m *wireMachine) roster(rt *rapid.T) {
	session := rapid.SampledFrom(wireSessions).Draw(rt, "session")
	host := rapid.SampledFrom(wireHosts).Draw(rt, "host")
	code, body := m.plain(rt, "GET", "/api/jobs", session, host, nil, "")
	if !m.served(host) {
		refusedHost(rt, "roster", code, body)
		return
	}
	var list []jobs.JobSnapshot
	if err := json.Unmarshal(body, &list); err != nil || code != http.StatusOK {
		rt.Fatalf("roster as %s: %d %s (%v)", session, code, body, err)
	}
	var want []*wireJob
	for _, j := range m.jobs {
		if j.owner == session {
			want = append(want, j)
		}
	}
	if len(list) != len(want) {
		rt.Fatalf("roster as %s holds %d jobs, want its %d", session, len(list), len(want))
	}
	for i, s := range list {
		if w := want[i]; s.ID != w.id || s.Owner != session || s.Record != w.record || s.OutputBytes != int64(len(w.text)) || s.Status.Terminal() != w.settled {
			rt.Fatalf("roster as %s, row %d: %+v, want job %s with %d bytes (settled %v)", session, i, s, w.id, len(w.text), w.settled)
		}
	}
}

// pickJob draws one of the jobs or, sometimes, an id nobody has.
func (m *wireMachine) pickJob(rt *rapid.T) *wireJob {
	if len(m.jobs) == 0 || rapid.IntRange(0, 9).Draw(rt, "unknown") == 0 {
		return &wireJob{id: jobs.NewJobID(), owner: rapid.SampledFrom(wireSessions).Draw(rt, "owner"), unknown: true}
	}
	return m.jobs[rapid.IntRange(0, len(m.jobs)-1).Draw(rt, "job")]
}

var notFound = `{"error":"no such job"}` + "\n"

func (m *wireMachine) get(rt *rapid.T) {
	j := m.pickJob(rt)
	session := rapid.SampledFrom(wireSessions).Draw(rt, "session")
	host := rapid.SampledFrom(wireHosts).Draw(rt, "host")
	code, body := m.plain(rt, "GET", "/api/jobs/"+j.id.String(), session, host, nil, "")
	switch {
	case !m.served(host):
		refusedHost(rt, "get", code, body)
	case j.owner != session || j.unknown:
		if code != http.StatusNotFound || string(body) != notFound {
			rt.Fatalf("get of a job of %s as %s: %d %s, want the one 404", j.owner, session, code, body)
		}
	default:
		var s jobs.JobSnapshot
		if err := json.Unmarshal(body, &s); err != nil || code != http.StatusOK || s.ID != j.id || s.OutputBytes != int64(len(j.text)) {
			rt.Fatalf("get of its own job as %s: %d %s (%v)", session, code, body, err)
		}
	}
}

func (m *wireMachine) history(rt *rapid.T) {
	session := rapid.SampledFrom(wireSessions).Draw(rt, "session")
	host := rapid.SampledFrom(wireHosts).Draw(rt, "host")
	code, body := m.plain(rt, "GET", "/api/history", session, host, nil, "")
	if !m.served(host) {
		refusedHost(rt, "history", code, body)
		return
	}
	var ivs []jobhistory.Interval
	if err := json.Unmarshal(body, &ivs); err != nil || code != http.StatusOK {
		rt.Fatalf("history as %s: %d %s (%v)", session, code, body, err)
	}
	var got, want []jobs.JobID
	for _, iv := range ivs {
		got = append(got, iv.JobID)
	}
	for _, j := range m.jobs {
		if j.owner == session {
			want = append(want, j.id)
		}
	}
	if !slices.Equal(got, want) {
		rt.Fatalf("history as %s holds jobs %v, want exactly its own %v", session, got, want)
	}
}
