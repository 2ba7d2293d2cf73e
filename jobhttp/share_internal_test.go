package jobhttp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/registry"
)

// A shareFeed makes the reads a registry's follow stream would yield for a
// job whose record keeps window bytes: frames of one chunk each, the first
// of a read lossy when its cursor fell out of the window.
type shareFeed struct {
	window int
	total  int64
	cursor int64 // where the share's stream reads next
}

func (f *shareFeed) read(texts ...string) (registry.FollowRead, []jobs.OutputFrame) {
	var frames []jobs.OutputFrame
	var chunks []jobs.RecordChunk
	for _, t := range texts {
		chunks = append(chunks, jobs.RecordChunk{Offset: f.total, At: 1, Text: t})
		f.total += int64(len(t))
	}
	earliest := max(f.total-int64(f.window), 0)
	read := registry.FollowRead{Earliest: earliest, Next: f.total}
	lossy := f.cursor < earliest
	for _, c := range chunks {
		if c.Offset < earliest {
			continue
		}
		frame := jobs.OutputFrame{Chunks: []jobs.RecordChunk{c}, Next: c.Offset + int64(len(c.Text)), Lossy: lossy}
		lossy = false
		frames = append(frames, frame)
		read.Frames = append(read.Frames, frame)
	}
	f.cursor = f.total
	return read, frames
}

func mustEvent(t *testing.T, f jobs.FollowFrame) []byte {
	t.Helper()
	ev, err := frameEvent(f)
	if err != nil {
		t.Fatal(err)
	}
	return ev.Bytes()
}

// joined is the bytes a follower writes for events.
func joined(events []wire.FollowJobEvent) []byte {
	var b []byte
	for _, ev := range events {
		b = append(b, ev.Bytes()...)
	}
	return b
}

// TestAShareHandsEachCursorTheBytesOfItsFrames publishes reads into a share
// and asks it, at every offset, what a follower there gets: at an entry's
// start, the events of that entry and every later one, byte for byte what
// encoding those frames gives (the first lossy when asked); inside an entry,
// a read of its own up to the entry's end; below the entries, a catch-up,
// unless everything there is gone from the record, when it jumps lossy. The
// bytes a step hands out never change afterwards, while the share moves its
// events to new storage as it grows and drops old entries.
func TestAShareHandsEachCursorTheBytesOfItsFrames(t *testing.T) {
	sh := &share{changed: make(chan struct{})}
	feed := &shareFeed{window: 300}
	if err := sh.publish(registry.FollowRead{Frames: []jobs.FollowFrame{jobs.OpenedFrame{}}}); err != nil {
		t.Fatal(err)
	}
	type handed struct {
		got  []wire.FollowJobEvent
		want []byte
	}
	var kept []handed
	var frames []jobs.OutputFrame // every frame published, oldest first
	var froms []int64             // the cursor each was read at
	for round := range 60 {
		var texts []string
		for i := range round%4 + 1 {
			texts = append(texts, strings.Repeat(string(rune('a'+i)), 10+round%7*9))
		}
		from := feed.cursor
		read, fs := feed.read(texts...)
		if err := sh.publish(read); err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			frames, froms = append(frames, f), append(froms, from)
			from = f.Next
		}
		for i, f := range frames {
			for _, lossy := range []bool{false, true} {
				st := sh.step(froms[i], lossy)
				below := froms[i] < sh.start
				switch {
				case below && froms[i] < sh.gone:
					// Everything below the window is gone: it jumps to the
					// entry holding the window's start, lossy.
					j := sh.lastFrom(sh.gone)
					want := wantEvents(t, frames, froms, sh.entries[j].from, true)
					if got := joined(st.events); !bytes.Equal(got, want) || st.next != sh.end {
						t.Fatalf("round %d: step below the entries at %d: %d bytes to %d, want the lossy jump to %d", round, froms[i], len(got), st.next, sh.entries[j].from)
					}
				case below:
					if !st.behind {
						t.Fatalf("round %d: step at %d below the entries (from %d): %+v, want behind", round, froms[i], sh.start, st)
					}
				default:
					want := wantEvents(t, frames, froms, froms[i], lossy)
					got := joined(st.events)
					if !bytes.Equal(got, want) || st.next != sh.end {
						t.Fatalf("round %d: step at %d (lossy %v): %q to %d, want %q to %d", round, froms[i], lossy, got, st.next, want, sh.end)
					}
					kept = append(kept, handed{st.events, want})
					if mid := froms[i] + 1; mid < f.Next {
						if st := sh.step(mid, false); st.readTo != f.Next {
							t.Fatalf("round %d: step inside the entry %d..%d: %+v, want a read up to %d", round, froms[i], f.Next, st, f.Next)
						}
					}
				}
			}
		}
	}
	for i, k := range kept {
		if got := joined(k.got); !bytes.Equal(got, k.want) {
			t.Fatalf("bytes handed out in step %d changed afterwards", i)
		}
	}
	if sh.text > sh.keep+200 || len(sh.entries) == len(frames) {
		t.Errorf("the share keeps %d bytes of text in %d of %d entries, want about the window's %d", sh.text, len(sh.entries), len(frames), sh.keep)
	}
	if st := sh.step(sh.end, false); st.wait == nil {
		t.Errorf("a follower at the end does not wait: %+v", st)
	}
}

