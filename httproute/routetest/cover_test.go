package routetest_test

import (
	"testing"

	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute/routetest"
)

// TestReached: a request reaches the route the handler would serve, a
// literal segment before a parameter, files last.
func TestReached(t *testing.T) {
	table := wire.Routes()
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/", "Page"},
		{"GET", "/app.mjs", "Page"},
		{"HEAD", "/api/jobs", "ListJobs"},
		{"GET", "/api/jobs/events", "WatchJobs"},
		{"GET", "/api/jobs/6ba7b810-9dad-11d1-80b4-00c04fd430c8", "GetJob"},
		{"POST", "/api/jobs/x/kill", "KillJob"},
		{"GET", "/api/jobs/x/kill", "Page"},
		{"GET", "/api/subagents/events", "WatchSubagents"},
		{"GET", "/api/subagents/s/history", "SubagentHistory"},
		{"DELETE", "/api/jobs", ""},
	} {
		got := ""
		if r := routetest.Reached(table, tc.method, tc.path); r != nil {
			got = r.Name
		}
		if got != tc.want {
			t.Errorf("%s %s reaches %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}
