package pgsql

import (
	"context"
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// openStore opens a store in a schema of t's own, closed and dropped when t ends.
func openStore(t *testing.T) *pgstore.Store {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(pgtest.Schema(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(ctx) })
	return s
}

func id(n byte) jobs.JobID {
	var j jobs.JobID
	j[0], j[15] = 0x10, n
	j[6], j[8] = 0x40, 0x80
	return j
}

func reg(n byte, owner jobs.SessionID, at int64) jobs.JobRegistered {
	return jobs.JobRegistered{JobID: id(n), At: at, Owner: owner, Kind: "bash", Label: "job", Ordinal: int(n), Record: n%2 == 0}
}

func settle(r jobs.JobRegistered, at int64, status jobs.JobStatus, cause jobs.SettlementCause) jobs.JobSettled {
	return jobs.JobSettled{JobID: r.JobID, At: at, Status: status, Detail: "done " + r.Label,
		ProducerReported: cause == jobs.SettlementCauseProducer, Cause: cause,
		Registration: jobs.JobRegistration{RegisteredAt: r.At, Owner: r.Owner, Kind: r.Kind, Label: r.Label,
			Ordinal: r.Ordinal, ToolCall: r.ToolCall, Record: r.Record}}
}

// TestIntervalsQueryAgreesWithTheGoProjection appends job facts of two
// sessions, v1 history from the journal's testdata and a fact of another
// vocabulary, and holds the SQL to the answers of jobhistory.Intervals over
// ReadAll.
func TestIntervalsQueryAgreesWithTheGoProjection(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	// v1 history, byte for byte as an older build wrote it.
	for rec, err := range journal.ReadFile("../../journal/testdata/jobs-v1.journal") {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, "session-1", journal.Entry{Payload: rec.Payload}); err != nil {
			t.Fatal(err)
		}
	}
	r1, r2, r3 := reg(1, "a", 1000), reg(2, "b", 1100), reg(3, "a", 1200)
	r3.ToolCall = "call-3"
	r1.Labels = map[string]string{"team": "infra", "ci": "nightly"}
	lone := reg(4, "b", 900) // settled with no registration in this journal
	facts := []struct {
		stream journal.Stream
		fact   jobs.Fact
	}{
		{"a", r1},
		{"b", r2},
		{"a", r3},
		{"b", settle(lone, 1500, jobs.JobStatusFailed, jobs.SettlementCauseTeardown)},
		{"a", settle(r1, 2000, jobs.JobStatusKilled, jobs.SettlementCauseKill)},
		{"a", settle(r3, 2500, jobs.JobStatusCompleted, jobs.SettlementCauseProducer)},
		// r2 is never settled: incomplete.
	}
	for _, f := range facts {
		p, err := jobs.EncodeFact(f.fact)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, f.stream, journal.Entry{Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append(ctx, "c", journal.Entry{Payload: []byte(`{"type":"agent/said","v":1,"data":{"text":"not a job fact"}}`)}); err != nil {
		t.Fatal(err)
	}

	want, err := jobhistory.Intervals(journal.Facts(s.ReadAll(ctx, journal.Position{}), jobs.DecodeFact))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Intervals(ctx, s.Pool(), s.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 6 {
		t.Fatalf("the Go projection found %d intervals; the fixture is wrong", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("SQL: %d intervals, Go: %d\n got %+v\nwant %+v", len(got), len(want), got, want)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("interval %d:\n SQL %+v\n  Go %+v", i, got[i], want[i])
		}
	}
}
