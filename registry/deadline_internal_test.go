package registry

import (
	"context"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The deadline's timer is stopped by the settlement, not left to fire into a
// settled job: a registry that keeps many settled jobs keeps no timers.
func TestDeadlineTimerStoppedAtSettlement(t *testing.T) {
	r := New()
	var face jobs.RunningJob
	snap, err := r.Start(context.Background(), jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "k", Label: "l", Timeout: time.Hour},
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			face = job
			return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	j := r.ids.get(snap.ID)
	j.sh.mu.Lock()
	timer := j.deadline
	j.sh.mu.Unlock()
	if timer == nil {
		t.Fatal("a start with a Timeout armed no timer")
	}
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	if timer.Stop() {
		t.Fatal("the timer was still armed after the settlement")
	}
	j.sh.mu.Lock()
	defer j.sh.mu.Unlock()
	if j.deadline != nil {
		t.Fatal("the settled job still holds its timer")
	}
}
