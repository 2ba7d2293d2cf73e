package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/tooldef"
)

// A wire is a raw JSON-RPC client of a handler: it speaks one protocol
// version, as a client of that version writes its requests, and logs
// every exchange, so a test can show the wire form.
type wire struct {
	t       *testing.T
	url     string
	token   string
	version string
	client  *http.Client // nil is http.DefaultClient
	mu      sync.Mutex
	log     []string
}

type rpcError struct {
	Code    int
	Message string
	Data    json.RawMessage
}

// call sends method with params and returns the result or the error.
func (w *wire) call(method string, params map[string]any) (json.RawMessage, *rpcError) {
	w.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if w.version >= "2026-07-28" {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = w.version
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "wire", "version": "v0"}
		if _, ok := meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
			meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
		}
		params["_meta"] = meta
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, w.url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Mcp-Protocol-Version", w.version)
	if w.version >= "2026-07-28" {
		req.Header.Set("Mcp-Method", method)
		if name, ok := params["name"].(string); ok {
			req.Header.Set("Mcp-Name", name)
		}
		if id, ok := params["taskId"].(string); ok {
			req.Header.Set("Mcp-Name", id)
		}
	}
	client := w.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var answer string
	for _, line := range strings.Split(string(data), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id":1`) {
			answer = d
		}
	}
	if answer == "" {
		answer = string(data)
	}
	w.mu.Lock()
	w.log = append(w.log, "→ "+string(body), "← "+answer)
	w.mu.Unlock()
	var msg struct {
		Result json.RawMessage
		Error  *rpcError
	}
	if err := json.Unmarshal([]byte(answer), &msg); err != nil {
		w.t.Fatalf("%s: %d %s is no JSON-RPC answer", method, resp.StatusCode, data)
	}
	return msg.Result, msg.Error
}

// ok is call that must succeed.
func (w *wire) ok(method string, params map[string]any) json.RawMessage {
	w.t.Helper()
	res, e := w.call(method, params)
	if e != nil {
		w.t.Fatalf("%s %v: %+v", method, params, e)
	}
	return res
}

type task struct {
	TaskID, Status, StatusMessage string
	ResultType                    string
	Result                        *struct {
		StructuredContent struct {
			JobID    string
			Name     string
			Finished bool
			Notice   string
		}
		Content []struct{ Text string }
	}
}

func decodeTask(t *testing.T, data json.RawMessage) task {
	t.Helper()
	var tk task
	if err := json.Unmarshal(data, &tk); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return tk
}

// taskRuntime is a runtime whose registry records to a journal file, with
// the tools reading the history, served over HTTP to alice and bob.
type taskRuntime struct {
	*runtime
	store *journal.FileStore
	srv   *httptest.Server
	h     *mcpserver.Handler
}

func newTaskRuntime(t *testing.T, path string) *taskRuntime {
	t.Helper()
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rt := newRuntimeWith(t, []registry.Option{registry.WithRecorder(jobhistory.NewRecorder(store))}, agenttools.WithHistory(store))
	h, err := mcpserver.NewHandler(bearer(map[string]jobs.SessionID{"alice-token": "alice", "bob-token": "bob"}), func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return rt.tools.For(s), nil })
	if err != nil {
		t.Fatal(err)
	}
	tr := &taskRuntime{runtime: rt, store: store, srv: httptest.NewServer(h), h: h}
	t.Cleanup(tr.stop)
	return tr
}

// stop ends the process: the server, the registry (which settles what
// runs), the journal.
func (tr *taskRuntime) stop() {
	if tr.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = tr.h.Close(ctx)
	tr.srv.Close()
	_ = tr.reg.Close(ctx)
	_ = tr.store.Close(ctx)
	tr.srv = nil
}

func (tr *taskRuntime) wire(t *testing.T, token, version string) *wire {
	return &wire{t: t, url: tr.srv.URL, token: token, version: version}
}

