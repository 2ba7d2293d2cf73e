package registry

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/armon/circbuf"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The benchmarks run each measurement beside its baseline:
//
//	go test ./registry -run '^$' -bench . -benchmem -count 3
//
// Goals (issue 3): a record append no slower than circbuf's Write and
// allocation-free once the ring is full; a 4 KiB ReadRecord within 2× of a
// 4 KiB copy; a plain job's start→settle within 2 µs and 10 allocations.

var appendSizes = []struct {
	name string
	size int
}{{"64B", 64}, {"4KiB", 4096}}

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
// coarse stamps chunks from WithCoarseChunkClock's refreshed clock instead.
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
		opts = append(opts, WithCoarseChunkClock())
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
			var buf RecordBuffer
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := r.ReadRecordInto("", snap.ID, from, &buf); err != nil || len(buf.Chunks) != size/shape.chunk {
					b.Fatalf("ReadRecordInto = %d chunks, %v", len(buf.Chunks), err)
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
