package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/generated/jobs"
)

// transcript serves streamable HTTP on a loopback port and drives it with the
// SDK's client as two sessions, alice and bob, printing every call and its
// result; then it shuts down in order and returns.
func transcript(ctx context.Context, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	return serveHTTP(ctx, ln, out, "", func(ctx context.Context, url string, tokens map[jobs.SessionID]string) error {
		return drive(ctx, out, url, tokens)
	})
}

// A client is one session's MCP client session, printing what it does.
type client struct {
	out  io.Writer
	name string
	cs   *sdk.ClientSession
}

func connect(ctx context.Context, out io.Writer, url, name, token string) (*client, error) {
	transport := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}, DisableStandaloneSSE: true}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "mcpjobs-demo", Version: "v0"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("%s connects: %w", name, err)
	}
	return &client{out: out, name: name, cs: cs}, nil
}

// bearer is an HTTP transport that sends a bearer token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// call calls a tool, prints the call and its result, and returns the
// result's text.
func (c *client) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s calls %s: %w", c.name, tool, err)
	}
	a, _ := json.Marshal(args)
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok {
			text = tc.Text
		}
	}
	mark := "←"
	if res.IsError {
		mark = "← error"
	}
	fmt.Fprintf(c.out, "%s → %s %s\n    %s %s\n", c.name, tool, a, mark, text)
	return text, nil
}

