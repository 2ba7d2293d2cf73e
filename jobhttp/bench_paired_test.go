package jobhttp_test

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
)

// benchFanoutPaired is BenchmarkAppendWithFollowers' two 1,000-stream
// cases in one run, in alternating blocks, so that what other processes
// take of the machine lands on both alike: the SSE followers of one job
// and the raw TCP peer (benchRawBroadcast) are set up side by side, each
// in a child process of its own, and every block runs one of them while
// the other idles (the producer appends to the followed job, or the peer's
// publisher sends windows while the producer appends to a job no one
// follows). Each side's frames/s and the producer's ns per append are the
// totals over its own blocks; the ratio of the frames is sse over raw.
func benchFanoutPaired(b *testing.B, n int) {
	if b.N == 1 {
		return // the framework's first probe: the run that counts comes next
	}
	s := newServer(b, []jobhttp.Option{jobhttp.WithMaxStreamsPerSession(n + 1)})
	snap, followed := s.startRecording("alice", "busy", 0)
	_, alone := s.startRecording("alice", "alone", 0)
	followed.job.Append("warm\n", jobs.AppendOptions{})
	window := windowEvents(b)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	pub := &publication{changed: make(chan struct{})}
	var publishing atomic.Bool
	publishing.Store(true) // until the raw readers are ready
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				pub.send(conn, window, done)
			}()
		}
	}()
	go func() {
		defer wg.Done()
		t := time.NewTicker(jobs.DefaultObserveFlush)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if publishing.Load() {
					pub.next()
				}
			case <-done:
				return
			}
		}
	}()
	raw := startFollowerProcess(b, "raw", ln.Addr().String(), n)
	publishing.Store(false)
	sse := startFollowerProcess(b, "sse", s.srv.URL+"/api/jobs/"+snap.ID.String()+"/follow", n)

	line := strings.Repeat("z", 63) + "\n"
	type side struct {
		appends int
		elapsed time.Duration
		frames  int64
		cpu     int64 // the follower process's CPU time, ns
		server  int64 // the server process's CPU time, ns (the producer's included)
	}
	// block appends to job for d (warming up when counted is nil) and adds
	// what the side's followers received meanwhile.
	block := func(job jobs.RecordingJob, readers *followerProcess, d time.Duration, counted *side, limit int) int {
		events0, _, cpu0 := readers.countsCPU(b)
		server0 := processCPU()
		start := time.Now()
		k := 0
		for time.Since(start) < d && k < limit {
			for range 1000 {
				job.Append(line, jobs.AppendOptions{})
			}
			k += 1000
		}
		elapsed := time.Since(start)
		server := processCPU()
		events, _, cpu := readers.countsCPU(b)
		if counted != nil {
			counted.cpu += cpu - cpu0
			counted.server += server - server0
			counted.appends += k
			counted.elapsed += elapsed
			counted.frames += events - events0
		}
		return k
	}
	const blockTime = 10 * jobs.DefaultObserveFlush
	block(followed.job, sse, 5*jobs.DefaultObserveFlush, nil, 1<<62)
	publishing.Store(true)
	block(alone.job, raw, 5*jobs.DefaultObserveFlush, nil, 1<<62)
	publishing.Store(false)

	// A block ends at blockTime or at a sixth of b.N appends, whichever
	// comes first, so that a fast machine, which can make all b.N appends
	// in less than one blockTime, still alternates the sides at least three
	// times each.
	perBlock := max(b.N/6, 1000)
	var sseSide, rawSide side
	b.ResetTimer()
	for left := b.N; left > 0; {
		left -= block(followed.job, sse, blockTime, &sseSide, min(left, perBlock))
		if left <= 0 {
			break
		}
		publishing.Store(true)
		left -= block(alone.job, raw, blockTime, &rawSide, min(left, perBlock))
		publishing.Store(false)
	}
	b.StopTimer()
	if sseSide.elapsed == 0 || rawSide.elapsed == 0 {
		b.Fatalf("b.N %d did not fill a block of each side: run with -benchtime of at least 2000x", b.N)
	}
	sseRate := float64(sseSide.frames) / sseSide.elapsed.Seconds()
	rawRate := float64(rawSide.frames) / rawSide.elapsed.Seconds()
	b.ReportMetric(sseRate, "sse-frames/s")
	b.ReportMetric(rawRate, "raw-frames/s")
	b.ReportMetric(float64(sseSide.elapsed.Nanoseconds())/float64(sseSide.appends), "sse-ns/append")
	b.ReportMetric(float64(rawSide.elapsed.Nanoseconds())/float64(rawSide.appends), "raw-ns/append")
	b.ReportMetric(sseRate/rawRate, "frames-ratio")
	b.ReportMetric(float64(sseSide.cpu)/float64(sseSide.frames)/1e3, "sse-reader-cpu-us/frame")
	b.ReportMetric(float64(rawSide.cpu)/float64(rawSide.frames)/1e3, "raw-reader-cpu-us/frame")
	b.ReportMetric(float64(sseSide.server)/sseSide.elapsed.Seconds()/1e9, "sse-server-cores")
	b.ReportMetric(float64(rawSide.server)/rawSide.elapsed.Seconds()/1e9, "raw-server-cores")

	close(done)
	ln.Close()
	sse.stop()
	raw.stop()
	wg.Wait()
	followed.finish(jobs.JobStatusCompleted, "")
	alone.finish(jobs.JobStatusCompleted, "")
}
