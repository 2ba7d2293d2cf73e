package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// collected is what a follow stream yielded, and when.
type collected struct {
	frames []jobs.FollowFrame
	at     []time.Time
	err    error
}

// follow runs Follow on its own goroutine and returns a channel that yields
// the whole stream once it ends.
func follow(ctx context.Context, r *registry.Registry, caller jobs.SessionID, id jobs.JobID, start registry.FollowStart) <-chan collected {
	out := make(chan collected, 1)
	go func() {
		var c collected
		for read, err := range r.Follow(ctx, caller, id, start) {
			if err != nil {
				c.err = err
				break
			}
			for _, f := range read.Frames {
				c.frames = append(c.frames, f)
				c.at = append(c.at, time.Now())
			}
		}
		out <- c
	}()
	return out
}

// texts renders the output frames of a stream as "text@offset" lists.
func texts(frames []jobs.FollowFrame) []string {
	var out []string
	for _, f := range frames {
		if o, ok := f.(jobs.OutputFrame); ok {
			var parts []string
			for _, c := range o.Chunks {
				parts = append(parts, c.Text)
			}
			s := strings.Join(parts, "|")
			if o.Lossy {
				s = "lossy:" + s
			}
			out = append(out, s)
		}
	}
	return out
}

func TestFollowOpensStreamsAndEndsWithStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		p, face, snap := recordingBash(t, r, "s1")
		face.Append("hello ", jobs.AppendOptions{Channel: jobs.ChannelStdout})
		start := time.Now()
		stream := follow(context.Background(), r, "s1", snap.ID, registry.FromEarliest())
		synctest.Wait()
		time.Sleep(time.Second)
		face.Append("world", jobs.AppendOptions{Channel: jobs.ChannelStderr})
		time.Sleep(time.Second)
		p.finish(jobs.JobStatusCompleted, "", "")
		got := <-stream
		if got.err != nil {
			t.Fatal(got.err)
		}
		if len(got.frames) != 4 {
			t.Fatalf("frames = %#v, want opened, two outputs, status", got.frames)
		}
		opened, ok := got.frames[0].(jobs.OpenedFrame)
		if !ok || opened.From != 0 || opened.Earliest != 0 || opened.Total != 6 || opened.Job.ID != snap.ID {
			t.Errorf("first frame = %#v", got.frames[0])
		}
		if want := []string{"hello ", "world"}; strings.Join(texts(got.frames), ",") != strings.Join(want, ",") {
			t.Errorf("output = %v, want %v", texts(got.frames), want)
		}
		second := got.frames[2].(jobs.OutputFrame)
		if second.Next != 11 || second.Chunks[0].Offset != 6 || second.Chunks[0].Channel != jobs.ChannelStderr {
			t.Errorf("second output frame = %#v", second)
		}
		if got.at[2].Sub(start) != time.Second {
			t.Errorf("an append a second after the last flush was delivered after %v; want at once", got.at[2].Sub(start)-time.Second)
		}
		status, ok := got.frames[3].(jobs.StatusFrame)
		if !ok || status.Job.Status != jobs.JobStatusCompleted {
			t.Errorf("last frame = %#v, want the settled status", got.frames[3])
		}
	})
}

func TestFollowBatchesOutputAtTheFlushInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New(registry.WithLimits(registry.Limits{ObserveFlush: 100 * time.Millisecond}))
		p, face, snap := recordingBash(t, r, "s1")
		start := time.Now()
		stream := follow(context.Background(), r, "s1", snap.ID, registry.FromEarliest())
		synctest.Wait()
		for i := range 10 {
			face.Append(string(rune('a'+i)), jobs.AppendOptions{})
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Second)
		p.finish(jobs.JobStatusCompleted, "", "")
		got := <-stream
		outs := texts(got.frames)
		// "a" flushes at once; b…j arrive within the next 100 ms and flush together.
		if strings.Join(outs, ",") != "a,b|c|d|e|f|g|h|i|j" {
			t.Errorf("output frames = %v", outs)
		}
		if d := got.at[2].Sub(start); d != 100*time.Millisecond {
			t.Errorf("the batch flushed at %v, want 100ms after the first flush", d)
		}
	})
}