// drive is the demo's client side: alice starts two shell jobs, lists
// them, waits for one and reads it; bob sees none of them and cannot kill
// them; alice kills the other; then a foreground command of hers outlives
// its timeout and is promoted to a job, she runs a command as a task, and
// works with a subagent.
func drive(ctx context.Context, out io.Writer, url string, tokens map[jobs.SessionID]string) error {
	alice, err := connect(ctx, out, url, "alice", tokens["alice"])
	if err != nil {
		return err
	}
	defer alice.cs.Close()
	bob, err := connect(ctx, out, url, "bob", tokens["bob"])
	if err != nil {
		return err
	}
	defer bob.cs.Close()

	list, err := alice.cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	fmt.Fprintf(out, "== %s, the tools: %s\n\n", url, strings.Join(names, ", "))

	var count, server struct{ JobID string }
	steps := []func() error{
		func() error {
			return into(&count)(alice.call(ctx, "shell", map[string]any{"command": `for i in 1 2 3; do echo "step $i"; sleep 0.2; done`, "label": "count to three"}))
		},
		func() error {
			return into(&server)(alice.call(ctx, "shell", map[string]any{"command": `echo "listening on :9090"; exec sleep 60`, "label": "a server"}))
		},
		func() error { return ignore(alice.call(ctx, "job_list", map[string]any{})) },
		func() error {
			return ignore(alice.call(ctx, "job_wait", map[string]any{"jobId": count.JobID, "timeoutSeconds": 10}))
		},
		func() error { return ignore(alice.call(ctx, "job_output", map[string]any{"jobId": count.JobID})) },
		func() error { return ignore(bob.call(ctx, "job_list", map[string]any{})) },
		func() error { return ignore(bob.call(ctx, "job_kill", map[string]any{"jobId": server.JobID})) },
		func() error { return ignore(alice.call(ctx, "job_kill", map[string]any{"jobId": server.JobID})) },
		func() error {
			return ignore(alice.call(ctx, "job_wait", map[string]any{"jobId": server.JobID, "timeoutSeconds": 10}))
		},
		func() error { return ignore(alice.call(ctx, "job_output", map[string]any{"jobId": server.JobID})) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	if err := drivePromotion(ctx, alice); err != nil {
		return err
	}
	if err := driveTask(ctx, out, url, tokens["alice"]); err != nil {
		return err
	}
	if err := driveSubagent(ctx, alice); err != nil {
		return err
	}
	fmt.Fprintln(out, "\n== done: the calls end, the server stops, the subagents and the registry settle what is left, the journal closes")
	return nil
}

// drivePromotion has alice run a slow build in the foreground with a
// short timeout: it outlives it, so the call returns the job it became
// with the output so far; job_wait brings the completion notice later and
// job_output reads on right after what the call returned.
func drivePromotion(ctx context.Context, alice *client) error {
	fmt.Fprintf(alice.out, "\n== a promotion: alice runs a slow build in the foreground with a 1s timeout; it outlives it and becomes a job\n")
	var build struct{ JobID string }
	err := into(&build)(alice.call(ctx, "shell", map[string]any{
		"command": `echo "compiling"; sleep 2; echo "linking"; sleep 0.5; echo "built"`, "label": "a slow build", "timeoutSeconds": 1,
	}))
	if err != nil {
		return err
	}
	if err := ignore(alice.call(ctx, "job_wait", map[string]any{"jobId": build.JobID, "timeoutSeconds": 10})); err != nil {
		return err
	}
	return ignore(alice.call(ctx, "job_output", map[string]any{"jobId": build.JobID}))
}

// driveTask runs a shell command as an MCP task, in the 2026-07-28 form
// (the tasks extension), with raw JSON-RPC requests, since the Go SDK has
// no client side of tasks: create it, poll it while its progress line
// moves, and read its result.
func driveTask(ctx context.Context, out io.Writer, url, token string) error {
	fmt.Fprintf(out, "\n== a task (MCP 2026-07-28, extension io.modelcontextprotocol/tasks): alice runs a command as a task and polls it\n")
	w := &rawClient{out: out, url: url, token: token, version: "2026-07-28"}
	created, err := w.call(ctx, "tools/call", map[string]any{"name": "shell", "arguments": map[string]any{
		"command": `for i in 1 2 3; do echo "progress: step $i of 3"; sleep 0.3; done; echo done`, "label": "a task",
	}})
	if err != nil {
		return err
	}
	var task struct{ TaskID, Status, StatusMessage string }
	if err := json.Unmarshal(created, &task); err != nil || task.TaskID == "" {
		return fmt.Errorf("shell as a task answered %s", created)
	}
	seen := ""
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		got, err := w.quiet(ctx, "tasks/get", map[string]any{"taskId": task.TaskID})
		if err != nil {
			return err
		}
		var t struct{ Status, StatusMessage string }
		_ = json.Unmarshal(got, &t)
		if t.Status != "working" {
			_, err := w.call(ctx, "tasks/get", map[string]any{"taskId": task.TaskID})
			return err
		}
		if t.StatusMessage != seen {
			seen = t.StatusMessage
			fmt.Fprintf(out, "    … tasks/get: %s, %q\n", t.Status, t.StatusMessage)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("task %s did not finish", task.TaskID)
}

// driveSubagent has alice start a continuable subagent, read its report,
// send it a follow-up and read the report to that: each arrives as a
// notice to alice, the child's parent.
func driveSubagent(ctx context.Context, alice *client) error {
	fmt.Fprintf(alice.out, "\n== subagents: alice starts a researcher, reads its report, sends it more work\n")
	var started struct{ ChildID string }
	if err := into(&started)(alice.call(ctx, "subagent_start", map[string]any{"label": "check the build", "prompt": "look at the build log"})); err != nil {
		return err
	}
	if err := alice.waitNotices(ctx, started.ChildID, 2); err != nil { // the report, then the end of its turn
		return err
	}
	if _, err := alice.call(ctx, "send_message", map[string]any{"to": started.ChildID, "message": "and the test log?"}); err != nil {
		return err
	}
	return alice.waitNotices(ctx, started.ChildID, 2)
}

// waitNotices calls notices until n notices about child have come.
func (c *client) waitNotices(ctx context.Context, child string, n int) error {
	got := 0
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: "notices", Arguments: map[string]any{}})
		if err != nil {
			return err
		}
		var read struct{ Notices []string }
		_ = json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &read)
		for _, text := range read.Notices {
			if strings.Contains(text, child) {
				got++
			}
			fmt.Fprintf(c.out, "%s → notices {}\n    ← %s\n", c.name, text)
		}
		if got >= n {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s: %d of %d notices from %s came", c.name, got, n, child)
}

// A rawClient sends JSON-RPC requests as a client of one protocol version
// writes them, printing each exchange.
type rawClient struct {
	out                 io.Writer
	url, token, version string
}

func (w *rawClient) call(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	return w.send(ctx, method, params, true)
}

// quiet is call without the printing.
func (w *rawClient) quiet(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	return w.send(ctx, method, params, false)
}

func (w *rawClient) send(ctx context.Context, method string, params map[string]any, show bool) (json.RawMessage, error) {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    w.version,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcpjobs-demo", "version": "v0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Mcp-Protocol-Version", w.version)
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(data)) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			data = []byte(d)
		}
	}
	var msg struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return nil, fmt.Errorf("%s: %d %s", method, resp.StatusCode, data)
	}
	if show {
		delete(params, "_meta")
		p, _ := json.Marshal(params)
		fmt.Fprintf(w.out, "alice → %s %s\n    ← %s\n", method, p, data)
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, msg.Error.Message)
	}
	return msg.Result, nil
}

// into decodes a call's result into v.
func into(v any) func(string, error) error {
	return func(text string, err error) error {
		if err != nil {
			return err
		}
		return json.Unmarshal([]byte(text), v)
	}
}

func ignore(_ string, err error) error { return err }
