package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/tooldef"
)

// A runtime is a registry, the tools over it with one start tool, and the
// jobs that tool started, which the test drives.
type runtime struct {
	reg   *registry.Registry
	tools *agenttools.Tools

	mu   sync.Mutex
	jobs map[jobs.JobID]*testJob
}

// A testJob writes what the test tells it, to its record and to its
// consuming cursor.
type testJob struct {
	jobs.RecordingJob
	mu     sync.Mutex
	unread string
}

func (j *testJob) write(s string) {
	j.mu.Lock()
	j.unread += s
	j.mu.Unlock()
	j.Append(s, jobs.AppendOptions{})
}

func (j *testJob) readOutput() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.unread
	j.unread = ""
	return s
}

// startInput is the start tool's input; its schema is the runtime's own.
var startSchema = json.RawMessage(`{"type":"object","properties":{"label":{"type":"string","description":"What the job is for."}},"required":["label"]}`)

func newRuntime(t testing.TB) *runtime { return newRuntimeWith(t, nil) }

// newRuntimeWith is newRuntime with options for the registry and the
// tools.
func newRuntimeWith(t testing.TB, regOpts []registry.Option, toolOpts ...agenttools.Option) *runtime {
	return newRuntimeTasks(t, tooldef.TaskOptional, regOpts, toolOpts...)
}

