package registry

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/armon/circbuf"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The benchmarks run each measurement beside its baseline:
//
//	go test ./registry -run '^$' -bench . -benchmem -count 3
//
// Goals: a record append no slower than circbuf's Write and
// allocation-free once the ring is full; a 4 KiB ReadRecord within 2× of a
// 4 KiB copy; a plain job's start→settle within 2 µs and 10 allocations.

var appendSizes = []struct {
	name  string
	size  int
	batch int // calls per batch in paired
}{{"64B", 64, 16384}, {"4KiB", 4096, 4096}}

func BenchmarkRecordAppend(b *testing.B) {
	const limit = jobs.DefaultRetainBytes
	for _, sz := range appendSizes {
		text := strings.Repeat("x", sz.size)
		raw := []byte(text)
		b.Run(sz.name+"/ring", func(b *testing.B) {
			r := newRing(limit)
			for range 2 * limit / sz.size { // fill: measure the steady state
				r.append(text, 0, 0, false)
			}
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				r.append(text, 0, 0, false)
			}
		})
		b.Run(sz.name+"/circbuf", func(b *testing.B) {
			c, err := circbuf.NewBuffer(limit)
			if err != nil {
				b.Fatal(err)
			}
			for range 2 * limit / sz.size {
				_, _ = c.Write(raw)
			}
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = c.Write(raw)
			}
		})
		b.Run(sz.name+"/copy", func(b *testing.B) {
			dst := make([]byte, limit)
			pos := 0
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				if pos+sz.size > len(dst) {
					pos = 0
				}
				pos += copy(dst[pos:], text)
			}
		})
	}
}

// startRecording starts a recording job whose producer never ends and
// returns it with its face.
func startRecording(b *testing.B, r *Registry, label string) (jobs.JobSnapshot, jobs.RecordingJob) {
	b.Helper()
	var face jobs.RecordingJob
	snap, err := r.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "bench", Label: label},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			face = job
			return blockingHooks(), nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	return snap, face
}

// BenchmarkFaceAppend is the whole path a producer's Append takes on a live
// job: clock, registry lock, ring, output signal (no listeners).
//
// coarse stamps chunks from withCoarseChunkClock's refreshed clock instead.
func BenchmarkFaceAppend(b *testing.B) {
	for _, sz := range appendSizes {
		for _, coarse := range []bool{false, true} {
			benchFaceAppend(b, sz.name, sz.size, coarse)
		}
	}
}

func benchFaceAppend(b *testing.B, name string, size int, coarse bool) {
	var opts []Option
	if coarse {
		name += "/coarse"
		opts = append(opts, withCoarseChunkClock())
	}
	b.Run(name, func(b *testing.B) {
		r := New(opts...)
		_, face := startRecording(b, r, "append")
		text := strings.Repeat("x", size)
		for range 2 * jobs.DefaultRetainBytes / size {
			face.Append(text, jobs.AppendOptions{})
		}
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			face.Append(text, jobs.AppendOptions{})
		}
	})
}

func BenchmarkReadRecord4KiB(b *testing.B) {
	const size = 4096
	for _, shape := range []struct {
		name  string
		chunk int
	}{{"64x64B", 64}, {"1x4KiB", 4096}} {
		b.Run(shape.name, func(b *testing.B) {
			r := New()
			snap, face := startRecording(b, r, "read")
			text := strings.Repeat("y", shape.chunk)
			for range jobs.DefaultRetainBytes/shape.chunk + 3 { // wrapped, full ring
				face.Append(text, jobs.AppendOptions{})
			}
			from := snap.OutputBytes
			if s, _ := r.Get("", snap.ID); s.OutputBytes > size {
				from = s.OutputBytes - size
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				rec, err := r.ReadRecord("", snap.ID, from)
				if err != nil || len(rec.Chunks) != size/shape.chunk {
					b.Fatalf("ReadRecord = %d chunks, %v", len(rec.Chunks), err)
				}
			}
		})
		b.Run("into-"+shape.name, func(b *testing.B) {
			r := New()
			snap, face := startRecording(b, r, "read")
			text := strings.Repeat("y", shape.chunk)
			for range jobs.DefaultRetainBytes/shape.chunk + 3 {
				face.Append(text, jobs.AppendOptions{})
			}
			s, _ := r.Get("", snap.ID)
			from := s.OutputBytes - size
			var buf recordBuffer
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := r.readRecordInto("", snap.ID, from, &buf); err != nil || len(buf.Chunks) != size/shape.chunk {
					b.Fatalf("readRecordInto = %d chunks, %v", len(buf.Chunks), err)
				}
			}
		})
	}
	src := bytes.Repeat([]byte("y"), size)
	b.Run("baseline-copy", func(b *testing.B) {
		dst := make([]byte, size)
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, src)
		}
	})
	b.Run("baseline-clone", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			_ = bytes.Clone(src)
		}
	})
}

