package jobhttp_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// writesRecorder is a ResponseRecorder that keeps each Write's bytes apart:
// what reaches the connection in one write of the server.
type writesRecorder struct {
	*httptest.ResponseRecorder
	mu     sync.Mutex
	writes [][]byte
}

func (w *writesRecorder) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, bytes.Clone(b))
	return w.ResponseRecorder.Write(b)
}

// sseEvent is one event of a write: its id, name and data.
type sseEvent struct{ id, name, data string }

// parseWrite splits a write into whole events; keep-alive comments and the
// retry line are skipped. A write that ends inside an event fails the test.
func parseWrite(t *testing.T, b []byte) []sseEvent {
	t.Helper()
	s := string(b)
	if !strings.HasSuffix(s, "\n\n") {
		t.Fatalf("a write ends inside an event: %q", s)
	}
	var out []sseEvent
	for _, block := range strings.Split(strings.TrimSuffix(s, "\n\n"), "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			switch k, v, _ := strings.Cut(line, ": "); k {
			case "id":
				ev.id = v
			case "event":
				ev.name = v
			case "data":
				ev.data = v
			}
		}
		if ev.name != "" {
			out = append(out, ev)
		}
	}
	return out
}

// TestFramesReadyTogetherReachTheConnectionInOneWrite: a follower owed
// several frames at once (one read of the record, cut into frames) gets
// them in one write of the ResponseWriter, not a write each, and they are
// still the frames a follower must see: each with its own resume id (the
// frame's Next), the text in order with no byte lost or repeated, then the
// status. It holds for a follower at the share's first frame and for one
// that resumes inside it (its own read up to the frame's end, then the
// share's).
func TestFramesReadyTogetherReachTheConnectionInOneWrite(t *testing.T) {
	line := strings.Repeat("y", 63) + "\n"
	const lines = 12
	for _, from := range []int{0, 10} {
		t.Run("from="+strconv.Itoa(from), func(t *testing.T) {
			s := newServer(t, nil, registry.WithLimits(registry.Limits{ObserveMaxFrameBytes: 100}))
			snap, p := s.startRecording("alice", "burst", 0)
			var text strings.Builder
			for i := range lines {
				chunk := strconv.Itoa(i%10) + line[1:]
				text.WriteString(chunk)
				p.job.Append(chunk, jobs.AppendOptions{})
			}
			r := httptest.NewRequest("GET", "/api/jobs/"+snap.ID.String()+"/follow?from="+strconv.Itoa(from), nil)
			r.Host = "127.0.0.1"
			r.Header.Set(sessionHeader, "alice")
			w := &writesRecorder{ResponseRecorder: httptest.NewRecorder()}
			done := make(chan struct{})
			go func() { defer close(done); s.h.ServeHTTP(w, r) }()
			// The follower has written every frame once the record's total is
			// an id it wrote; then the job ends.
			total := strconv.Itoa(text.Len())
			deadline := time.Now().Add(10 * time.Second)
			for !bytes.Contains(w.body(), []byte("id: "+total+"\n")) {
				if time.Now().After(deadline) {
					t.Fatalf("no frame up to %s after 10 s: %q", total, w.body())
				}
				time.Sleep(5 * time.Millisecond)
			}
			p.finish(jobs.JobStatusCompleted, "")
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				s.h.Close(ctx)
				t.Fatal("the follow did not end after the job")
			}

			var got strings.Builder
			next := int64(from)
			var perWrite []int
			status := false
			for _, b := range w.writes {
				outputs := 0
				for _, ev := range parseWrite(t, b) {
					switch ev.name {
					case "output":
						var f jobs.OutputFrame
						if err := f.UnmarshalJSON([]byte(ev.data)); err != nil {
							t.Fatalf("output %q: %v", ev.data, err)
						}
						if f.Lossy || len(f.Chunks) == 0 || f.Chunks[0].Offset != next || ev.id != strconv.FormatInt(f.Next, 10) {
							t.Fatalf("output with id %s at %d (lossy %v), after a frame ending at %d: want id = its next, no gap", ev.id, f.Chunks[0].Offset, f.Lossy, next)
						}
						for _, c := range f.Chunks {
							got.WriteString(c.Text)
						}
						next = f.Next
						outputs++
					case "status":
						status = true
					}
				}
				if outputs > 0 {
					perWrite = append(perWrite, outputs)
				}
			}
			if want := text.String()[from:]; got.String() != want || !status {
				t.Fatalf("the follower got %q (status %v), want %q and the status", got.String(), status, want)
			}
			// From 0: every frame in one write. From inside the first frame:
			// the rest of that frame on its own, then every other in one.
			want := []int{lines}
			if from > 0 {
				want = []int{1, lines - 1}
			}
			if !equalInts(perWrite, want) {
				t.Errorf("output frames per write %v, want %v", perWrite, want)
			}
		})
	}
}

func (w *writesRecorder) body() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.Body.Bytes())
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
