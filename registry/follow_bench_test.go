package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// BenchmarkFollowLatency measures the time from Append to the delivery of
// the frame carrying it, at the spec's 100 ms flush interval (goal: at most
// the interval plus 5 ms). Each iteration makes two appends: one after a
// quiet spell, which flushes at once, and one right after that flush, which
// waits out the interval — the worst case.
func BenchmarkFollowLatency(b *testing.B) {
	r := registry.New()
	p := newProducer()
	var face jobs.RecordingJob
	snap, err := r.Start(context.Background(), recordingStart("s", "bench", p, &face))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	delivered := make(chan time.Time, 16)
	go func() {
		for read := range r.Follow(ctx, "s", snap.ID, registry.FromEarliest()) {
			for _, f := range read.Frames {
				if _, ok := f.(jobs.OutputFrame); ok {
					delivered <- time.Now()
				}
			}
		}
	}()
	var quiet, busy, worst time.Duration
	for b.Loop() {
		time.Sleep(jobs.DefaultObserveFlush + 10*time.Millisecond)
		sent := time.Now()
		face.Append("after a quiet spell\n", jobs.AppendOptions{})
		quiet += (<-delivered).Sub(sent)
		sent = time.Now()
		face.Append("right after a flush\n", jobs.AppendOptions{})
		d := (<-delivered).Sub(sent)
		busy += d
		worst = max(worst, d)
	}
	b.ReportMetric(float64(quiet.Microseconds())/float64(b.N), "µs/quiet")
	b.ReportMetric(float64(busy.Microseconds())/1000/float64(b.N), "ms/batched")
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms/worst")
	p.finish(jobs.JobStatusCompleted, "", "")
}
