package jobhttp_test

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
)

// A feed is a history the test writes as it goes: Tail yields what the
// test hands it and then waits for more. The fleet reads nothing else.
type feed struct {
	journal.Store
	recs chan journal.Record
	n    uint64
}

func (f *feed) Tail(ctx context.Context, after journal.Position) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		for {
			select {
			case <-ctx.Done():
				return
			case rec := <-f.recs:
				if !yield(rec, nil) {
					return
				}
			}
		}
	}
}

// add hands the fleet fact as the history's next record.
func (f *feed) add(t testing.TB, fact jobs.Fact) {
	t.Helper()
	payload, err := jobs.EncodeFact(fact)
	if err != nil {
		t.Fatal(err)
	}
	f.n++
	f.recs <- journal.Record{Pos: journal.Position{Minor: f.n}, Seq: f.n, Payload: payload}
}

// The fleet view keeps every job that runs on a live host, and of the jobs
// that are over (settled, or lost with their host) only the most recent
// window, across every session; of the runs of hosts, those with jobs it
// keeps or a lease not ended, and the most recently ended: feeding it
// thousands of settled jobs on hundreds of runs leaves it holding what
// runs plus the windows, while the live jobs, the recently settled ones and
// the recently lost ones still show.
func TestTheFleetViewKeepsWhatRunsAndAWindowOfWhatIsOver(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	history := &feed{recs: make(chan journal.Record, 64)}
	f, err := jobhttp.NewFleet(history, testSession, testFleetKey, jobhttp.WithLease(time.Minute), jobhttp.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f)
	t.Cleanup(func() { srv.Close(); f.Close(context.Background()) })
	fleet := &testFleet{server: &server{t: t, srv: srv}, fleet: f}

	beat := func(host jobs.JobHost, at time.Time, lease time.Duration) {
		history.add(t, jobs.HostHeartbeat{Host: host, At: at.UnixMilli(), LeaseMs: lease.Milliseconds()})
	}
	register := func(owner jobs.SessionID, host jobs.JobHost, at time.Time) jobs.JobRegistered {
		r := jobs.JobRegistered{JobID: jobs.NewJobID(), At: at.UnixMilli(), Owner: owner, Kind: "k", Label: "l", Ordinal: 1, Record: true, Host: host}
		history.add(t, r)
		return r
	}
	settle := func(r jobs.JobRegistered, at time.Time) {
		history.add(t, jobs.JobSettled{JobID: r.JobID, At: at.UnixMilli(), Status: jobs.JobStatusCompleted, ProducerReported: true,
			Registration: jobs.JobRegistration{RegisteredAt: r.At, Owner: r.Owner, Kind: r.Kind, Label: r.Label, Ordinal: r.Ordinal, Record: r.Record}})
	}
	run := func(name string) jobs.JobHost {
		return jobs.JobHost{Name: jobs.HostID(name), Incarnation: jobs.NewIncarnationID()}
	}

	live := run("host-live")
	beat(live, now, time.Hour)
	var running []jobs.JobID
	for range 10 {
		running = append(running, register("live", live, now).JobID)
	}
	const settled, sessions, perRun = 5000, 50, 10
	var first, last jobs.JobRegistered
	var host jobs.JobHost
	for i := range settled {
		at := now.Add(-2 * time.Hour).Add(time.Duration(i) * time.Millisecond)
		if i%perRun == 0 { // a host's run that ended long ago
			host = run(fmt.Sprintf("host-%d", i/perRun))
			beat(host, at, time.Minute)
		}
		r := register(jobs.SessionID(fmt.Sprintf("s%d", i%sessions)), host, at)
		settle(r, at.Add(time.Second))
		if i == 0 {
			first = r
		}
		last = r
	}
	dead := run("host-dead") // its jobs never settle: lost
	beat(dead, now.Add(-time.Hour), time.Minute)
	var lost []jobs.JobID
	for range 5 {
		lost = append(lost, register("live", dead, now.Add(-time.Hour)).JobID)
	}
	marker := register("marker", live, now) // the last record: once it shows, the view has taken every one
	fleet.waitRoster("marker", "the last job fed", func(r []fleetJob) bool { return len(r) == 1 && r[0].ID == marker.JobID })

	const window, runWindow = 1000, 100 // the fleet's defaults
	keptJobs, keptRuns := jobhttp.FleetRetained(f)
	t.Logf("after %d settled jobs on %d runs, %d live and %d lost: the view holds %d jobs and %d runs", settled, settled/perRun, len(running)+1, len(lost), keptJobs, keptRuns)
	if max := len(running) + 1 + window; keptJobs > max {
		t.Errorf("the view holds %d jobs; want at most the %d that run and a window of %d over", keptJobs, len(running)+1, window)
	}
	if max := 1 + 1 + runWindow; keptRuns > max {
		t.Errorf("the view holds %d runs of hosts; want at most the live one, the lost jobs' one and a window of %d ended", keptRuns, runWindow)
	}
	r := fleet.roster("live")
	for _, id := range running {
		if j, ok := find(r, id); !ok || j.Status != jobs.JobStatusRunning || j.Lost {
			t.Errorf("live job %s: %+v (shown %v); want it running", id, j, ok)
		}
	}
	for _, id := range lost {
		if j, ok := find(r, id); !ok || !j.Lost {
			t.Errorf("recently lost job %s: %+v (shown %v); want it shown lost", id, j, ok)
		}
	}
	if j, ok := find(fleet.roster(string(last.Owner)), last.JobID); !ok || j.Status != jobs.JobStatusCompleted {
		t.Errorf("the last job settled: %+v (shown %v); want it shown completed", j, ok)
	}
	res := fleet.request("GET", "/api/jobs/"+first.JobID.String(), string(first.Owner), nil, nil)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("the first job settled, %d settlements ago: %s; want 404, out of the window", settled, res.Status)
	}
}