func TestFollowSplitsFramesAtTheMaximum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New(registry.WithLimits(registry.Limits{ObserveMaxFrameBytes: 30}))
		p, face, snap := recordingBash(t, r, "s1")
		for _, s := range []string{"0123456789", "abcdefghij", "ABCDEFGHIJ", "klmnopqrst", "KLMNOPQRST", "uvwxyz----", strings.Repeat("#", 40), "end"} {
			face.Append(s, jobs.AppendOptions{})
		}
		p.finish(jobs.JobStatusCompleted, "", "")
		waitSettled(t, r, "s1", snap.ID)
		// Settled, the record keeps its last 16 KiB (the default): everything.
		got := <-follow(context.Background(), r, "s1", snap.ID, registry.FromOffset(0))
		want := []string{
			"0123456789|abcdefghij|ABCDEFGHIJ",
			"klmnopqrst|KLMNOPQRST|uvwxyz----",
			strings.Repeat("#", 40), // larger than the maximum: ships whole
			"end",
		}
		if strings.Join(texts(got.frames), ",") != strings.Join(want, ",") {
			t.Errorf("frames = %v\nwant %v", texts(got.frames), want)
		}
		for i, f := range got.frames[1 : len(got.frames)-1] {
			o := f.(jobs.OutputFrame)
			last := o.Chunks[len(o.Chunks)-1]
			if o.Next != last.Offset+int64(len(last.Text)) {
				t.Errorf("frame %d: next %d is not the end of its last chunk", i, o.Next)
			}
		}
	})
}

func TestFollowBelowTheWindowIsLossyOnTheFirstFrameOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New(registry.WithLimits(registry.Limits{ObserveMaxFrameBytes: 8, RetainBytes: 16}))
		p, face, snap := recordingBash(t, r, "s1")
		for _, s := range []string{"aaaa", "bbbb", "cccc", "dddd", "eeee", "ffff"} {
			face.Append(s, jobs.AppendOptions{})
		}
		stream := follow(context.Background(), r, "s1", snap.ID, registry.FromOffset(2))
		synctest.Wait()
		p.finish(jobs.JobStatusCompleted, "", "")
		got := <-stream
		if want := "lossy:cccc|dddd,eeee|ffff"; strings.Join(texts(got.frames), ",") != want {
			t.Errorf("frames = %v, want %s", texts(got.frames), want)
		}
		if o := got.frames[0].(jobs.OpenedFrame); o.From != 2 || o.Earliest != 8 || o.Total != 24 {
			t.Errorf("opened = %+v", o)
		}
	})
}

func TestFollowResumesMidChunkAndAtTotal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		p, face, snap := recordingBash(t, r, "s1")
		face.Append("héllo", jobs.AppendOptions{})
		p.finish(jobs.JobStatusCompleted, "", "")
		waitSettled(t, r, "s1", snap.ID)

		// Offset 2 is inside "é": the stream resumes at the next character.
		got := <-follow(context.Background(), r, "s1", snap.ID, registry.FromOffset(2))
		if outs := texts(got.frames); len(outs) != 1 || outs[0] != "llo" {
			t.Errorf("resume mid-chunk: %v", outs)
		}
		got = <-follow(context.Background(), r, "s1", snap.ID, registry.FromOffset(6))
		if len(got.frames) != 2 {
			t.Fatalf("resume at total: %#v, want opened and status only", got.frames)
		}
		if _, ok := got.frames[1].(jobs.StatusFrame); !ok {
			t.Errorf("resume at total: second frame %#v", got.frames[1])
		}
	})
}

func TestFollowRefusals(t *testing.T) {
	r := registry.New()
	p := newProducer()
	var face jobs.RecordingJob
	rec := mustStart(t, r, recordingStart("s1", "bash", p, &face))
	plain := mustStart(t, r, plainStart("s1", "bash", newProducer()))
	for _, c := range []struct {
		name   string
		caller jobs.SessionID
		id     jobs.JobID
		start  registry.FollowStart
		want   error
	}{
		{"foreign caller", "s2", rec.ID, registry.FromEarliest(), registry.ErrForeignJob},
		{"no session", "", rec.ID, registry.FromEarliest(), registry.ErrForeignJob},
		{"unknown id", "s1", jobs.NewJobID(), registry.FromEarliest(), registry.ErrUnknownJob},
		{"negative offset", "s1", rec.ID, registry.FromOffset(-1), registry.ErrNegativeOffset},
		{"plain job", "s1", plain.ID, registry.FromEarliest(), registry.ErrNoRecord},
	} {
		// A stream wrongly let through would wait for a job that never ends;
		// the deadline turns that into a failure rather than a hang.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got := <-follow(ctx, r, c.caller, c.id, c.start)
		cancel()
		if !errors.Is(got.err, c.want) || len(got.frames) != 0 {
			t.Errorf("%s: frames %v, err %v; want only %v", c.name, got.frames, got.err, c.want)
		}
	}
}

func TestFollowEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		p, face, snap := recordingBash(t, r, "s1")
		ctx, cancel := context.WithCancel(context.Background())
		stream := follow(ctx, r, "s1", snap.ID, registry.FromEarliest())
		synctest.Wait()
		face.Append("x", jobs.AppendOptions{})
		time.Sleep(time.Second)
		cancel()
		got := <-stream
		if !errors.Is(got.err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", got.err)
		}
		for _, f := range got.frames {
			if _, ok := f.(jobs.StatusFrame); ok {
				t.Error("a cancelled stream sent a status frame")
			}
		}
		p.finish(jobs.JobStatusCompleted, "", "")
		waitSettled(t, r, "s1", snap.ID)
		// synctest.Test fails if a goroutine the stream started is still running.
	})
}

func TestFollowSurvivesClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		p := newProducer().killOnCancel()
		var face jobs.RecordingJob
		snap := mustStart(t, r, recordingStart("s1", "bash", p, &face))
		stream := follow(context.Background(), r, "s1", snap.ID, registry.FromEarliest())
		synctest.Wait()
		if err := r.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := <-stream
		if last, ok := got.frames[len(got.frames)-1].(jobs.StatusFrame); !ok || last.Job.Status != jobs.JobStatusKilled {
			t.Errorf("after Close the stream ended with %#v, want the killed status", got.frames[len(got.frames)-1])
		}
	})
}

// TestReadFramesReadsUpToAnOffset: ReadFrames gives the frames a follow
// stream at from would send, cut at to, with the window; it is lossy below
// the window, reads nothing for to <= from, and is fenced.
func TestReadFramesReadsUpToAnOffset(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{RetainBytes: 8, ObserveMaxFrameBytes: 4}))
	p, face, snap := recordingBash(t, r, "alice")
	defer p.finish(jobs.JobStatusCompleted, "", "")
	for _, s := range []string{"aa", "bb", "cc", "dd", "éé"} { // é is two bytes: 0..8 then 8..12
		face.Append(s, jobs.AppendOptions{})
	}
	// Retained: cc@4 dd@6 éé@8 (12 bytes appended, 8 retained).
	for _, tc := range []struct {
		from, to int64
		want     []string
	}{
		{4, 8, []string{"cc|dd"}},
		{5, 8, []string{"c|dd"}},
		{4, 12, []string{"cc|dd", "éé"}}, // frames of at most 4 bytes of text
		{4, 10, []string{"cc|dd", "é"}},
		{9, 12, []string{"é"}}, // a cursor inside a rune starts at the next one
		{0, 8, []string{"lossy:cc|dd"}},
		{0, 4, nil}, // evicted: nothing, and the window says so
		{6, 6, nil},
		{12, 20, nil},
	} {
		frames, earliest, next, err := r.ReadFrames("alice", snap.ID, tc.from, tc.to)
		if err != nil || earliest != 4 || next != 12 {
			t.Fatalf("ReadFrames(%d, %d): window %d..%d, %v; want 4..12", tc.from, tc.to, earliest, next, err)
		}
		var got []jobs.FollowFrame
		for _, f := range frames {
			got = append(got, f)
		}
		if g := texts(got); strings.Join(g, " ") != strings.Join(tc.want, " ") {
			t.Errorf("ReadFrames(%d, %d) = %q, want %q", tc.from, tc.to, g, tc.want)
		}
		if len(frames) > 0 && frames[len(frames)-1].Next != min(tc.to, 12) {
			t.Errorf("ReadFrames(%d, %d) ends at %d, want %d", tc.from, tc.to, frames[len(frames)-1].Next, min(tc.to, 12))
		}
	}
	if _, _, _, err := r.ReadFrames("bob", snap.ID, 4, 8); !errors.Is(err, registry.ErrForeignJob) {
		t.Errorf("ReadFrames as another session: %v, want ErrForeignJob", err)
	}
	if _, _, _, err := r.ReadFrames("alice", snap.ID, -1, 8); !errors.Is(err, registry.ErrNegativeOffset) {
		t.Errorf("ReadFrames from -1: %v, want ErrNegativeOffset", err)
	}
}

// TestFollowYieldsEachReadAsAWhole: the frames of one read of the record
// come in one FollowRead, with the window at that read.
func TestFollowYieldsEachReadAsAWhole(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{RetainBytes: 8, ObserveMaxFrameBytes: 4}))
	p, face, snap := recordingBash(t, r, "alice")
	defer p.finish(jobs.JobStatusCompleted, "", "")
	for _, s := range []string{"aa", "bb", "cc", "dd", "ee"} {
		face.Append(s, jobs.AppendOptions{})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var reads []registry.FollowRead
	for read, err := range r.Follow(ctx, "alice", snap.ID, registry.FromOffset(0)) {
		if err != nil {
			t.Fatal(err)
		}
		reads = append(reads, read)
		if len(reads) == 2 {
			break
		}
	}
	if o, ok := reads[0].Frames[0].(jobs.OpenedFrame); len(reads[0].Frames) != 1 || !ok || o.From != 0 || reads[0].Earliest != 2 || reads[0].Next != 10 {
		t.Fatalf("first read %+v, want the opened frame alone from 0, window 2..10", reads[0])
	}
	if got := texts(reads[1].Frames); strings.Join(got, " ") != "lossy:bb|cc dd|ee" || reads[1].Earliest != 2 || reads[1].Next != 10 {
		t.Fatalf("second read %q (window %d..%d), want both frames of the lossy read together, window 2..10", got, reads[1].Earliest, reads[1].Next)
	}
}
