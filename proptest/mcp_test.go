package proptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/tooldef"
)

// TestMCPSessionFence is the fence of the MCP server over real streamable
// HTTP. Each check has its own sessions, each
// with one or two MCP client sessions; random calls start jobs (plainly or
// as 2025-11-25 tasks), list, read and kill them, read and cancel their
// tasks, from their owners and from the others, and a session names
// another's Mcp-Session-Id with its own credentials, asking to kill or
// read the other's job. The model says: a session's job_list shows its
// jobs only; a call about another session's job answers unknownJob and
// changes nothing; a named MCP session id grants nothing (the handler is
// stateless: the call is the sender's); another session's task is unknown
// in exactly the words of an id nobody issued, for tasks/get and
// tasks/cancel alike, and its cancel stops nothing; an owner's kill or
// cancel stops its running job, and tasks/get says cancelled after it; a
// subscriptions/listen for task status agrees to the sender's own tasks
// only, and tells their status.
func TestMCPSessionFence(t *testing.T) {
	reg := registry.New()
	defer reg.Close(context.Background())
	start := agenttools.StartTool{
		Tool: agenttools.Tool{Name: "start", Description: "start starts a job.", InputSchema: json.RawMessage(`{"type":"object"}`), TaskSupport: tooldef.TaskOptional},
		Call: func(ctx context.Context, c agenttools.Caller, _ json.RawMessage) (json.RawMessage, error) {
			snap, err := reg.Start(ctx, jobs.PlainJobStart{
				JobStartCommon: jobs.JobStartCommon{Kind: "t", Label: "t", Owner: c.Session},
				Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
					return jobs.Hooks{Cancel: func(string) error {
						job.Settle(jobs.JobOutcome{Status: jobs.JobStatusKilled}, nil)
						return nil
					}}, nil
				},
			})
			if err != nil {
				return nil, err
			}
			return json.Marshal(map[string]any{"jobId": snap.ID})
		},
	}
	all, err := agenttools.New(reg, agenttools.WithStartTool(start))
	if err != nil {
		t.Fatal(err)
	}
	h, err := mcpserver.NewHandler(
		// The fixture's authentication: the token names the session.
		func(r *http.Request) (jobs.SessionID, error) {
			s, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer token-")
			if !ok {
				return "", fmt.Errorf("no token")
			}
			return jobs.SessionID(s), nil
		},
		func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return all.For(s), nil },
	)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	// The checks leave their MCP sessions open, which saves a round trip
	// each; Close ends them all.
	defer h.Close(context.Background())

	var round atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		m := &mcpMachine{srv: srv, reg: reg, owner: map[jobs.JobID]jobs.SessionID{}, killed: map[jobs.JobID]bool{}}
		n := round.Add(1)
		for i := range rapid.IntRange(2, 3).Draw(rt, "sessions") {
			s := jobs.SessionID(fmt.Sprintf("s%d-%d", n, i))
			m.sessions = append(m.sessions, s)
			for range rapid.IntRange(1, 2-i/2).Draw(rt, "clients") {
				m.clients = append(m.clients, mcpClient{session: s, cs: m.connect(rt, s)})
			}
		}
		// A few steps per check, not rapid's Repeat: each step is a round
		// trip or more over HTTP, and many short checks find more than a
		// few long ones at the same cost.
		actions := map[string]func(*rapid.T){"start": m.start, "list": m.list, "call": m.call, "replay": m.replay, "startTask": m.startTask, "task": m.task, "listen": m.listen}
		names := []string{"start", "list", "call", "replay", "startTask", "task", "listen"}
		for range rapid.IntRange(1, 12).Draw(rt, "steps") {
			actions[rapid.SampledFrom(names).Draw(rt, "action")](rt)
			m.check(rt)
		}
	})
}

type mcpClient struct {
	session jobs.SessionID
	cs      *sdk.ClientSession
}

type mcpMachine struct {
	srv      *httptest.Server
	reg      *registry.Registry
	sessions []jobs.SessionID
	clients  []mcpClient
	jobs     []jobs.JobID
	owner    map[jobs.JobID]jobs.SessionID
	killed   map[jobs.JobID]bool
}

