package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
)

// A peerListInput and peerListOutput are the minimal tool's: no argument,
// a list of nothing, as job_list answers a session without jobs.
type (
	peerListInput  struct{}
	peerListOutput struct {
		Jobs []string `json:"jobs"`
	}
)

// peerServer is the Go SDK's own minimal tool server over stateless
// streamable HTTP: one tool, registered with sdk.AddTool (whose input and
// output schemas the SDK infers and checks), no authentication, no task
// hooks. It is the peer a call to jobgen's handler is measured against.
func peerServer() http.Handler {
	s := sdk.NewServer(&sdk.Implementation{Name: "peer", Version: "v0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "job_list", Description: "job_list lists nothing."},
		func(context.Context, *sdk.CallToolRequest, peerListInput) (*sdk.CallToolResult, peerListOutput, error) {
			return nil, peerListOutput{Jobs: []string{}}, nil
		})
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
}

// BenchmarkToolCallVsSDK measures one tools/call of job_list over
// streamable HTTP, a whole request from a client at 2026-07-28 (and at
// 2025-11-25, stateless), against the same call of the Go SDK's minimal
// tool server (peerServer) in the same run: what jobgen's handler
// (authentication, the caller's Toolset, the task lift, the strict schema,
// the registry's list) adds to the SDK's own path.
func BenchmarkToolCallVsSDK(b *testing.B) {
	rt := newRuntime(b)
	h, err := mcpserver.NewHandler(bearer(map[string]jobs.SessionID{"alice-token": "alice"}), func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return rt.tools.For(s), nil })
	if err != nil {
		b.Fatal(err)
	}
	ours := httptest.NewServer(h)
	defer ours.Close()
	peer := httptest.NewServer(peerServer())
	defer peer.Close()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "bench", "version": "v0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		params := map[string]any{"name": "job_list", "arguments": map[string]any{}}
		if version >= "2026-07-28" {
			params["_meta"] = meta
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		b.Run(version, func(b *testing.B) {
			pairedCalls(b, "jobgen", "peer", func() { postToolCall(b, ours.URL, version, body, `"jobs":[]`) },
				func() { postToolCall(b, peer.URL, version, body, `"jobs":[]`) })
		})
	}
}

// pairedBatch is how many calls of one side pairedCalls times at once.
const pairedBatch = 16

// pairedCalls times batches of measured and of baseline calls, alternated
// (measured first, then baseline first), each b.Loop iteration one batch
// of each, and reports each side's wall time per call as
// "NAME-ns/op": a load burst from another process lands on both alike,
// which timing the sides in separate benchmarks does not give on a shared
// machine. Wall time, not the thread's CPU time: a call's work is on the
// server's goroutines.
func pairedCalls(b *testing.B, measuredName, baselineName string, measured, baseline func()) {
	for range pairedBatch { // warm both: connections, pools
		measured()
		baseline()
	}
	var tm, tb time.Duration
	batch := func(f func()) time.Duration {
		t0 := time.Now()
		for range pairedBatch {
			f()
		}
		return time.Since(t0)
	}
	first := true
	for b.Loop() {
		if first {
			tm += batch(measured)
			tb += batch(baseline)
		} else {
			tb += batch(baseline)
			tm += batch(measured)
		}
		first = !first
	}
	calls := float64(b.N * pairedBatch)
	b.ReportMetric(float64(tm)/calls, measuredName+"-ns/op")
	b.ReportMetric(float64(tb)/calls, baselineName+"-ns/op")
	b.ReportMetric(0, "ns/op") // the batches' figures are the measure
}

// postToolCall posts one tools/call as alice at version and checks the
// answer holds want.
func postToolCall(b *testing.B, url, version string, body []byte, want string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer alice-token")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Method", "tools/call")
	var p struct {
		Params struct{ Name string }
	}
	_ = json.Unmarshal(body, &p)
	req.Header.Set("Mcp-Name", p.Params.Name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(data), want) {
		b.Fatalf("%s answered %d %s", url, resp.StatusCode, data)
	}
}
