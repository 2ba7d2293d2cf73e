package registry

import (
	"context"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// BenchmarkPromote is the cost of registering a running producer
// (Promote, decision 0192) beside a plain Start of the same recording job,
// in one run: each op registers an owned recording job with an in-memory
// Recorder, settles it through its face and waits for it. The two differ
// only in what the registered fact carries.
func BenchmarkPromote(b *testing.B) {
	commandStarted := time.Now().Add(-time.Minute)
	b.Run("start", func(b *testing.B) {
		benchRegisterRecording(b, func(r *Registry, ctx context.Context, s jobs.JobStart) (jobs.JobSnapshot, error) {
			return r.Start(ctx, s)
		})
	})
	b.Run("promote", func(b *testing.B) {
		benchRegisterRecording(b, func(r *Registry, ctx context.Context, s jobs.JobStart) (jobs.JobSnapshot, error) {
			return r.Promote(ctx, s, commandStarted)
		})
	})
}

func benchRegisterRecording(b *testing.B, register func(*Registry, context.Context, jobs.JobStart) (jobs.JobSnapshot, error)) {
	rec := &benchRecorder{facts: make([]jobs.Fact, 0, 4096)}
	r := New(WithRecorder(rec), WithLimits(Limits{MaxPerOwner: 1 << 30}))
	ctx := context.Background()
	var face jobs.RecordingJob
	start := jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "sh", Label: "make", Owner: "session"},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			face = job
			return faceHooks, nil
		},
	}
	completed := jobs.JobOutcome{Status: jobs.JobStatusCompleted}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		snap, err := register(r, ctx, start)
		if err != nil {
			b.Fatal(err)
		}
		face.Settle(completed, nil)
		if _, settled, err := r.Wait(ctx, "session", snap.ID, 0); err != nil || !settled {
			b.Fatalf("Wait = %v, %v", settled, err)
		}
		if n++; n%4096 == 0 {
			b.StopTimer()
			if err := r.DisposeOwner(ctx, "session"); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
}

// BenchmarkPairedPromote is BenchmarkPromote's two sides in alternating
// batches (see paired), so that the load of a shared machine lands on both
// alike: measured-ns/op is a promotion, baseline-ns/op a plain start of the
// same recording job, each with its settlement and wait.
func BenchmarkPairedPromote(b *testing.B) {
	commandStarted := time.Now().Add(-time.Minute)
	side := func(register func(*Registry, context.Context, jobs.JobStart) (jobs.JobSnapshot, error)) func() {
		r := New(WithRecorder(&benchRecorder{facts: make([]jobs.Fact, 0, 4096)}), WithLimits(Limits{MaxPerOwner: 1 << 30}))
		ctx := context.Background()
		var face jobs.RecordingJob
		start := jobs.RecordingJobStart{
			JobStartCommon: jobs.JobStartCommon{Kind: "sh", Label: "make", Owner: "session"},
			Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
				face = job
				return faceHooks, nil
			},
		}
		completed := jobs.JobOutcome{Status: jobs.JobStatusCompleted}
		n := 0
		return func() {
			snap, err := register(r, ctx, start)
			if err != nil {
				b.Fatal(err)
			}
			face.Settle(completed, nil)
			if _, settled, err := r.Wait(ctx, "session", snap.ID, 0); err != nil || !settled {
				b.Fatalf("Wait = %v, %v", settled, err)
			}
			if n++; n%4096 == 0 { // both sides keep their tables alike small
				if err := r.DisposeOwner(ctx, "session"); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	promote := side(func(r *Registry, ctx context.Context, s jobs.JobStart) (jobs.JobSnapshot, error) {
		return r.Promote(ctx, s, commandStarted)
	})
	start := side(func(r *Registry, ctx context.Context, s jobs.JobStart) (jobs.JobSnapshot, error) {
		return r.Start(ctx, s)
	})
	paired(b, 256, promote, start)
}