func tokenClient(s jobs.SessionID) *http.Client {
	return &http.Client{Transport: tokenTransport(s)}
}

type tokenTransport jobs.SessionID

func (s tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer token-"+string(s))
	return http.DefaultTransport.RoundTrip(r)
}

func (m *mcpMachine) connect(rt *rapid.T, s jobs.SessionID) *sdk.ClientSession {
	transport := &sdk.StreamableClientTransport{Endpoint: m.srv.URL, HTTPClient: tokenClient(s), MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "proptest", Version: "v0"}, nil).Connect(context.Background(), transport, nil)
	if err != nil {
		rt.Fatalf("connect %s: %v", s, err)
	}
	return cs
}

// callAs calls a tool through c and returns its text and whether it failed.
func (m *mcpMachine) callAs(rt *rapid.T, c mcpClient, name string, args map[string]any) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		rt.Fatalf("%s by %s: %v", name, c.session, err)
	}
	tc, _ := res.Content[0].(*sdk.TextContent)
	return tc.Text, res.IsError
}

func (m *mcpMachine) start(rt *rapid.T) {
	if len(m.jobs) >= 6 {
		return
	}
	c := rapid.SampledFrom(m.clients).Draw(rt, "client")
	out, failed := m.callAs(rt, c, "start", map[string]any{})
	var res struct{ JobID jobs.JobID }
	if failed || json.Unmarshal([]byte(out), &res) != nil {
		rt.Fatalf("start by %s: %s", c.session, out)
	}
	m.jobs = append(m.jobs, res.JobID)
	m.owner[res.JobID] = c.session
}

func (m *mcpMachine) list(rt *rapid.T) {
	c := rapid.SampledFrom(m.clients).Draw(rt, "client")
	m.checkList(rt, c)
}

func (m *mcpMachine) checkList(rt *rapid.T, c mcpClient) {
	out, failed := m.callAs(rt, c, "job_list", map[string]any{})
	var res tools.JobListResult
	if failed || json.Unmarshal([]byte(out), &res) != nil {
		rt.Fatalf("job_list by %s: %s", c.session, out)
	}
	var got, want []jobs.JobID
	for _, e := range res.Jobs {
		got = append(got, e.ID)
	}
	for _, id := range m.jobs {
		if m.owner[id] == c.session {
			want = append(want, id)
		}
	}
	if !slices.Equal(got, want) {
		rt.Fatalf("job_list by %s = %v, want %v", c.session, got, want)
	}
}

func (m *mcpMachine) call(rt *rapid.T) {
	if len(m.jobs) == 0 {
		return
	}
	c := rapid.SampledFrom(m.clients).Draw(rt, "client")
	id := rapid.SampledFrom(m.jobs).Draw(rt, "job")
	tool := rapid.SampledFrom([]string{"job_output", "job_kill"}).Draw(rt, "tool")
	out, failed := m.callAs(rt, c, tool, map[string]any{"jobId": id})
	if m.owner[id] != c.session {
		var e tools.ToolError
		if !failed || json.Unmarshal([]byte(out), &e) != nil || e.Code != tools.ErrorCodeUnknownJob {
			rt.Fatalf("%s by %s of %s's job: %s, want unknownJob", tool, c.session, m.owner[id], out)
		}
		return
	}
	if failed {
		rt.Fatalf("%s by the owner: %s", tool, out)
	}
	if tool == "job_kill" {
		m.killed[id] = true
	}
}

// rawCall sends one JSON-RPC request as sender at version (the
// handshake era's 2025-11-25 unless it says otherwise), naming the MCP
// session id sid when it is set, and returns the response's result or
// error.
func (m *mcpMachine) rawCall(rt *rapid.T, sender jobs.SessionID, sid, method string, params any) (result json.RawMessage, rpcErr *struct {
	Code    int
	Message string
}) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, m.srv.URL, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := tokenClient(sender).Do(req)
	if err != nil {
		rt.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		rt.Fatalf("%s by %s: %d %s", method, sender, resp.StatusCode, data)
	}
	// The answer is one SSE event, or JSON.
	for _, line := range strings.Split(string(data), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = []byte(d)
		}
	}
	var msg struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		rt.Fatalf("%s by %s: no JSON-RPC answer in %s", method, sender, data)
	}
	return msg.Result, msg.Error
}

