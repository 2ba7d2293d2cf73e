package registry_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// TestConcurrentUse runs producers, readers, killers and listeners at once
// (run it with -race) and checks the invariants that must survive: every
// owned job has one registered fact before one settled fact, nothing stays
// live after Close, and record offsets never go backwards.
func TestConcurrentUse(t *testing.T) {
	rec := &memRecorder{}
	r := registry.New(registry.WithRecorder(rec), registry.WithLimits(registry.Limits{MaxPerOwner: 4, RetainBytes: 256}))
	r.OnJobsChanged(func() { _ = r.List("s0") })
	r.OnOutput(func(id jobs.JobID) { _, _ = r.Get("s1", id) })

	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			owner := jobs.SessionID(fmt.Sprintf("s%d", w%3))
			for i := range 40 {
				p := newProducer().killOnCancel()
				var face jobs.RecordingJob
				snap, err := r.Start(context.Background(), recordingStart(owner, "bash", p, &face))
				if errors.Is(err, registry.ErrTooManyJobs) {
					continue
				}
				if err != nil {
					t.Errorf("Start: %v", err)
					return
				}
				var last int64
				for k := range 20 {
					face.Append(fmt.Sprintf("line %d\n", k), jobs.AppendOptions{})
					if k%5 == 0 {
						face.UpdateDetail(fmt.Sprintf("step %d", k))
					}
					rr, err := r.ReadRecord(owner, snap.ID, last)
					if err != nil {
						t.Errorf("ReadRecord: %v", err)
						return
					}
					if rr.Next < last {
						t.Errorf("record went backwards: next %d after %d", rr.Next, last)
					}
					last = rr.Next
				}
				if i%2 == 0 {
					_, _ = r.Kill(owner, snap.ID, "enough")
				} else {
					p.finish(jobs.JobStatusCompleted, "", "")
				}
				_, _, _ = r.Wait(context.Background(), owner, snap.ID, 0)
				_, _ = r.Read(owner, snap.ID)
			}
		})
	}
	wg.Wait()
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, owner := range []jobs.SessionID{"s0", "s1", "s2"} {
		for _, s := range r.List(owner) {
			if !s.Status.Terminal() {
				t.Fatalf("job %s is %s after Close", s.Name, s.Status)
			}
		}
	}
	seen := map[jobs.JobID]string{}
	for _, f := range rec.all() {
		switch f := f.(type) {
		case jobs.JobRegistered:
			if seen[f.JobID] != "" {
				t.Fatalf("job %v registered twice or after settling", f.JobID)
			}
			seen[f.JobID] = "registered"
		case jobs.JobSettled:
			if seen[f.JobID] != "registered" {
				t.Fatalf("job %v settled without a registered fact before (state %q)", f.JobID, seen[f.JobID])
			}
			seen[f.JobID] = "settled"
		}
	}
	for id, state := range seen {
		if state != "settled" {
			t.Fatalf("job %v has no settled fact", id)
		}
	}
}
