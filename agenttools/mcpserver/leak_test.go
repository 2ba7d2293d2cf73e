package mcpserver_test

import (
	"context"
	goruntime "runtime"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// openSessions opens n MCP sessions as alice at version (the client's
// newest when empty), calls job_list in each, and
// closes them unless keep; it returns those it kept open.
func openSessions(tb testing.TB, url, version string, n int, keep bool) (open []*sdk.ClientSession) {
	tb.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	for range n {
		transport := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: withToken("alice-token"), MaxRetries: -1, DisableStandaloneSSE: true}
		cs, err := client.Connect(context.Background(), transport, &sdk.ClientSessionOptions{ProtocolVersion: version})
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

// The handler keeps nothing per client: MCP sessions opened (at 2026-07-28
// and at an older version's initialize), used and closed, leave the heap
// where it was, give or take noise far below the 4.7 KB a session once
// cost.
func TestMCPSessionsLeaveNothingBehind(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		keep    bool
	}{
		{"2026-07-28, closed", "", false},
		{"2025-06-18, closed", "2025-06-18", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := newRuntime(t)
			_, srv := serveHTTP(t, rt)
			openSessions(t, srv.URL, tc.version, 20, false) // warm the connection pool
			before := liveHeap()
			open := openSessions(t, srv.URL, tc.version, 300, tc.keep)
			after := liveHeap()
			if grown := int64(after) - int64(before); grown > 300*1024 {
				t.Errorf("300 sessions grew the heap by %d bytes, want well under 1 KiB a session", grown)
			}
			for _, cs := range open {
				_ = cs.Close()
			}
		})
	}
}

// BenchmarkMCPSessionMemory reports the heap kept per 1,000 MCP sessions
// opened, used once and closed, at 2026-07-28 and at an older version.
func BenchmarkMCPSessionMemory(b *testing.B) {
	for _, version := range []string{"2026-07-28", "2025-06-18"} {
		b.Run(version, func(b *testing.B) {
			rt := newRuntime(b)
			_, srv := serveHTTP(b, rt)
			openSessions(b, srv.URL, version, 20, false) // warm the connection pool
			before := liveHeap()
			b.ResetTimer()
			for range b.N {
				openSessions(b, srv.URL, version, 1000, false)
			}
			b.StopTimer()
			after := liveHeap()
			b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), "heap-B/1000-sessions")
		})
	}
}
