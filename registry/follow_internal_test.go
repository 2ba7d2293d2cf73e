package registry

import (
	"context"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// TestFollowIsNotWokenByOtherJobs subscribes a stream's wake channel to one
// job and appends to another: the channel must stay empty.
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
	wake := make(chan struct{}, 1)
	j, _, _, err := r.openFollow("", snapA.ID, FromEarliest(), wake)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		b.Append("other job", jobs.AppendOptions{})
	}
	select {
	case <-wake:
		t.Fatal("appends to another job woke the stream")
	default:
	}
	a.Append("mine", jobs.AppendOptions{})
	select {
	case <-wake:
	default:
		t.Fatal("an append to the followed job did not wake the stream")
	}
	r.closeFollow(j, wake)
	if len(j.followers) != 0 {
		t.Errorf("%d followers left after closing", len(j.followers))
	}
}
