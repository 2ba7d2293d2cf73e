package mcpserver_test

import (
	"context"
	"net/http/httptest"
	goruntime "runtime"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
)

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// openSessions opens n MCP sessions as alice, calls job_list in each, and
// closes them unless keep; it returns those it kept open.
func openSessions(tb testing.TB, url string, n int, keep bool) (open []*sdk.ClientSession) {
	tb.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	for range n {
		transport := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: withToken("alice-token"), MaxRetries: -1, DisableStandaloneSSE: true}
		cs, err := client.Connect(context.Background(), transport, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "job_list", Arguments: map[string]any{}}); err != nil {
			tb.Fatal(err)
		}
		if keep {
			open = append(open, cs)
		} else {
			_ = cs.Close()
		}
	}
	return open
}

// waitBound waits, at most a while, until h holds want bindings.
func waitBound(tb testing.TB, h *mcpserver.Handler, want int) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for h.Bound() != want {
		if time.Now().After(deadline) {
			tb.Fatalf("the handler holds %d bindings, want %d", h.Bound(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func newHandler(tb testing.TB, rt *runtime, timeout time.Duration) (*mcpserver.Handler, *httptest.Server) {
	tb.Helper()
	h, err := mcpserver.NewHandler(mcpserver.HandlerOptions{
		Session:        bearer(map[string]jobs.SessionID{"alice-token": "alice"}),
		Toolset:        func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return rt.tools.For(s), nil },
		SessionTimeout: timeout,
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Close(ctx)
		srv.Close()
	})
	return h, srv
}

// The handler's memory is bounded by the MCP sessions that are open: one
// opened, used and closed, or one left idle until its timeout, leaves no
// binding behind.
func TestMCPSessionsThatEndLeaveNothingBehind(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		keep    bool
	}{
		{"closed by the client", 0, false},
		{"timed out while idle", time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := newRuntime(t)
			h, srv := newHandler(t, rt, tc.timeout)
			open := openSessions(t, srv.URL, 50, tc.keep)
			waitBound(t, h, 0)
			for _, cs := range open {
				_ = cs.Close()
			}
		})
	}
}

// BenchmarkMCPSessionMemory reports the heap the handler keeps per 1,000
// MCP sessions opened, used once and closed (or timed out while idle).
func BenchmarkMCPSessionMemory(b *testing.B) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		keep    bool
	}{
		{"closed", 0, false},
		{"idle-timeout", time.Second, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rt := newRuntime(b)
			h, srv := newHandler(b, rt, tc.timeout)
			openSessions(b, srv.URL, 20, false) // warm the connection pool
			before := liveHeap()
			b.ResetTimer()
			var open []*sdk.ClientSession
			for range b.N {
				open = append(open, openSessions(b, srv.URL, 1000, tc.keep)...)
			}
			b.StopTimer()
			if tc.keep {
				waitBound(b, h, 0) // idle sessions time out
			}
			for _, cs := range open { // the clients' side of them, after the server's timed out
				_ = cs.Close()
			}
			after := liveHeap()
			b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), "heap-B/1000-sessions")
			b.ReportMetric(float64(h.Bound()), "bindings-left")
		})
	}
}