// A job started as a 2025-11-25 task is the task: tasks/get follows the
// job, tasks/result waits for it and answers job_wait's result with the
// output, tasks/list lists it, and another session knows no such task.
func TestTaskOf20251125FollowsItsJob(t *testing.T) {
	tr := newTaskRuntime(t, filepath.Join(t.TempDir(), "journal"))
	alice := tr.wire(t, "alice-token", "2025-11-25")
	var created struct{ Task task }
	if err := json.Unmarshal(alice.ok("tools/call", map[string]any{"name": "start_job", "arguments": map[string]any{"label": "build"}, "task": map[string]any{"ttl": 60000}}), &created); err != nil {
		t.Fatal(err)
	}
	if created.Task.Status != "working" || created.Task.TaskID == "" {
		t.Fatalf("created %+v, want a working task", created.Task)
	}
	id := created.Task.TaskID
	var jobID jobs.JobID
	_ = json.Unmarshal([]byte(`"`+id+`"`), &jobID)
	job := tr.job(jobID)
	job.write("compiling\n")
	job.UpdateDetail("1 of 2")
	if got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": id})); got.Status != "working" || got.StatusMessage != "1 of 2" {
		t.Errorf("tasks/get = %+v, want working with the progress line", got)
	}
	var list struct{ Tasks []task }
	_ = json.Unmarshal(alice.ok("tasks/list", nil), &list)
	if len(list.Tasks) != 1 || list.Tasks[0].TaskID != id {
		t.Errorf("tasks/list = %+v, want the one task", list.Tasks)
	}

	bob := tr.wire(t, "bob-token", "2025-11-25")
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		_, foreign := bob.call(method, map[string]any{"taskId": id})
		nobody := jobs.NewJobID().String()
		_, unknown := bob.call(method, map[string]any{"taskId": nobody})
		if foreign == nil || unknown == nil || strings.ReplaceAll(unknown.Message, nobody, id) != foreign.Message {
			t.Errorf("bob's %s of alice's task: %+v; of an unknown one: %+v; want the same", method, foreign, unknown)
		}
	}
	_ = json.Unmarshal(bob.ok("tasks/list", nil), &list)
	if len(list.Tasks) != 0 {
		t.Errorf("bob's tasks/list = %+v, want none", list.Tasks)
	}

	done := make(chan json.RawMessage)
	go func() { done <- alice.ok("tasks/result", map[string]any{"taskId": id}) }()
	time.Sleep(50 * time.Millisecond) // tasks/result waits
	job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "built"}, nil)
	var res struct {
		Meta              map[string]any `json:"_meta"`
		StructuredContent struct {
			JobID    string
			Finished bool
			Notice   string
		}
		Content []struct{ Text string }
	}
	_ = json.Unmarshal(<-done, &res)
	if !res.StructuredContent.Finished || !strings.Contains(res.StructuredContent.Notice, "completed: built") || res.StructuredContent.JobID != id {
		t.Errorf("tasks/result = %+v, want job_wait's result at the settlement", res.StructuredContent)
	}
	if len(res.Content) != 2 || res.Content[1].Text != "compiling\n" {
		t.Errorf("tasks/result content = %+v, want the result and the output", res.Content)
	}
	if rel, _ := res.Meta["io.modelcontextprotocol/related-task"].(map[string]any); rel["taskId"] != id {
		t.Errorf("tasks/result _meta = %v, want the related task", res.Meta)
	}
	if got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": id})); got.Status != "completed" {
		t.Errorf("tasks/get after the settlement = %+v, want completed", got)
	}
	if _, e := alice.call("tasks/cancel", map[string]any{"taskId": id}); e == nil {
		t.Error("tasks/cancel of a finished task succeeded, want an error")
	}
	t.Logf("one task's JSON-RPC exchange:\n%s", strings.Join(alice.log, "\n"))
}

