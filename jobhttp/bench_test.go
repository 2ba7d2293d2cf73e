package jobhttp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
)

// BenchmarkAppendWithFollowers measures the producer's Append of 64 bytes on
// a busy job with no follower (the baseline) and with 1,000 SSE followers
// over loopback HTTP, in the same run (goal: ≤ 1.5× the baseline). It also
// reports the events per second the followers received and the heap each
// follower costs. peer=raw-tcp-1000 is the same producer while the same
// windows reach 1,000 raw TCP connections (see benchRawBroadcast): what the
// machine charges the producer for the bytes alone.
//
// It measures the steady state: before the timer starts, the producer
// appends for warmUp, long enough for every follower to be awake and
// streaming, and the figures mean something only when the timed appends
// span many flush intervals (jobs.DefaultObserveFlush): run it with
// -benchtime=Nx, N at least 1,000,000 (make scoreboard does).
func BenchmarkAppendWithFollowers(b *testing.B) {
	const warmUp = 5 * jobs.DefaultObserveFlush
	b.Run("peer=raw-tcp-1000", func(b *testing.B) { benchRawBroadcast(b, 1000) })
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("followers=%d", n), func(b *testing.B) {
			s := newServer(b, jobhttp.Options{MaxStreamsPerSession: n + 1}) // its cleanup closes everything
			snap, p := s.startRecording("alice", "busy", 0)
			p.job.Append("warm\n", jobs.AppendOptions{})

			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ctx, cancel := context.WithCancel(context.Background())
			var events, read atomic.Int64
			ready, done := startFollowers(ctx, s, snap.ID, n, &events, &read)
			ready.Wait()
			var after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&after)

			line := strings.Repeat("z", 63) + "\n"
			for start := time.Now(); time.Since(start) < warmUp; {
				for range 1000 {
					p.job.Append(line, jobs.AppendOptions{})
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			start, events0, read0 := time.Now(), events.Load(), read.Load()
			for range b.N {
				p.job.Append(line, jobs.AppendOptions{})
			}
			elapsed, got, bytes := time.Since(start).Seconds(), events.Load()-events0, read.Load()-read0
			b.StopTimer()
			if n > 0 {
				b.ReportMetric(float64(got)/elapsed, "frames/s")
				b.ReportMetric(float64(bytes)/elapsed/1e6, "MB/s")
				b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/float64(n), "heapB/follower")
			}
			cancel()
			done.Wait()
			p.finish(jobs.JobStatusCompleted, "")
		})
	}
}

var blankLine = []byte("\n\n")

// startFollowers opens n follow streams of job id, each counting the events
// and bytes it reads into events and read; ready is done when every stream
// has read its first event, done when every stream has ended (after ctx is
// cancelled).
func startFollowers(ctx context.Context, s *server, id jobs.JobID, n int, events, read *atomic.Int64) (ready, done *sync.WaitGroup) {
	ready, done = &sync.WaitGroup{}, &sync.WaitGroup{}
	// Browsers read a stream in large pieces; so do these clients.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n + 1, ReadBufferSize: 64 << 10}}
	for range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			first := true
			defer func() {
				if first {
					ready.Done()
				}
			}()
			req, _ := http.NewRequestWithContext(ctx, "GET", s.srv.URL+"/api/jobs/"+id.String()+"/follow", nil)
			req.Header.Set(sessionHeader, "alice")
			res, err := client.Do(req)
			if err != nil {
				return
			}
			defer res.Body.Close()
			// An event ends with a blank line; JSON data never holds a raw
			// newline, so every "\n\n" (also across reads) ends one event.
			buf := make([]byte, 64<<10)
			var last byte
			for {
				k, err := res.Body.Read(buf)
				if k > 0 {
					ends := int64(bytes.Count(buf[:k], blankLine))
					if last == '\n' && buf[0] == '\n' {
						ends++
					}
					last = buf[k-1]
					if ends > 0 && first {
						ready.Done()
						first = false
					}
					events.Add(ends)
					read.Add(int64(k))
				}
				if err != nil {
					return
				}
			}
		}()
	}
	return ready, done
}