// replay sends a call naming another client's MCP session id with the
// sender's own credentials, as a raw request: the handler is stateless, so
// the id is no capability, and the call is the sender's.
func (m *mcpMachine) replay(rt *rapid.T) {
	if len(m.jobs) == 0 {
		return
	}
	victim := rapid.SampledFrom(m.clients).Draw(rt, "victim")
	var others []jobs.SessionID
	for _, s := range m.sessions {
		if s != victim.session {
			others = append(others, s)
		}
	}
	sender := rapid.SampledFrom(others).Draw(rt, "sender")
	id := rapid.SampledFrom(m.jobs).Draw(rt, "job")
	tool := rapid.SampledFrom([]string{"job_kill", "job_output"}).Draw(rt, "tool")
	// The victim uses the id first, as a client that keeps one would.
	sid := "session-of-" + string(victim.session)
	if _, rpcErr := m.rawCall(rt, victim.session, sid, "tools/call", map[string]any{"name": "job_list", "arguments": map[string]any{}}); rpcErr != nil {
		rt.Fatalf("job_list by %s with a session id: %+v", victim.session, rpcErr)
	}
	res, rpcErr := m.rawCall(rt, sender, sid, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"jobId": id}})
	if rpcErr != nil {
		rt.Fatalf("%s by %s naming %s's session: %+v", tool, sender, victim.session, rpcErr)
	}
	if m.owner[id] == sender {
		if tool == "job_kill" {
			m.killed[id] = true
		}
		return
	}
	if !strings.Contains(string(res), "unknownJob") {
		rt.Fatalf("%s by %s of %s's job, naming %s's session: %s, want unknownJob", tool, sender, m.owner[id], victim.session, res)
	}
}

