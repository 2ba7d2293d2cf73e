package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
)

// The demo runs to its end: alice's jobs run, are listed, waited for, read
// and killed; bob sees none of them and cannot kill them; a command runs
// as a task whose progress line moves before its result comes; a
// subagent reports, is sent more work and reports again, each report
// reaching alice, its parent.
func TestDemoStartsListsReadsWaitsForAndKillsJobs(t *testing.T) {
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := transcript(ctx, &out); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"the tools: shell, notices, job_list, job_output, job_wait, job_kill, subagent_start, send_message, report",
		`"name":"sh-1"`,
		`"status":"completed","detail":"exit status 0"`,
		`"output":"step 1\nstep 2\nstep 3\n"`,
		"bob → job_list {}\n    ← {\"jobs\":[]}",
		`← error {"code":"unknownJob"`,
		`"outcome":"requested"`,
		`"status":"killed"`,
		`"output":"listening on :9090\n"`,
		`== a promotion`,
		`"promoted":true,"output":"compiling\n"`,
		`"notice":"Job sh-3 \"a slow build\"`,
		`"output":"linking\nbuilt\n"`,
		`"resultType":"task"`,
		`… tasks/get: working, "step `,
		`"status":"completed","statusMessage":"exit status 0"`,
		`progress: step 1 of 3\nprogress: step 2 of 3\nprogress: step 3 of 3\ndone\n`,
		`reported:` + "\n" + `I looked into "look at the build log": nothing is wrong there.`,
		`reported:` + "\n" + `I looked into "and the test log?": nothing is wrong there.`,
		"== done",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the demo did not print %q:\n%s", want, got)
		}
	}
}

// Over stdio the client is one session; when it hangs up, the server
// shuts down in order and returns.
func TestStdioServesOneSessionUntilTheClientHangsUp(t *testing.T) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- serveStdio(context.Background(), toServer, fromServer, "") }()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("over stdio the client negotiated %s, want 2026-07-28", v)
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	var started struct{ JobID string }
	if err := json.Unmarshal([]byte(call("shell", map[string]any{"command": "echo hello from stdio"})), &started); err != nil {
		t.Fatal(err)
	}
	call("job_wait", map[string]any{"jobId": started.JobID, "timeoutSeconds": 30})
	var read tools.JobOutputResult
	if err := json.Unmarshal([]byte(call("job_output", map[string]any{"jobId": started.JobID})), &read); err != nil || read.Output != "hello from stdio\n" {
		t.Errorf("job_output = %+v (%v)", read, err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serveStdio = %v, want nil once the client hung up", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serveStdio did not return after the client hung up")
	}
}

// The shell tool's schemas, inferred from its Go types, accept its own
// arguments and results.
func TestShellToolSchemasValidateItsExamples(t *testing.T) {
	rt, err := newRuntime("")
	if err != nil {
		t.Fatal(err)
	}
	defer rt.reg.Close(context.Background())
	shell := rt.tools.For("s").Tools()[0]
	compile := func(schema json.RawMessage) *jsonschema.Schema {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("https://jobgen.test/s.json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("https://jobgen.test/s.json")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	check := func(s *jsonschema.Schema, doc string, ok bool) {
		t.Helper()
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err := s.Validate(v); (err == nil) != ok {
			t.Errorf("validate %s: %v, want ok=%v", doc, err, ok)
		}
	}
	in, out := compile(shell.InputSchema), compile(shell.OutputSchema)
	check(in, `{"command": "ls", "label": "list"}`, true)
	check(in, `{"label": "list"}`, false)
	check(in, `{"command": "ls", "extra": 1}`, false)
	res, err := rt.tools.For("s").Call(context.Background(), "shell", json.RawMessage(`{"command": "true"}`))
	if err != nil {
		t.Fatal(err)
	}
	check(out, string(res), true)
	if _, err := rt.tools.For("s").Call(context.Background(), "shell", json.RawMessage(`{"cmd": "true"}`)); err == nil {
		t.Error("shell took a misspelt argument")
	}
}

// Over HTTP a request without a known token opens no session.
func TestHTTPRefusesAnUnknownToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = serveHTTP(context.Background(), ln, &out, "", func(ctx context.Context, url string, tokens map[jobs.SessionID]string) error {
		transport := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer("not-a-token")}, MaxRetries: -1, DisableStandaloneSSE: true}
		if cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, transport, nil); err == nil {
			cs.Close()
			t.Error("a client with an unknown token connected")
		}
		c, err := connect(ctx, &out, url, "alice", tokens["alice"])
		if err != nil {
			return err
		}
		return c.cs.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Shutdown fits the teardown bound even when a client left a connection
// open on which it never sent a request: net/http's Shutdown counts such a
// connection busy for five seconds, and an HTTP client leaves one behind
// whenever it dials for a request that an idle connection then serves.
func TestShutdownDoesNotWaitForAConnectionThatNeverSentARequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	start := time.Now()
	err = serveHTTP(context.Background(), ln, &out, "", func(ctx context.Context, url string, tokens map[jobs.SessionID]string) error {
		c, err := connect(ctx, &out, url, "alice", tokens["alice"])
		if err != nil {
			return err
		}
		if _, err := c.call(ctx, "job_list", map[string]any{}); err != nil {
			return err
		}
		if err := c.cs.Close(); err != nil {
			return err
		}
		silent, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		t.Cleanup(func() { silent.Close() })
		start = time.Now()
		return nil
	})
	if err != nil {
		t.Fatalf("serveHTTP = %v, want a clean shutdown", err)
	}
	if took := time.Since(start); took > jobs.DefaultTeardownBound/2 {
		t.Errorf("the shutdown took %v with a silent connection open, want well within the bound of %v", took, jobs.DefaultTeardownBound)
	}
}
