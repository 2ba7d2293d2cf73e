package jobhistory

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
	"github.com/jobgen/jobgen/journal"
)

// benchRecords is how many records BenchmarkWriteIntervals's journal holds;
// JOBHISTORY_BENCH_RECORDS overrides it (the scoreboard measures 1,000,000).
func benchRecords(b *testing.B) int {
	n := 1_000_000
	if s := os.Getenv("JOBHISTORY_BENCH_RECORDS"); s != "" {
		fmt.Sscan(s, &n)
	}
	return n
}

// writeBenchJournal writes n records, n/2 jobs each registered and settled,
// ten at a time in flight, across 16 sessions.
func writeBenchJournal(tb testing.TB, path string, n int) {
	s, err := journal.Open(path, journal.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		tb.Fatal(err)
	}
	rec := journal.NewRecorder(s, jobs.EncodeFact, StreamOf)
	for i := 0; i < n/2; i++ {
		r := testjobs.Registered(i)
		r.Owner = jobs.SessionID(fmt.Sprintf("session-%d", i%16))
		if err := rec.Record(r); err != nil {
			tb.Fatal(err)
		}
		if i >= 10 {
			st := testjobs.Settled(i-10, jobs.JobStatusCompleted, true)
			st.Registration.Owner = jobs.SessionID(fmt.Sprintf("session-%d", (i-10)%16))
			if err := rec.Record(st); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := s.Close(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkWriteIntervals is the scoreboard's `journal intervals` on a journal of
// a million records, table and JSON, against its baseline in the same run: a
// checking pass over the same file (journal.Check), which reads and verifies
// every record without decoding facts. Each op is one whole pass.
//
//	go test ./jobhistory -run '^$' -bench WriteIntervals -benchtime 1x -count 3
func BenchmarkWriteIntervals(b *testing.B) {
	path := filepath.Join(b.TempDir(), "million.journal")
	writeBenchJournal(b, path, benchRecords(b))
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, err := journal.Check(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, asJSON := range []bool{false, true} {
		b.Run(fmt.Sprintf("json=%v", asJSON), func(b *testing.B) {
			for b.Loop() {
				var opts []WriteOption
				if asJSON {
					opts = append(opts, WithJSON())
				}
				if err := WriteIntervals(io.Discard, journal.FileFacts(path, jobs.DecodeFact), opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
