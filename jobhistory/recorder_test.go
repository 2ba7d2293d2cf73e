package jobhistory

import (
	"context"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
	"github.com/jobgen/jobgen/journal"
)

// Every job fact has a record id of its own, the same every time it is
// recorded: a retried registration or settlement of a job lands once,
// and another job's, or another fact of the same job, is another record.
func TestRecordIDsAreOnePerJobAndFact(t *testing.T) {
	facts := []jobs.Fact{
		testjobs.Registered(1), testjobs.Settled(1, jobs.JobStatusCompleted, true),
		testjobs.Registered(2), testjobs.Settled(2, jobs.JobStatusKilled, false),
	}
	seen := map[string]jobs.Fact{}
	for _, f := range facts {
		id := RecordID(f)
		if id == "" || len(id) > journal.MaxIDBytes {
			t.Fatalf("%T: record id %q", f, id)
		}
		if other, ok := seen[id]; ok {
			t.Fatalf("%T and %T share the record id %q", f, other, id)
		}
		seen[id] = f
	}
	again := testjobs.Settled(1, jobs.JobStatusFailed, false) // the same job's settlement, recorded anew
	if RecordID(again) != RecordID(facts[1]) {
		t.Fatalf("a job's settled fact got %q, then %q", RecordID(facts[1]), RecordID(again))
	}
}

// The registry's Recorder puts each fact in its owner's stream under its
// record id, so recording a fact twice stores it once.
func TestNewRecorderStoresAFactOnceUnderItsID(t *testing.T) {
	path := t.TempDir() + "/jobs.journal"
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(context.Background())
	rec := NewRecorder(store)
	f := testjobs.Registered(1)
	for range 2 {
		if err := rec.Record(f); err != nil {
			t.Fatal(err)
		}
	}
	var got []journal.Record
	for r, err := range store.ReadStream(context.Background(), StreamOf(f), 0) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 1 || got[0].ID != RecordID(f) {
		t.Fatalf("the stream holds %d records (%+v), want the fact once under %q", len(got), got, RecordID(f))
	}
}
