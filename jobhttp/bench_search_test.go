package jobhttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// BenchmarkHistoryOf10000Jobs times one request for a page of 50 of a
// session's 10,000 settled jobs (SearchHistory, the first page and the
// next), beside the peer that answers the whole history at once
// (ListHistory), from the same journal.
func BenchmarkHistoryOf10000Jobs(b *testing.B) {
	store := subagenttest.NewMemStore()
	for i := range 10_000 {
		reg := jobs.JobRegistered{JobID: jobs.NewJobID(), At: int64(1_700_000_000_000 + i*1000), Owner: "alice", Kind: "plain", Label: fmt.Sprint("job ", i), Ordinal: i + 1}
		settled := jobs.JobSettled{JobID: reg.JobID, At: reg.At + 500, Status: jobs.JobStatusCompleted, ProducerReported: true, Cause: jobs.SettlementCauseProducer,
			Registration: jobs.JobRegistration{RegisteredAt: reg.At, Owner: "alice", Kind: "plain", Label: reg.Label, Ordinal: reg.Ordinal}}
		for _, f := range []jobs.Fact{reg, settled} {
			p, _ := jobs.EncodeFact(f)
			if _, err := store.Append(b.Context(), "alice", journal.Entry{Payload: p}); err != nil {
				b.Fatal(err)
			}
		}
	}
	h, err := jobhttp.New(registry.New(), func(*http.Request) (jobs.SessionID, error) { return "alice", nil },
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
	)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, path string }{
		{"search-first-page", "/api/history/search?limit=50"},
		{"search-next-page", "/api/history/search?limit=50&cursor=50"},
		{"peer-whole-history", "/api/history"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost"+bc.path, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", bc.path, rec.Code)
				}
			}
		})
	}
}
