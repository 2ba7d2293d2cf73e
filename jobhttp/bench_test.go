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
// a busy job with no follower (the baseline) and with many SSE followers over
// loopback HTTP, in the same run. Followers must never slow the producer
// (goal: ≤ 1.1× the baseline). It also reports the frames per second the
// followers received and the heap each follower costs.
func BenchmarkAppendWithFollowers(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("followers=%d", n), func(b *testing.B) {
			s := newServer(b, jobhttp.Options{MaxStreamsPerSession: n + 1}) // its cleanup closes everything
			snap, p := s.startRecording("alice", "busy", 0)
			p.job.Append("warm\n", jobs.AppendOptions{})

			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var frames atomic.Int64
			var ready, done sync.WaitGroup
			ctx, cancel := context.WithCancel(context.Background())
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n + 1, MaxConnsPerHost: 0}}
			for range n {
				ready.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					req, _ := http.NewRequestWithContext(ctx, "GET", s.srv.URL+"/api/jobs/"+snap.ID.String()+"/follow", nil)
					req.Header.Set(sessionHeader, "alice")
					res, err := client.Do(req)
					if err != nil {
						ready.Done()
						return
					}
					defer res.Body.Close()
					// Count events with a small buffer: the heap measured
					// per follower is then mostly the server's.
					buf := make([]byte, 4<<10)
					first := true
					for {
						n, err := res.Body.Read(buf)
						if k := bytes.Count(buf[:n], []byte("event: ")); k > 0 {
							if first {
								ready.Done()
								first = false
							}
							frames.Add(int64(k))
						}
						if err != nil {
							break
						}
					}
					if first {
						ready.Done()
					}
				}()
			}
			ready.Wait()
			var after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&after)
			frames.Store(0)

			line := strings.Repeat("z", 63) + "\n"
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				p.job.Append(line, jobs.AppendOptions{})
			}
			b.StopTimer()
			// Let the followers take what the last flush window holds.
			time.Sleep(150 * time.Millisecond)
			elapsed := time.Since(start).Seconds()
			if n > 0 {
				b.ReportMetric(float64(frames.Load())/elapsed, "frames/s")
				b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/float64(n), "heapB/follower")
			}
			cancel()
			done.Wait()
			p.finish(jobs.JobStatusCompleted, "")
		})
	}
}
