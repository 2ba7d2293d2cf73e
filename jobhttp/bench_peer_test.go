package jobhttp_test

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
)

// benchRawBroadcast is the peer of BenchmarkAppendWithFollowers: the least
// any server could do to deliver what 1,000 followers of a busy job get —
// no HTTP, no SSE, no registry read, no encoding, one write per flush per
// connection — while the producer appends. Every flush interval it
// publishes one window of the job's output as encoded follow frames (the
// bytes a share publishes when the producer outruns the window); a writer
// per loopback TCP connection sends the newest publication whenever it is
// free, skipping those it fell behind on, as a lagging follower jumps. The
// producer's slowdown here is what moving those bytes through this
// machine's kernel costs, whoever does it.
func benchRawBroadcast(b *testing.B, n int) {
	s := newServer(b, jobhttp.Options{})
	_, p := s.startRecording("alice", "busy", 0)
	window := windowEvents(b)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	var pub struct {
		sync.Mutex
		seq     int
		changed chan struct{}
	}
	pub.changed = make(chan struct{})
	done := make(chan struct{})
	var wg sync.WaitGroup
	var delivered atomic.Int64
	for range n {
		client, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		server, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(2)
		go func() { // the reader: counts the windows it receives
			defer wg.Done()
			buf := make([]byte, 64<<10)
			var got int64
			for {
				k, err := client.Read(buf)
				got += int64(k)
				if got >= int64(len(window)) {
					delivered.Add(got / int64(len(window)))
					got %= int64(len(window))
				}
				if err != nil {
					return
				}
			}
		}()
		go func() { // the writer: the newest window whenever it is free
			defer wg.Done()
			defer server.Close()
			sent := 0
			for {
				pub.Lock()
				seq, changed := pub.seq, pub.changed
				pub.Unlock()
				if seq == sent {
					select {
					case <-changed:
						continue
					case <-done:
						return
					}
				}
				if _, err := server.Write(window); err != nil {
					return
				}
				sent = seq
			}
		}()
		defer client.Close()
	}
	go func() { // the publisher: one window per flush interval
		t := time.NewTicker(jobs.DefaultObserveFlush)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				pub.Lock()
				pub.seq++
				close(pub.changed)
				pub.changed = make(chan struct{})
				pub.Unlock()
			case <-done:
				return
			}
		}
	}()
	framesPerWindow := int64(bytes.Count(window, []byte("\n\n")))
	line := strings.Repeat("z", 63) + "\n"
	for start := time.Now(); time.Since(start) < 5*jobs.DefaultObserveFlush; {
		for range 1000 {
			p.job.Append(line, jobs.AppendOptions{})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, before := time.Now(), delivered.Load()
	for range b.N {
		p.job.Append(line, jobs.AppendOptions{})
	}
	elapsed, got := time.Since(start).Seconds(), delivered.Load()-before
	b.StopTimer()
	b.ReportMetric(float64(got*framesPerWindow)/elapsed, "frames/s")
	b.ReportMetric(float64(got*int64(len(window)))/elapsed/1e6, "MB/s")
	close(done)
	ln.Close()
	wg.Wait()
	p.finish(jobs.JobStatusCompleted, "")
}

// windowEvents returns the SSE events a follower of the benchmark's busy
// job receives for one retained window: the default retention in 64-byte
// chunks, cut into frames as the registry cuts them, as jobhttp encodes
// them.
func windowEvents(b *testing.B) []byte {
	s := newServer(b, jobhttp.Options{})
	snap, p := s.startRecording("alice", "window", 0)
	line := strings.Repeat("z", 63) + "\n"
	for range jobs.DefaultRetainBytes / len(line) * 4 {
		p.job.Append(line, jobs.AppendOptions{})
	}
	total := strconv.Itoa(jobs.DefaultRetainBytes * 4)
	st := s.stream("/api/jobs/"+snap.ID.String()+"/follow?from=0", "alice", nil)
	var out bytes.Buffer
	for {
		ev := st.mustNext()
		if ev.name == "output" {
			out.WriteString("id: " + ev.id + "\nevent: output\ndata: " + ev.data + "\n\n")
			if ev.id == total {
				return out.Bytes()
			}
		}
	}
}