// startTask starts a job as a 2025-11-25 task: the task is the job.
func (m *mcpMachine) startTask(rt *rapid.T) {
	if len(m.jobs) >= 6 {
		return
	}
	s := rapid.SampledFrom(m.sessions).Draw(rt, "session")
	res, rpcErr := m.rawCall(rt, s, "", "tools/call", map[string]any{"name": "start", "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}})
	var created struct {
		Task struct{ TaskID, Status string }
	}
	if rpcErr != nil || json.Unmarshal(res, &created) != nil || created.Task.Status != "working" {
		rt.Fatalf("start as a task by %s: %s %+v, want a working task", s, res, rpcErr)
	}
	var id jobs.JobID
	if err := json.Unmarshal([]byte(`"`+created.Task.TaskID+`"`), &id); err != nil {
		rt.Fatalf("the task id %q is no JobID", created.Task.TaskID)
	}
	m.jobs = append(m.jobs, id)
	m.owner[id] = s
}

// task reads or cancels a task from its owner or another session: the
// owner's answer is the job's state; anyone else's is the error an id
// nobody issued gets, word for word, and changes nothing.
func (m *mcpMachine) task(rt *rapid.T) {
	if len(m.jobs) == 0 {
		return
	}
	s := rapid.SampledFrom(m.sessions).Draw(rt, "session")
	id := rapid.SampledFrom(m.jobs).Draw(rt, "task")
	method := rapid.SampledFrom([]string{"tasks/get", "tasks/cancel"}).Draw(rt, "method")
	res, rpcErr := m.rawCall(rt, s, "", method, map[string]any{"taskId": id.String()})
	if m.owner[id] != s {
		nobody := jobs.NewJobID()
		_, want := m.rawCall(rt, s, "", method, map[string]any{"taskId": nobody.String()})
		if rpcErr == nil || want == nil || strings.ReplaceAll(want.Message, nobody.String(), id.String()) != rpcErr.Message || rpcErr.Code != want.Code {
			rt.Fatalf("%s by %s of %s's task: %s %+v, want the answer to an id nobody issued, %+v", method, s, m.owner[id], res, rpcErr, want)
		}
		return
	}
	wantStatus := "working"
	switch {
	case method == "tasks/cancel" && m.killed[id]:
		if rpcErr == nil {
			rt.Fatalf("tasks/cancel of a cancelled task: %s, want an error (it has finished)", res)
		}
		return
	case method == "tasks/cancel", m.killed[id]:
		wantStatus = "cancelled"
	}
	var task struct{ TaskID, Status string }
	if rpcErr != nil || json.Unmarshal(res, &task) != nil || task.TaskID != id.String() || task.Status != wantStatus {
		rt.Fatalf("%s by the owner %s: %s %+v, want %s", method, s, res, rpcErr, wantStatus)
	}
	if method == "tasks/cancel" {
		m.killed[id] = true
	}
}

// listen subscribes, as a 2026-07-28 client, to the status notifications
// of some tasks, its own and others' and an id nobody issued: the
// acknowledgement agrees to exactly the sender's own, in the order asked,
// and the first notification is the first of them, with the model's status.
func (m *mcpMachine) listen(rt *rapid.T) {
	s := rapid.SampledFrom(m.sessions).Draw(rt, "session")
	var asked, want []string
	for _, id := range m.jobs {
		if rapid.Bool().Draw(rt, "ask") {
			asked = append(asked, id.String())
			if m.owner[id] == s {
				want = append(want, id.String())
			}
		}
	}
	asked = append(asked, jobs.NewJobID().String())
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": map[string]any{
		"notifications": map[string]any{"taskIds": asked},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "prop", "version": "v0"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, m.srv.URL, strings.NewReader(string(body)))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	resp, err := tokenClient(s).Do(req)
	if err != nil {
		rt.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	next := func(what string) json.RawMessage {
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				return json.RawMessage(d)
			}
		}
		rt.Fatalf("listen by %s of %v: the stream ended before %s (%d)", s, asked, what, resp.StatusCode)
		return nil
	}
	var ack struct {
		Method string
		Params struct{ Notifications struct{ TaskIDs []string } }
	}
	if data := next("its acknowledgement"); json.Unmarshal(data, &ack) != nil || ack.Method != "notifications/subscriptions/acknowledged" ||
		!slices.Equal(ack.Params.Notifications.TaskIDs, want) && len(ack.Params.Notifications.TaskIDs)+len(want) > 0 {
		rt.Fatalf("listen by %s of %v: acknowledged %s, want %s's own %v", s, asked, data, s, want)
	}
	if len(want) == 0 {
		return
	}
	var first struct {
		Method string
		Params struct{ TaskID, Status string }
	}
	wantStatus := "working"
	if id, _ := jobIDOf(want[0]); m.killed[id] {
		wantStatus = "cancelled"
	}
	if data := next("a notification"); json.Unmarshal(data, &first) != nil || first.Method != "notifications/tasks" ||
		first.Params.TaskID != want[0] || first.Params.Status != wantStatus {
		rt.Fatalf("listen by %s: first notification %s, want %s %s", s, data, want[0], wantStatus)
	}
}

// jobIDOf is the JobID a task id is.
func jobIDOf(taskID string) (jobs.JobID, error) {
	var id jobs.JobID
	err := json.Unmarshal([]byte(`"`+taskID+`"`), &id)
	return id, err
}

// check compares every job's status with the model, read from the
// registry (the lists are checked over the wire by list).
func (m *mcpMachine) check(rt *rapid.T) {
	for _, id := range m.jobs {
		snap, err := m.reg.Get(m.owner[id], id)
		if err != nil || (snap.Status == jobs.JobStatusKilled) != m.killed[id] {
			rt.Fatalf("job %s of %s is %s (%v), the model says killed=%v", id, m.owner[id], snap.Status, err, m.killed[id])
		}
	}
}
