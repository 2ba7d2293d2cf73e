package registry

import (
	"context"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// TestFollowIsNotWokenByOtherJobs waits on one job's output signal and
// appends to another: the signal must stay open; the job's own append closes
// it, for every waiter at once.
func TestFollowIsNotWokenByOtherJobs(t *testing.T) {
	r := New()
	var a, b jobs.RecordingJob
	hooks := jobs.Hooks{Cancel: func(string) error { return nil }, Done: func() (jobs.JobOutcome, error) { select {} }}
	start := func(face *jobs.RecordingJob) jobs.JobSnapshot {
		snap, err := r.Start(context.Background(), jobs.RecordingJobStart{
			JobStartCommon: jobs.JobStartCommon{Kind: "k", Label: "l"},
			Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
				*face = job
				return hooks, nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	snapA := start(&a)
	start(&b)
	j, _, _, _, err := r.openFollow("", snapA.ID, FromEarliest())
	if err != nil {
		t.Fatal(err)
	}
	_, first := j.followTail(0)
	_, second := j.followTail(0)
	for range 100 {
		b.Append("other job", jobs.AppendOptions{})
	}
	if closed(first) || closed(second) {
		t.Fatal("appends to another job woke the stream")
	}
	a.Append("mine", jobs.AppendOptions{})
	if !closed(first) || !closed(second) {
		t.Fatal("an append to the followed job did not wake every waiting stream")
	}
	if _, next := j.followTail(0); closed(next) {
		t.Error("the next wait was already woken: a stream would spin")
	}
}
