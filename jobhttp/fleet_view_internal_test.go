package jobhttp

import (
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

func factRecord(t *testing.T, f jobs.Fact) journal.Record {
	t.Helper()
	payload, err := jobs.EncodeFact(f)
	if err != nil {
		t.Fatal(err)
	}
	return journal.Record{Payload: payload}
}

// A host whose lease ends and is renewed again and again turns its jobs
// lost and back each time; the marks that leaves behind are compacted, so
// the view's memory stays bounded while its window is not full, and the
// jobs are kept: they are never over for long enough to leave it.
func TestAFlappingHostLeavesTheFleetViewBounded(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	v := newFleetView(func() time.Time { return now }, time.Minute, 100, 10)
	host := jobs.JobHost{Name: "flapping", Incarnation: jobs.NewIncarnationID()}
	var recs []journal.Record
	for range 20 {
		recs = append(recs, factRecord(t, jobs.JobRegistered{JobID: jobs.NewJobID(), At: now.UnixMilli(), Owner: "s", Kind: "k", Label: "l", Ordinal: 1, Host: host}))
	}
	v.apply(recs)
	for range 1000 {
		v.apply([]journal.Record{factRecord(t, jobs.HostHeartbeat{Host: host, At: now.UnixMilli(), LeaseMs: time.Second.Milliseconds()})})
		now = now.Add(2 * time.Second) // the lease ends before the next beat
		v.rejudge()
		if len(v.lost) != 20 {
			t.Fatalf("%d jobs lost after the lease ended; want all 20", len(v.lost))
		}
	}
	if len(v.overs) > 2*20+64 || len(v.jobs) != 20 {
		t.Fatalf("after 1000 flaps the view holds %d marks for %d jobs; want at most %d marks, all 20 jobs", len(v.overs), len(v.jobs), 2*20+64)
	}
}
