package jobhttp_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
)

var blankLine = []byte("\n\n")

// BenchmarkAppendWithFollowers measures the producer's Append of 64 bytes on
// a busy job with no follower (the baseline) and with 1,000 SSE followers
// over loopback HTTP, in the same run (goal: ≤ 1.5× the baseline). It also
// reports the events and bytes per second the followers received and the
// server's heap per follower. The followers live in a child process, as
// browsers live on other machines: the server's process runs the server
// alone. peer=raw-tcp-1000 is the same producer while the same windows reach
// 1,000 raw TCP connections (see benchRawBroadcast): what the machine
// charges the producer for the bytes alone. paired=sse-vs-raw-tcp-1000 runs
// those two in alternating blocks of one run (see benchFanoutPaired).
//
// It measures the steady state: before the timer starts, the producer
// appends for warmUp, long enough for every follower to be awake and
// streaming, and the figures mean something only when the timed appends
// span many flush intervals (jobs.DefaultObserveFlush): run it with
// -benchtime=Nx, N at least 1,000,000 (make scoreboard does).
func BenchmarkAppendWithFollowers(b *testing.B) {
	b.Run("peer=raw-tcp-1000", func(b *testing.B) { benchRawBroadcast(b, 1000) })
	b.Run("paired=sse-vs-raw-tcp-1000", func(b *testing.B) { benchFanoutPaired(b, 1000) })
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("followers=%d", n), func(b *testing.B) {
			s := newServer(b, []jobhttp.Option{jobhttp.WithMaxStreamsPerSession(n + 1)}) // its cleanup closes everything
			snap, p := s.startRecording("alice", "busy", 0)
			p.job.Append("warm\n", jobs.AppendOptions{})

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var followers *followerProcess
			if n > 0 {
				followers = startFollowerProcess(b, "sse", s.srv.URL+"/api/jobs/"+snap.ID.String()+"/follow", n)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			measureAppends(b, p.job, followers)
			if n > 0 {
				b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/float64(n), "heapB/follower")
			}
			p.finish(jobs.JobStatusCompleted, "")
		})
	}
}

// measureAppends warms the producer up, then times b.N appends of 64 bytes
// to job and reports what followers, if any, received meanwhile.
func measureAppends(b *testing.B, job jobs.RecordingJob, followers *followerProcess) {
	const warmUp = 5 * jobs.DefaultObserveFlush
	line := strings.Repeat("z", 63) + "\n"
	for start := time.Now(); time.Since(start) < warmUp; {
		for range 1000 {
			job.Append(line, jobs.AppendOptions{})
		}
	}
	var events0, read0 int64
	if followers != nil {
		events0, read0 = followers.counts(b)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		job.Append(line, jobs.AppendOptions{})
	}
	elapsed := time.Since(start).Seconds()
	b.StopTimer()
	if followers != nil {
		events, read := followers.counts(b)
		b.ReportMetric(float64(events-events0)/elapsed, "frames/s")
		b.ReportMetric(float64(read-read0)/elapsed/1e6, "MB/s")
	}
}
