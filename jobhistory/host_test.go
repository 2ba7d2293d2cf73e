package jobhistory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

func testHost(t *testing.T) jobs.JobHost {
	inc, err := jobs.ParseIncarnationID("6ba7b812-9dad-11d1-80b4-00c04fd430c8")
	if err != nil {
		t.Fatal(err)
	}
	return jobs.JobHost{Name: "web-1", Incarnation: inc, Address: "http://10.0.0.7:8080"}
}

func openFile(t *testing.T) *journal.FileStore {
	t.Helper()
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	return store
}

func TestHostRecorderStampsEveryRegistrationWithItsHost(t *testing.T) {
	store := openFile(t)
	host := testHost(t)
	rec := jobhistory.NewHostRecorder(store, host)
	id := jobs.NewJobID()
	reg := jobs.JobRegistered{JobID: id, At: 1, Owner: "s1", Kind: "bash", Label: "build", Ordinal: 1}
	settled := jobs.JobSettled{JobID: id, At: 2, Status: jobs.JobStatusCompleted, ProducerReported: true, Cause: jobs.SettlementCauseProducer,
		Registration: jobs.JobRegistration{RegisteredAt: 1, Owner: "s1", Kind: "bash", Label: "build", Ordinal: 1}}
	for _, f := range []jobs.Fact{reg, settled} {
		if err := rec.Record(f); err != nil {
			t.Fatal(err)
		}
	}
	var got []jobs.Fact
	for f, err := range journal.Facts(store.ReadStream(context.Background(), "s1", 0), jobs.DecodeFact) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f)
	}
	if len(got) != 2 || got[0].(jobs.JobRegistered).Host != host || got[1].(jobs.JobSettled).Registration.Owner != "s1" {
		t.Fatalf("recorded %+v; want the registration stamped with %+v, the settlement as it was", got, host)
	}
}

func TestHeartbeatAppendsOnItsHostStreamUntilItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := openFile(t)
		host := testHost(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			done <- jobhistory.Heartbeat(ctx, store, host, jobhistory.WithEvery(2*time.Second))
		}()
		time.Sleep(5 * time.Second) // beats at 0, 2 and 4 s
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Heartbeat returned %v after its context ended, want nil", err)
		}
		var beats []jobs.HostHeartbeat
		for f, err := range journal.Facts(store.ReadStream(context.Background(), jobhistory.HostStream(host), 0), jobs.DecodeFact) {
			if err != nil {
				t.Fatal(err)
			}
			beats = append(beats, f.(jobs.HostHeartbeat))
		}
		if len(beats) != 3 {
			t.Fatalf("%d heartbeats in 5 s every 2 s, want 3: %+v", len(beats), beats)
		}
		for i, b := range beats {
			if b.Host != host || b.LeaseMs != 6000 || b.At != start.Add(time.Duration(2*i)*time.Second).UnixMilli() {
				t.Errorf("heartbeat %d: %+v; want host %v, lease 6000 ms (three periods), at %d s", i, b, host, 2*i)
			}
		}
		if s := jobhistory.HostStream(host); s != "host/web-1/6ba7b812-9dad-11d1-80b4-00c04fd430c8" {
			t.Errorf("host stream %q", s)
		}
	})
}

// Heartbeat refuses an interval or a lease it cannot beat with, naming the
// option, before it appends anything: a zero lease would make every job of
// the host look lost at once.
func TestHeartbeatRefusesAnIntervalOrLeaseThatIsNotPositive(t *testing.T) {
	store := openFile(t)
	host := testHost(t)
	for _, tc := range []struct {
		opt  jobhistory.HeartbeatOption
		want string
	}{
		{jobhistory.WithEvery(0), "WithEvery(0s)"},
		{jobhistory.WithLease(-time.Second), "WithLease(-1s)"},
	} {
		err := jobhistory.Heartbeat(context.Background(), store, host, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Heartbeat = %v, want an error naming %s", err, tc.want)
		}
	}
	for _, err := range store.ReadStream(context.Background(), jobhistory.HostStream(host), 0) {
		if err != nil {
			t.Fatal(err)
		}
		t.Fatal("a refused Heartbeat appended a heartbeat")
	}
}