// wantEvents encodes the frames from the one read at cursor on, the first
// lossy when asked, as a follower there must receive them.
func wantEvents(t *testing.T, frames []jobs.OutputFrame, froms []int64, cursor int64, lossy bool) []byte {
	var want []byte
	for i, f := range frames {
		if froms[i] < cursor {
			continue
		}
		if froms[i] == cursor && lossy {
			f.Lossy = true
		}
		want = append(want, mustEvent(t, f)...)
	}
	return want
}

// TestAShareServesOnlyTheJobItFollows: a job removed while a slow follower
// still holds its share, and a new job under the same id, get separate
// shares; so do a job and a share whose stream failed.
func TestAShareServesOnlyTheJobItFollows(t *testing.T) {
	id := jobs.NewJobID()
	reg := registry.New(registry.WithIDs(func() jobs.JobID { return id }))
	h, err := New(reg, func(*http.Request) (jobs.SessionID, error) { return "alice", nil })
	if err != nil {
		t.Fatal(err)
	}
	start := func(label string) (jobs.JobSnapshot, chan jobs.JobOutcome) {
		done := make(chan jobs.JobOutcome, 1)
		snap, err := reg.Start(context.Background(), jobs.RecordingJobStart{
			JobStartCommon: jobs.JobStartCommon{Kind: "k", Label: label, Owner: "alice"},
			Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
				job.Append(label+"\n", jobs.AppendOptions{})
				return jobs.Hooks{Cancel: func(string) error { return nil }, Done: func() (jobs.JobOutcome, error) { return <-done, nil }}, nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return snap, done
	}
	first, done := start("first")
	held := h.joinShare("alice", first) // a follower that never reads on
	waitOpened(t, held)
	done <- jobs.JobOutcome{Status: jobs.JobStatusCompleted}
	if _, _, err := reg.Wait(context.Background(), "alice", id, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := reg.Remove("alice", id); err != nil {
		t.Fatal(err)
	}
	second, done2 := start("second")
	defer func() { done2 <- jobs.JobOutcome{Status: jobs.JobStatusCompleted} }()
	if sh := h.joinShare("alice", second); sh == held {
		t.Fatal("the new job under the old id joined the old job's share")
	} else {
		waitOpened(t, sh)
		if sh.job.Label != "second" {
			t.Fatalf("the new share follows %q, want the second job", sh.job.Label)
		}
		h.leaveShare(sh)
	}
	h.leaveShare(held)
	held.fail(errors.New("broken"))
	if sh := h.joinShare("alice", second); sh == held {
		t.Fatal("a failed share was joined")
	} else {
		h.leaveShare(sh)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h.Close(ctx)
}

func waitOpened(t *testing.T, sh *share) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !func() bool { sh.mu.Lock(); defer sh.mu.Unlock(); return sh.opened }() {
		if time.Now().After(deadline) {
			t.Fatal("the share never opened")
		}
		time.Sleep(time.Millisecond)
	}
}
