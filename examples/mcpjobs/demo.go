package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/generated/jobs"
)

// demo serves streamable HTTP on a loopback port and drives it with the
// SDK's client as two sessions, alice and bob, printing every call and its
// result; then it shuts down in order and returns.
func demo(ctx context.Context, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	return serveHTTP(ctx, ln, out, func(ctx context.Context, url string, tokens map[jobs.SessionID]string) error {
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
// them; alice kills the other.
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
	fmt.Fprintln(out, "\n== done: the MCP sessions end, the server stops, the registry settles what is left")
	return nil
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