// newRuntimeTasks is newRuntimeWith with the start tool's task support.
func newRuntimeTasks(t testing.TB, tasks tooldef.TaskSupport, regOpts []registry.Option, toolOpts ...agenttools.Option) *runtime {
	t.Helper()
	rt := &runtime{reg: registry.New(regOpts...), jobs: map[jobs.JobID]*testJob{}}
	t.Cleanup(func() { _ = rt.reg.Close(context.Background()) })
	start := agenttools.StartTool{
		Tool: agenttools.Tool{
			Name:         "start_job",
			Description:  "start_job starts a job that writes what it is told.",
			InputSchema:  startSchema,
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"jobId":{"type":"string"}},"required":["jobId"]}`),
			TaskSupport:  tasks,
		},
		Call: func(ctx context.Context, c agenttools.Caller, args json.RawMessage) (json.RawMessage, error) {
			var in struct {
				Label string `json:"label"`
			}
			if err := json.Unmarshal(args, &in); err != nil || in.Label == "" {
				return nil, &agenttools.Error{Code: tools.ErrorCodeInvalidArguments, Message: "start_job needs a label."}
			}
			tj := &testJob{}
			snap, err := rt.reg.Start(ctx, jobs.RecordingJobStart{
				JobStartCommon: jobs.JobStartCommon{Kind: "t", Label: in.Label, Owner: c.Session},
				Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
					tj.RecordingJob = job
					return jobs.Hooks{ReadOutput: tj.readOutput, Cancel: func(string) error {
						job.Settle(jobs.JobOutcome{Status: jobs.JobStatusKilled}, nil)
						return nil
					}}, nil
				},
			})
			if err != nil {
				return nil, err
			}
			rt.mu.Lock()
			rt.jobs[snap.ID] = tj
			rt.mu.Unlock()
			return json.Marshal(map[string]any{"jobId": snap.ID})
		},
	}
	tools, err := agenttools.New(rt.reg, append([]agenttools.Option{agenttools.WithStartTool(start)}, toolOpts...)...)
	if err != nil {
		t.Fatal(err)
	}
	rt.tools = tools
	return rt
}

func (rt *runtime) job(id jobs.JobID) *testJob {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.jobs[id]
}

// callTool calls a tool through the client and returns its result.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok returns a successful result's structured content, checking that its
// text block says the same.
func ok(t *testing.T, name string, res *sdk.CallToolResult) json.RawMessage {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", name, text(res))
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(structured, &a)
	_ = json.Unmarshal([]byte(text(res)), &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("%s: structured content %s and text %s differ", name, structured, text(res))
	}
	return structured
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func text(res *sdk.CallToolResult) string {
	if len(res.Content) != 1 {
		return fmt.Sprintf("<%d content blocks>", len(res.Content))
	}
	tc, _ := res.Content[0].(*sdk.TextContent)
	if tc == nil {
		return "<not text>"
	}
	return tc.Text
}

// failed returns a failed result's ToolError.
func failed(t *testing.T, name string, res *sdk.CallToolResult) tools.ToolError {
	t.Helper()
	if !res.IsError {
		t.Fatalf("%s succeeded: %s, want an error", name, text(res))
	}
	var e tools.ToolError
	if err := json.Unmarshal([]byte(text(res)), &e); err != nil {
		t.Fatalf("%s: the error %q is no ToolError: %v", name, text(res), err)
	}
	return e
}

func schemaOf(t *testing.T, name string, v any) *jsonschema.Schema {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "https://jobgen.test/" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func validates(t *testing.T, s *jsonschema.Schema, what string, data []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err == nil {
		err = s.Validate(v)
	}
	if err != nil {
		t.Errorf("%s does not validate %s: %v", what, data, err)
	}
}

// connectInMemory serves ts to an SDK client over the SDK's in-memory
// transport.
func connectInMemory(t *testing.T, ts *agenttools.Toolset) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverT, clientT := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- mcpserver.Serve(ctx, ts, serverT) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return cs
}

// A client lists the tools as the Toolset has them, calls each with an
// example that the tool's input schema accepts, and gets results its
// output schema accepts, or a ToolError.
func TestMCPClientListsAndCallsEveryTool(t *testing.T) {
	rt := newRuntime(t)
	ts := rt.tools.For("alice")
	cs := connectInMemory(t, ts)
	ctx := context.Background()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	in, out := map[string]*jsonschema.Schema{}, map[string]*jsonschema.Schema{}
	want := ts.Tools()
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		i := slices.IndexFunc(want, func(w agenttools.Tool) bool { return w.Name == tool.Name })
		if i < 0 || tool.Description != want[i].Description {
			t.Errorf("%s: description %q is not the Toolset's", tool.Name, tool.Description)
			continue
		}
		if got, _ := json.Marshal(tool.InputSchema); !jsonEqual(got, want[i].InputSchema) {
			t.Errorf("%s: input schema %s is not the Toolset's %s", tool.Name, got, want[i].InputSchema)
		}
		in[tool.Name] = schemaOf(t, tool.Name+"-in", tool.InputSchema)
		out[tool.Name] = schemaOf(t, tool.Name+"-out", tool.OutputSchema)
	}
	// The tools are listed in the Toolset's order.
	if !slices.Equal(names, []string{"start_job", "job_list", "job_output", "job_wait", "job_kill"}) {
		t.Fatalf("tools = %v", names)
	}

	call := func(name string, args map[string]any) json.RawMessage {
		t.Helper()
		data, _ := json.Marshal(args)
		validates(t, in[name], name+"'s input schema", data)
		res := ok(t, name, callTool(t, cs, name, args))
		validates(t, out[name], name+"'s output schema", res)
		return res
	}
	var started struct{ JobID jobs.JobID }
	_ = json.Unmarshal(call("start_job", map[string]any{"label": "build"}), &started)
	id := started.JobID.String()
	rt.job(started.JobID).write("compiling\n")
	rt.job(started.JobID).UpdateDetail("1/2")

	if got := call("job_list", map[string]any{}); !strings.Contains(string(got), `"detail":"1/2"`) {
		t.Errorf("job_list = %s, want the job's progress line", got)
	}
	call("job_output", map[string]any{"jobId": id, "maxBytes": 4})
	rt.job(started.JobID).Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Output: "built"}, nil)
	var waited tools.JobWaitResult
	_ = json.Unmarshal(call("job_wait", map[string]any{"jobId": id, "timeoutSeconds": 5}), &waited)
	if !waited.Finished || !strings.Contains(waited.Notice, id) {
		t.Errorf("job_wait = %+v", waited)
	}
	call("job_kill", map[string]any{"jobId": id})

	e := failed(t, "job_output", callTool(t, cs, "job_output", map[string]any{"jobId": "sh-1"}))
	if e.Code != tools.ErrorCodeInvalidArguments || !strings.Contains(e.Message, "jobId") {
		t.Errorf("a bad id: %+v", e)
	}
	if e := failed(t, "start_job", callTool(t, cs, "start_job", map[string]any{})); e.Code != tools.ErrorCodeInvalidArguments {
		t.Errorf("the start tool's own error: %+v", e)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"}); err == nil {
		t.Error("an unknown tool was not a protocol error")
	}
}

// bearer maps tokens to sessions, as a runtime's authentication would.
func bearer(tokens map[string]jobs.SessionID) func(*http.Request) (jobs.SessionID, error) {
	return func(r *http.Request) (jobs.SessionID, error) {
		tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if s, ok := tokens[tok]; found && ok {
			return s, nil
		}
		return "", fmt.Errorf("no such token")
	}
}

// withToken is an HTTP client that sends token.
func withToken(token string) *http.Client {
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func serveHTTP(t testing.TB, rt *runtime) (*mcpserver.Handler, *httptest.Server) {
	t.Helper()
	h, err := mcpserver.NewHandler(bearer(map[string]jobs.SessionID{"alice-token": "alice", "bob-token": "bob"}), func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return rt.tools.For(s), nil })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
		srv.Close()
	})
	return h, srv
}

func connectHTTP(t *testing.T, url, token string) *sdk.ClientSession {
	t.Helper()
	transport := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: withToken(token), MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatalf("connect with %s: %v", token, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Over streamable HTTP each MCP session is its caller's jobgen session:
// bob sees nothing of alice's jobs, cannot read or kill them, and holding
// the id of alice's MCP session gets him nothing.
func TestMCPOverHTTPFencesSessions(t *testing.T) {
	rt := newRuntime(t)
	_, srv := serveHTTP(t, rt)
	alice := connectHTTP(t, srv.URL, "alice-token")
	bob := connectHTTP(t, srv.URL, "bob-token")

	var started struct{ JobID jobs.JobID }
	_ = json.Unmarshal(ok(t, "start_job", callTool(t, alice, "start_job", map[string]any{"label": "alice's build"})), &started)
	rt.job(started.JobID).write("alice's secret\n")
	id := started.JobID.String()

	if got := string(ok(t, "job_list", callTool(t, bob, "job_list", map[string]any{}))); got != `{"jobs":[]}` {
		t.Errorf("bob's job_list = %s, want no jobs", got)
	}
	for _, tool := range []string{"job_output", "job_kill", "job_wait"} {
		e := failed(t, tool, callTool(t, bob, tool, map[string]any{"jobId": id}))
		if e.Code != tools.ErrorCodeUnknownJob || strings.Contains(e.Message, "secret") {
			t.Errorf("bob's %s of alice's job: %+v, want unknownJob", tool, e)
		}
	}
	if snap, _ := rt.reg.Get("alice", started.JobID); snap.Status != jobs.JobStatusRunning {
		t.Errorf("alice's job is %s after bob's calls, want running", snap.Status)
	}
	var read tools.JobOutputResult
	_ = json.Unmarshal(ok(t, "job_output", callTool(t, alice, "job_output", map[string]any{"jobId": id})), &read)
	if read.Output != "alice's secret\n" {
		t.Errorf("alice reads %q, want all of her output (bob consumed nothing)", read.Output)
	}

	// bob names an MCP session id with his own credentials: the handler is
	// stateless, so an id is nothing but a header, and the call is bob's.
	sid := "alice-session"
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"job_kill","arguments":{"jobId":"` + id + `"}}}`
	for _, tc := range []struct {
		token string
		want  int
	}{
		{"bob-token", http.StatusOK},
		{"", http.StatusUnauthorized},
		{"mallory-token", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("a session id with token %q: %d, want %d", tc.token, resp.StatusCode, tc.want)
		}
		if resp.StatusCode == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("a 401 without WWW-Authenticate")
		}
		if tc.want == http.StatusOK && !strings.Contains(string(reply), `unknownJob`) {
			t.Errorf("bob's kill of alice's job with a session id: %s, want unknownJob", reply)
		}
	}
	if snap, _ := rt.reg.Get("alice", started.JobID); snap.Status != jobs.JobStatusRunning {
		t.Errorf("alice's job is %s after bob replayed her session, want running", snap.Status)
	}
	// alice's own session still works.
	if e := ok(t, "job_kill", callTool(t, alice, "job_kill", map[string]any{"jobId": id})); !strings.Contains(string(e), `"outcome":"requested"`) {
		t.Errorf("alice's kill = %s", e)
	}
}