// tasks/cancel asks the job to stop: the task ends cancelled.
func TestTaskCancelKillsItsJob(t *testing.T) {
	tr := newTaskRuntime(t, filepath.Join(t.TempDir(), "journal"))
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			alice := tr.wire(t, "alice-token", version)
			params := map[string]any{"name": "start_job", "arguments": map[string]any{"label": "server"}}
			if version < "2026-07-28" {
				params["task"] = map[string]any{}
			}
			res := alice.ok("tools/call", params)
			var created struct{ Task task }
			_ = json.Unmarshal(res, &created)
			id := created.Task.TaskID
			if version >= "2026-07-28" {
				id = decodeTask(t, res).TaskID
			}
			alice.ok("tasks/cancel", map[string]any{"taskId": id})
			if got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": id})); got.Status != "cancelled" {
				t.Errorf("tasks/get after tasks/cancel = %+v, want cancelled", got)
			}
		})
	}
}

// At 2026-07-28 a client that names the tasks extension gets a task
// (resultType "task"), and tasks/get inlines the result once there is one;
// a client that does not gets the plain result.
func TestTaskOf20260728InlinesItsResult(t *testing.T) {
	tr := newTaskRuntime(t, filepath.Join(t.TempDir(), "journal"))
	alice := tr.wire(t, "alice-token", "2026-07-28")
	created := decodeTask(t, alice.ok("tools/call", map[string]any{"name": "start_job", "arguments": map[string]any{"label": "build"}}))
	if created.ResultType != "task" || created.Status != "working" {
		t.Fatalf("tools/call = %+v, want a working task", created)
	}
	var jobID jobs.JobID
	_ = json.Unmarshal([]byte(`"`+created.TaskID+`"`), &jobID)
	tr.job(jobID).write("ok\n")
	tr.job(jobID).Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": created.TaskID}))
	if got.ResultType != "complete" || got.Status != "completed" || got.Result == nil || !got.Result.StructuredContent.Finished {
		t.Errorf("tasks/get = %+v, want completed with its result", got)
	}
	plain := alice.ok("tools/call", map[string]any{"name": "job_list", "arguments": map[string]any{}, "_meta": map[string]any{
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}})
	if strings.Contains(string(plain), `"resultType":"task"`) {
		t.Errorf("job_list answered %s, want its plain result", plain)
	}
	if _, e := alice.call("tasks/update", map[string]any{"taskId": created.TaskID, "inputResponses": map[string]any{}}); e == nil {
		t.Error("tasks/update succeeded, want an error: no job asks for input")
	}
}

// A task outlives its process: after a restart over the same journal its
// status and result come from the job's facts, still fenced by session,
// and a task whose job the process left running reads failed, lost.
func TestTaskSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	first := newTaskRuntime(t, path)
	alice := first.wire(t, "alice-token", "2025-11-25")
	start := func() (string, *testJob) {
		var created struct{ Task task }
		_ = json.Unmarshal(alice.ok("tools/call", map[string]any{"name": "start_job", "arguments": map[string]any{"label": "build"}, "task": map[string]any{}}), &created)
		var id jobs.JobID
		_ = json.Unmarshal([]byte(`"`+created.Task.TaskID+`"`), &id)
		return created.Task.TaskID, first.job(id)
	}
	done, job := start()
	job.Settle(jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "exit status 2"}, nil)
	running, _ := start()
	if err := first.store.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A crash: the registry's teardown never records the running job's end.
	first.srv.Close()
	_ = first.store.Close(context.Background())
	first.srv = nil

	second := newTaskRuntime(t, path)
	alice = second.wire(t, "alice-token", "2025-11-25")
	if got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": done})); got.Status != "failed" || got.StatusMessage != "exit status 2" {
		t.Errorf("tasks/get after the restart = %+v, want failed: exit status 2", got)
	}
	var res struct {
		StructuredContent struct {
			Finished bool
			Notice   string
		}
	}
	_ = json.Unmarshal(alice.ok("tasks/result", map[string]any{"taskId": done}), &res)
	if !res.StructuredContent.Finished || !strings.Contains(res.StructuredContent.Notice, "failed: exit status 2") {
		t.Errorf("tasks/result after the restart = %+v", res.StructuredContent)
	}
	if got := decodeTask(t, alice.ok("tasks/get", map[string]any{"taskId": running})); got.Status != "failed" || !strings.HasPrefix(got.StatusMessage, "lost") {
		t.Errorf("a task whose process ended first = %+v, want failed, lost", got)
	}
	if _, e := alice.call("tasks/cancel", map[string]any{"taskId": done}); e == nil {
		t.Error("tasks/cancel of a finished task after the restart succeeded")
	}
	bob := second.wire(t, "bob-token", "2025-11-25")
	if _, e := bob.call("tasks/get", map[string]any{"taskId": done}); e == nil {
		t.Error("bob read alice's task from the history")
	}
}

