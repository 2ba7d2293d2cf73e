package jobhttp_test

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// benchRawBroadcast is the peer of BenchmarkAppendWithFollowers: the least
// any server could do to deliver what 1,000 followers of a busy job get —
// no HTTP, no SSE, no registry read, no encoding, one write per flush per
// connection — while the producer appends. Every flush interval it
// publishes one window of the job's output as encoded follow frames (the
// bytes a share publishes when the producer outruns the window); a writer
// per loopback TCP connection sends the newest publication whenever it is
// free, skipping those it fell behind on, as a lagging follower jumps. The
// readers are a child process, as the followers are. The producer's
// slowdown here is what moving those bytes through this machine costs,
// whoever does it.
func benchRawBroadcast(b *testing.B, n int) {
	s := newServer(b, nil)
	_, p := s.startRecording("alice", "busy", 0)
	window := windowEvents(b)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	pub := &publication{changed: make(chan struct{})}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // one writer per connection the readers open
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
	wg.Add(1)
	go func() { // one window per flush interval
		defer wg.Done()
		t := time.NewTicker(jobs.DefaultObserveFlush)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				pub.next()
			case <-done:
				return
			}
		}
	}()
	readers := startFollowerProcess(b, "raw", ln.Addr().String(), n)
	measureAppends(b, p.job, readers)
	close(done)
	ln.Close()
	readers.stop()
	wg.Wait()
	p.finish(jobs.JobStatusCompleted, "")
}

// A publication is the newest window's number and the channel its
// successor closes.
type publication struct {
	sync.Mutex
	seq     int
	changed chan struct{}
}

func (pub *publication) next() {
	pub.Lock()
	defer pub.Unlock()
	pub.seq++
	close(pub.changed)
	pub.changed = make(chan struct{})
}

// send writes the newest window to conn whenever it is free, until done or
// a write fails.
func (pub *publication) send(conn net.Conn, window []byte, done <-chan struct{}) {
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
		if _, err := conn.Write(window); err != nil {
			return
		}
		sent = seq
	}
}

// windowEvents returns the SSE events a follower of the benchmark's busy
// job receives for one retained window: the default retention in 64-byte
// chunks, cut into frames as the registry cuts them, as jobhttp encodes
// them.
func windowEvents(b *testing.B) []byte {
	s := newServer(b, nil)
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