func TestMCPHandlerRefusesWithoutASession(t *testing.T) {
	if _, err := mcpserver.NewHandler(nil, func(context.Context, jobs.SessionID) (*agenttools.Toolset, error) { return nil, nil }); err == nil || !strings.Contains(err.Error(), "session function is required") {
		t.Errorf("a handler without a session function: %v, want an error saying it is required", err)
	}
	if _, err := mcpserver.NewHandler(bearer(nil), nil); err == nil || !strings.Contains(err.Error(), "toolset function is required") {
		t.Errorf("a handler without a toolset function: %v, want an error saying it is required", err)
	}
	if _, err := mcpserver.NewHandler(bearer(nil), func(context.Context, jobs.SessionID) (*agenttools.Toolset, error) { return nil, nil }, mcpserver.WithChallenge("")); err == nil || !strings.Contains(err.Error(), `WithChallenge("")`) {
		t.Errorf("a handler with an empty challenge: %v, want an error naming WithChallenge", err)
	}
	rt := newRuntime(t)
	_, srv := serveHTTP(t, rt)
	transport := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: withToken("nobody"), MaxRetries: -1, DisableStandaloneSSE: true}
	if cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), transport, nil); err == nil {
		cs.Close()
		t.Error("a client without a session connected")
	}
}

// Close ends the open MCP sessions: a client's next call fails.
func TestMCPHandlerCloseEndsSessions(t *testing.T) {
	rt := newRuntime(t)
	h, srv := serveHTTP(t, rt)
	alice := connectHTTP(t, srv.URL, "alice-token")
	ok(t, "job_list", callTool(t, alice, "job_list", map[string]any{}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.CallTool(ctx, &sdk.CallToolParams{Name: "job_list", Arguments: map[string]any{}}); err == nil {
		t.Error("a call after Close succeeded")
	}
	transport := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: withToken("alice-token"), MaxRetries: -1, DisableStandaloneSSE: true}
	if cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, transport, nil); err == nil {
		cs.Close()
		t.Error("a session opened after Close")
	}
}