// While job_wait waits and the client gave a progress token, the job's
// progress line goes out as notifications/progress.
func TestJobWaitSendsTheProgressLine(t *testing.T) {
	rt := newRuntime(t)
	_, srv := serveHTTP(t, rt)
	var mu sync.Mutex
	var got []string
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Message)
			mu.Unlock()
		},
	})
	transport := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: withToken("alice-token"), MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var started struct{ JobID jobs.JobID }
	_ = json.Unmarshal(ok(t, "start_job", callTool(t, cs, "start_job", map[string]any{"label": "slow"})), &started)
	job := rt.job(started.JobID)
	go func() {
		for _, line := range []string{"1 of 3", "2 of 3", "3 of 3"} {
			time.Sleep(400 * time.Millisecond)
			job.UpdateDetail(line)
		}
		time.Sleep(400 * time.Millisecond)
		job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	}()
	params := &sdk.CallToolParams{Name: "job_wait", Arguments: map[string]any{"jobId": started.JobID, "timeoutSeconds": 30}}
	params.SetProgressToken("wait-1")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The line is looked at every 250 ms and each lasts 400 ms: a loaded
	// machine may skip one, but never tells one twice or out of order.
	lines := []string{"1 of 3", "2 of 3", "3 of 3"}
	at := 0
	for _, g := range got {
		for at < len(lines) && lines[at] != g {
			at++
		}
		if at == len(lines) {
			t.Fatalf("progress = %q, want the lines in order, each once", got)
		}
		at++
	}
	if len(got) == 0 {
		t.Error("no progress was sent while job_wait waited")
	}
}

// Over HTTP the Go SDK's client negotiates 2026-07-28, and a client that
// asks for an older version gets it; the observer hears both.
func TestHTTPNegotiatesTheNewestVersionAndServesOlderOnes(t *testing.T) {
	rt := newRuntime(t)
	obs := &versions{}
	h, err := mcpserver.NewHandler(bearer(map[string]jobs.SessionID{"alice-token": "alice"}),
		func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return rt.tools.For(s), nil },
		mcpserver.WithObserver(obs),
	)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} {
		transport := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: withToken("alice-token"), MaxRetries: -1, DisableStandaloneSSE: true}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), transport, &sdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect at %q: %v", version, err)
		}
		want := version
		if want == "" {
			want = "2026-07-28"
		}
		if got := cs.InitializeResult().ProtocolVersion; got != want {
			t.Errorf("asking for %q negotiated %q, want %q", version, got, want)
		}
		if cs.InitializeResult().Instructions == "" {
			t.Errorf("at %s the server gives no instructions", want)
		}
		ok(t, "job_list", callTool(t, cs, "job_list", map[string]any{}))
		cs.Close()
	}
	if got := strings.Join(obs.seen(), ", "); got != "http 2026-07-28, http 2025-11-25, http 2025-06-18, http 2025-03-26" {
		t.Errorf("the observer heard %s", got)
	}
}

type versions struct {
	mu   sync.Mutex
	list []string
}

func (v *versions) Negotiated(transport, version string, _ *sdk.Implementation) {
	v.mu.Lock()
	v.list = append(v.list, transport+" "+version)
	v.mu.Unlock()
}

func (v *versions) seen() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.list...)
}