// paired measures f against base in alternating batches of n calls, so that
// a load burst on a shared machine lands on both alike, and reports each's
// time per call as measured-ns/op and baseline-ns/op; which goes first
// alternates too. On Linux the time is the thread's CPU time, which time
// other processes take from it does not inflate; elsewhere wall time. What
// reading the clock itself adds to a batch is measured first and taken off,
// and n should make a batch long beside it (100 µs or more).
func paired(b *testing.B, n int, f, base func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	clock := func() time.Duration {
		if t, ok := threadCPU(); ok {
			return t
		}
		return time.Duration(time.Now().UnixNano())
	}
	reads := make([]time.Duration, 65)
	for i := range reads {
		t0 := clock()
		reads[i] = clock() - t0
	}
	slices.Sort(reads)
	overhead := reads[len(reads)/2]
	var tf, tb time.Duration
	batch := func(g func()) time.Duration {
		t0 := clock()
		for range n {
			g()
		}
		return clock() - t0 - overhead
	}
	first := true
	for b.Loop() {
		if first {
			tf += batch(f)
			tb += batch(base)
		} else {
			tb += batch(base)
			tf += batch(f)
		}
		first = !first
	}
	calls := float64(b.N * n)
	b.ReportMetric(float64(tf)/calls, "measured-ns/op")
	b.ReportMetric(float64(tb)/calls, "baseline-ns/op")
	b.ReportMetric(0, "ns/op") // the batches' figures are the measure
}

// BenchmarkPairedAppend is the scoreboard's append goals in alternating batches
// against circbuf's Write of the same bytes into a buffer of the same size
// (see paired): the ring alone (≤ 1.05× circbuf at 4 KiB), and a producer's
// Append on a live job with the default clock (≤ 4× at 64 B) and with
// withCoarseChunkClock (≤ 2× at 64 B).
func BenchmarkPairedAppend(b *testing.B) {
	const limit = jobs.DefaultRetainBytes
	for _, sz := range appendSizes {
		text := strings.Repeat("x", sz.size)
		raw := []byte(text)
		circ := func(b *testing.B) func() {
			c, err := circbuf.NewBuffer(limit)
			if err != nil {
				b.Fatal(err)
			}
			for range 2 * limit / sz.size {
				_, _ = c.Write(raw)
			}
			return func() { _, _ = c.Write(raw) }
		}
		b.Run(sz.name+"/ring", func(b *testing.B) {
			r := newRing(limit)
			for range 2 * limit / sz.size {
				r.append(text, 0, 0, false)
			}
			paired(b, sz.batch, func() { r.append(text, 0, 0, false) }, circ(b))
		})
		for _, coarse := range []bool{false, true} {
			name := sz.name + "/face"
			var opts []Option
			if coarse {
				name += "-coarse"
				opts = append(opts, withCoarseChunkClock())
			}
			b.Run(name, func(b *testing.B) {
				_, face := startRecording(b, New(opts...), "append")
				for range 2 * limit / sz.size {
					face.Append(text, jobs.AppendOptions{})
				}
				paired(b, sz.batch, func() { face.Append(text, jobs.AppendOptions{}) }, circ(b))
			})
		}
	}
}

// BenchmarkPairedClockRead is what one read of the default chunk clock (a
// monotonic clock read; see systemMillis) costs against circbuf's 64 B
// Write, in alternating batches: the part of an Append with the default
// clock that no registry code can take away.
func BenchmarkPairedClockRead(b *testing.B) {
	c, err := circbuf.NewBuffer(jobs.DefaultRetainBytes)
	if err != nil {
		b.Fatal(err)
	}
	raw := bytes.Repeat([]byte("x"), 64)
	var clock systemMillis
	var sink int64
	paired(b, 16384, func() { sink += clock.nowMilli() }, func() { _, _ = c.Write(raw) })
	runtime.KeepAlive(sink)
}

// BenchmarkPairedReadRecordInto is the scoreboard's read goal, readRecordInto of
// 4 KiB within 2× a 4 KiB copy, in alternating batches (see paired).
func BenchmarkPairedReadRecordInto(b *testing.B) {
	const size = 4096
	src, dst := bytes.Repeat([]byte("y"), size), make([]byte, size)
	for _, shape := range []struct {
		name  string
		chunk int
	}{{"64x64B", 64}, {"1x4KiB", 4096}} {
		b.Run(shape.name, func(b *testing.B) {
			r := New()
			snap, face := startRecording(b, r, "read")
			text := strings.Repeat("y", shape.chunk)
			for range jobs.DefaultRetainBytes/shape.chunk + 3 {
				face.Append(text, jobs.AppendOptions{})
			}
			s, _ := r.Get("", snap.ID)
			from := s.OutputBytes - size
			var buf recordBuffer
			read := func() {
				if err := r.readRecordInto("", snap.ID, from, &buf); err != nil || len(buf.Chunks) != size/shape.chunk {
					b.Fatalf("readRecordInto = %d chunks, %v", len(buf.Chunks), err)
				}
			}
			paired(b, 4096, read, func() { copy(dst, src) })
		})
	}
}

// benchRecorder is an in-memory Recorder that forgets facts in batches.
type benchRecorder struct {
	mu    sync.Mutex
	facts []jobs.Fact
}

func (m *benchRecorder) Record(f jobs.Fact) error {
	m.mu.Lock()
	if len(m.facts) == cap(m.facts) && len(m.facts) > 0 {
		m.facts = m.facts[:0]
	}
	m.facts = append(m.facts, f)
	m.mu.Unlock()
	return nil
}

// faceHooks belong to a producer that settles through its face.
var faceHooks = jobs.Hooks{Cancel: func(string) error { return nil }}

var instantHooks = jobs.Hooks{
	Cancel: func(string) error { return nil },
	Done:   func() (jobs.JobOutcome, error) { return jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil },
}

// blockingHooks never finish; the benchmark process ends with them.
func blockingHooks() jobs.Hooks {
	block := make(chan struct{})
	return jobs.Hooks{
		Cancel: func(string) error { return nil },
		Done:   func() (jobs.JobOutcome, error) { <-block; return jobs.JobOutcome{}, nil },
	}
}