// BenchmarkToolCall compares a task-augmented tools/call with a plain one
// over the same HTTP handler, in one run: job_wait on a settled job,
// answered at once (plain), or as a task (2025-11-25's task param, or a
// 2026-07-28 client naming the extension), each a whole request.
func BenchmarkToolCall(b *testing.B) {
	tr := &taskRuntime{runtime: newRuntime(b)}
	h, err := mcpserver.NewHandler(bearer(map[string]jobs.SessionID{"alice-token": "alice"}), func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return tr.tools.For(s), nil })
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	out, err := tr.tools.For("alice").Call(context.Background(), "start_job", json.RawMessage(`{"label":"done"}`))
	if err != nil {
		b.Fatal(err)
	}
	var started struct{ JobID jobs.JobID }
	_ = json.Unmarshal(out, &started)
	tr.job(started.JobID).Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	args := map[string]any{"jobId": started.JobID.String()}
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	plain := map[string]any{"name": "job_wait", "arguments": args}
	cases := []struct {
		name, version string
		params        map[string]any
		want          string
	}{
		{"plain-2025-11-25", "2025-11-25", plain, `"finished":true`},
		{"task-2025-11-25", "2025-11-25", map[string]any{"name": "job_wait", "arguments": args, "task": map[string]any{}}, `"task":{`},
		{"plain-2026-07-28", "2026-07-28", map[string]any{"name": "job_wait", "arguments": args, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}, `"finished":true`},
		{"task-2026-07-28", "2026-07-28", map[string]any{"name": "job_wait", "arguments": args, "_meta": meta}, `"resultType":"task"`},
	}
	// paired-VERSION alternates batches of the task call and the plain
	// one (pairedCalls): the scoreboard's row.
	for i := 0; i < len(cases); i += 2 {
		plain, task := cases[i], cases[i+1]
		plainBody, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": plain.params})
		taskBody, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": task.params})
		b.Run("paired-"+plain.version, func(b *testing.B) {
			pairedCalls(b, "task", "plain", func() { postToolCall(b, srv.URL, task.version, taskBody, task.want) },
				func() { postToolCall(b, srv.URL, plain.version, plainBody, plain.want) })
		})
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": bc.params})
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(string(body)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer alice-token")
				req.Header.Set("Mcp-Protocol-Version", bc.version)
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "job_wait")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(data), bc.want) {
					b.Fatalf("%s answered %s", bc.name, data)
				}
			}
		})
	}
}

// A tool whose task support is required runs only as a task: tools/list
// says so in its execution, a call without a task is refused with "method
// not found" (as MCP says a server answers it) and starts nothing, and the
// same call as a task starts its job.
func TestAToolThatRequiresATaskRefusesACallWithoutOne(t *testing.T) {
	rt := newRuntimeTasks(t, tooldef.TaskRequired, nil)
	h, err := mcpserver.NewHandler(bearer(map[string]jobs.SessionID{"alice-token": "alice"}), func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return rt.tools.For(s), nil })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	alice := &wire{t: t, url: srv.URL, token: "alice-token", version: "2025-11-25"}
	started := func() int {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		return len(rt.jobs)
	}

	var list struct {
		Tools []struct {
			Name      string
			Execution struct{ TaskSupport string }
		}
	}
	_ = json.Unmarshal(alice.ok("tools/list", nil), &list)
	if len(list.Tools) == 0 || list.Tools[0].Name != "start_job" || list.Tools[0].Execution.TaskSupport != "required" {
		t.Errorf("tools/list = %+v, want start_job first with taskSupport required", list.Tools)
	}
	args := map[string]any{"label": "ship"}
	if _, e := alice.call("tools/call", map[string]any{"name": "start_job", "arguments": args}); e == nil || e.Code != -32601 || started() != 0 {
		t.Errorf("start_job without a task: %+v, %d started; want -32601 and nothing started", e, started())
	}
	var created struct{ Task task }
	_ = json.Unmarshal(alice.ok("tools/call", map[string]any{"name": "start_job", "arguments": args, "task": map[string]any{"ttl": 60000}}), &created)
	if created.Task.Status != "working" || started() != 1 {
		t.Errorf("start_job as a task: %+v, %d started; want a working task", created.Task, started())
	}
}
