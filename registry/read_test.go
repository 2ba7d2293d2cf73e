package registry_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// TestFence checks every fenced operation against each kind of caller.
func TestFence(t *testing.T) {
	r := registry.New()
	var face jobs.RecordingJob
	owned := mustStart(t, r, recordingStart("alice", "bash", newProducer(), &face))
	unowned := mustStart(t, r, recordingStart("", "bash", newProducer(), &face))
	unknown := jobs.JobID{1, 2, 3}

	ops := map[string]func(caller jobs.SessionID, id jobs.JobID) error{
		"Get":        func(c jobs.SessionID, id jobs.JobID) error { _, err := r.Get(c, id); return err },
		"Read":       func(c jobs.SessionID, id jobs.JobID) error { _, err := r.Read(c, id); return err },
		"ReadRecord": func(c jobs.SessionID, id jobs.JobID) error { _, err := r.ReadRecord(c, id, 0); return err },
		"Wait": func(c jobs.SessionID, id jobs.JobID) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // answer at once: we only want the fence
			_, _, err := r.Wait(ctx, c, id, 0)
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
		"Remove": func(c jobs.SessionID, id jobs.JobID) error {
			err := r.Remove(c, id)
			if err != nil && !errors.Is(err, registry.ErrUnknownJob) && !errors.Is(err, registry.ErrForeignJob) {
				return nil // visible, but live: not removable
			}
			return err
		},
	}
	cases := []struct {
		caller jobs.SessionID
		id     jobs.JobID
		want   error
	}{
		{"alice", owned.ID, nil},
		{"bob", owned.ID, registry.ErrForeignJob},
		{"", owned.ID, registry.ErrForeignJob},
		{"alice", unowned.ID, nil},
		{"bob", unowned.ID, nil},
		{"", unowned.ID, nil},
		{"alice", unknown, registry.ErrUnknownJob},
		{"", unknown, registry.ErrUnknownJob},
	}
	for name, op := range ops {
		for _, c := range cases {
			err := op(c.caller, c.id)
			if (c.want == nil && err != nil) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("%s(caller %q, %v) = %v; want %v", name, c.caller, c.id, err, c.want)
			}
		}
	}
	// Kill last: it changes the job.
	if _, err := r.Kill("bob", owned.ID, "x"); !errors.Is(err, registry.ErrForeignJob) {
		t.Errorf("Kill by another session = %v; want ErrForeignJob", err)
	}
	if _, err := r.Kill("bob", unknown, "x"); !errors.Is(err, registry.ErrUnknownJob) {
		t.Errorf("Kill of an unknown id = %v; want ErrUnknownJob", err)
	}
	if errors.Is(registry.ErrForeignJob, registry.ErrUnknownJob) || errors.Is(registry.ErrUnknownJob, registry.ErrForeignJob) {
		t.Error("the unknown and foreign sentinels are not distinct")
	}
}

func TestListShowsOwnAndUnownedInRegistrationOrder(t *testing.T) {
	r := registry.New()
	var ids []jobs.JobID
	for _, owner := range []jobs.SessionID{"a", "", "b", "a", ""} {
		ids = append(ids, mustStart(t, r, plainStart(owner, "bash", newProducer())).ID)
	}
	names := func(caller jobs.SessionID) []jobs.JobID {
		var out []jobs.JobID
		for _, s := range r.List(caller) {
			out = append(out, s.ID)
		}
		return out
	}
	for _, tt := range []struct {
		caller jobs.SessionID
		want   []jobs.JobID
	}{
		{"a", []jobs.JobID{ids[0], ids[1], ids[3], ids[4]}},
		{"b", []jobs.JobID{ids[1], ids[2], ids[4]}},
		{"", []jobs.JobID{ids[1], ids[4]}},
	} {
		if got := names(tt.caller); !slices.Equal(got, tt.want) {
			t.Errorf("List(%q) = %v; want %v", tt.caller, got, tt.want)
		}
	}
}

func TestSnapshotsAreCopies(t *testing.T) {
	r := registry.New()
	snap := mustStart(t, r, plainStart("", "bash", newProducer()))
	list := r.List("")
	list[0].Detail, list[0].Status = "scribbled", jobs.JobStatusFailed
	snap.Label = "scribbled"
	if got := mustGet(t, r, "", snap.ID); got.Detail != "" || got.Status != jobs.JobStatusRunning || got.Label != "bash job" {
		t.Fatalf("editing returned snapshots changed the registry: %+v", got)
	}
}

func TestReadIsTheConsumingCursor(t *testing.T) {
	r := registry.New()
	p := newProducer()
	chunks := []string{"first ", "second"}
	p.readOutput = func() string {
		if len(chunks) == 0 {
			return ""
		}
		c := chunks[0]
		chunks = chunks[1:]
		return c
	}
	snap := mustStart(t, r, plainStart("", "bash", p))
	res, err := r.Read("", snap.ID)
	if err != nil || res.Output != "first " || res.Job.Reported {
		t.Fatalf("Read = %+v, %v; want the cursor's first output, not reported while running", res, err)
	}
	p.finish(jobs.JobStatusCompleted, "", "final output the cursor supersedes")
	waitSettledWithoutReporting(t, r, snap.ID)
	res, err = r.Read("", snap.ID)
	if err != nil || res.Output != "second" || !res.Job.Reported || !mustGet(t, r, "", snap.ID).Reported {
		t.Fatalf("Read = %+v, %v; want the cursor's rest, and the terminal job marked reported", res, err)
	}
}

func TestReadWithoutCursorGivesFinalOutputOnceTerminal(t *testing.T) {
	r, p, snap := runningBash(t, "")
	if res, err := r.Read("", snap.ID); err != nil || res.Output != "" || res.Job.Reported {
		t.Fatalf("Read while running = %+v, %v; want nothing, unreported", res, err)
	}
	p.finish(jobs.JobStatusCompleted, "", "42")
	waitSettledWithoutReporting(t, r, snap.ID)
	if res, err := r.Read("", snap.ID); err != nil || res.Output != "42" || !res.Job.Reported {
		t.Fatalf("Read when settled = %+v, %v; want the final output, reported", res, err)
	}
}

// waitSettledWithoutReporting waits for a settlement through OnJobDone, which
// (unlike Wait) does not mark the job reported.
func waitSettledWithoutReporting(t *testing.T, r *registry.Registry, id jobs.JobID) {
	t.Helper()
	for {
		done := make(chan struct{})
		stop := r.OnJobDone(func(s jobs.JobSnapshot) {
			if s.ID == id {
				close(done)
			}
		})
		snap := mustGet(t, r, "", id)
		if snap.Status.Terminal() {
			stop()
			if snap.Reported {
				t.Fatal("settlement marked reported without a waiter")
			}
			return
		}
		<-done
		stop()
	}
}

func TestWaitTimeoutReturnsLiveSnapshotUnreported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, p, snap := runningBash(t, "")
		begin := time.Now()
		got, settled, err := r.Wait(t.Context(), "", snap.ID, 3*time.Second)
		if err != nil || settled || got.Status != jobs.JobStatusRunning || time.Since(begin) != 3*time.Second {
			t.Fatalf("Wait = %s settled=%v %v after %v; want the live snapshot after 3s", got.Status, settled, err, time.Since(begin))
		}
		p.finish(jobs.JobStatusCompleted, "", "")
		synctest.Wait()
		if mustGet(t, r, "", snap.ID).Reported {
			t.Fatal("a waiter that timed out marked the later settlement reported")
		}
	})
}

func TestWaitHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, p, snap := runningBash(t, "")
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		got, settled, err := r.Wait(ctx, "", snap.ID, time.Hour)
		if !errors.Is(err, context.DeadlineExceeded) || settled || got.Status != jobs.JobStatusRunning {
			t.Fatalf("Wait = %s settled=%v %v; want the deadline with the live snapshot", got.Status, settled, err)
		}
		p.finish(jobs.JobStatusCompleted, "", "")
	})
}

func TestWaitReturnsSettlementAndMarksReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, p, snap := runningBash(t, "")
		go func() { time.Sleep(time.Second); p.finish(jobs.JobStatusCompleted, "ok", "") }()
		got, settled, err := r.Wait(t.Context(), "", snap.ID, time.Minute)
		if err != nil || !settled || got.Status != jobs.JobStatusCompleted || !got.Reported {
			t.Fatalf("Wait = %+v settled=%v %v; want the reported settlement", got, settled, err)
		}
		// Waiting on a settled job answers at once and marks it reported.
		r2 := registry.New()
		p2 := newProducer()
		s2 := mustStart(t, r2, plainStart("", "bash", p2))
		p2.finish(jobs.JobStatusCompleted, "", "")
		waitSettledWithoutReporting(t, r2, s2.ID)
		begin := time.Now()
		got, settled, err = r2.Wait(t.Context(), "", s2.ID, time.Minute)
		if err != nil || !settled || !got.Reported || time.Since(begin) != 0 {
			t.Fatalf("Wait on a settled job = %+v settled=%v %v", got, settled, err)
		}
	})
}

// TestWaitAbortRacingSettlementNeverSwallowsResult lets a waiter's timeout
// and cancellation fire at the same fake instant as the settlement, many
// times: whenever the job ends up marked reported, the waiter must have been
// handed the settlement.
func TestWaitAbortRacingSettlementNeverSwallowsResult(t *testing.T) {
	outcomes := map[bool]int{}
	for range 200 {
		synctest.Test(t, func(t *testing.T) {
			r, p, snap := runningBash(t, "")
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			go func() { time.Sleep(time.Second); p.finish(jobs.JobStatusCompleted, "", "") }()
			got, settled, err := r.Wait(ctx, "", snap.ID, time.Second)
			synctest.Wait()
			after := mustGet(t, r, "", snap.ID)
			if after.Status != jobs.JobStatusCompleted {
				t.Fatalf("job did not settle: %s", after.Status)
			}
			switch {
			case after.Reported && !settled:
				t.Fatalf("the settlement was marked reported but the waiter got %s (err %v): result swallowed", got.Status, err)
			case settled && (got.Status != jobs.JobStatusCompleted || !got.Reported || err != nil):
				t.Fatalf("settled waiter got %+v, %v", got, err)
			case !settled && got.Status.Terminal():
				t.Fatalf("unsettled waiter got a terminal snapshot %+v", got)
			}
			outcomes[settled]++
		})
	}
	t.Logf("waiter outcomes over 200 races: %v", outcomes)
}

func TestReadRecordRetention(t *testing.T) {
	type chunk struct {
		off  int64
		text string
		gap  bool
	}
	for _, tt := range []struct {
		name     string
		retain   int
		appends  []string
		from     int64
		chunks   []chunk
		earliest int64
		next     int64
		lossy    bool
	}{
		{"drop whole head chunks", 8, []string{"aaaa", "bbbb", "cccc"}, 0,
			[]chunk{{4, "bbbb", false}, {8, "cccc", false}}, 4, 12, true},
		{"from inside the window", 8, []string{"aaaa", "bbbb", "cccc"}, 9,
			[]chunk{{8, "cccc", false}}, 4, 12, false},
		{"from at a chunk boundary", 8, []string{"aaaa", "bbbb", "cccc"}, 8,
			[]chunk{{8, "cccc", false}}, 4, 12, false},
		{"from at the end", 8, []string{"aaaa", "bbbb", "cccc"}, 12, nil, 4, 12, false},
		{"from past the end", 8, []string{"aaaa"}, 99, nil, 0, 4, false},
		{"oversized chunk keeps UTF-8-safe tail", 5, []string{"你好"}, 0,
			[]chunk{{3, "好", true}}, 3, 6, true},
		{"oversized chunk tail may be empty", 1, []string{"好"}, 0,
			[]chunk{{3, "", true}}, 3, 3, true},
		{"oversized chunk drops the rest", 4, []string{"ab", "abcdefgh"}, 0,
			[]chunk{{6, "efgh", true}}, 6, 10, true},
		{"single chunk at exactly the limit stays whole", 4, []string{"ab", "abcd"}, 0,
			[]chunk{{2, "abcd", false}}, 2, 6, true},
		{"nothing written", 8, nil, 0, nil, 0, 0, false},
		{"empty appends are dropped", 8, []string{"", "x", ""}, 0, []chunk{{0, "x", false}}, 0, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := registry.New(registry.WithLimits(registry.Limits{RetainBytes: tt.retain}))
			var face jobs.RecordingJob
			snap := mustStart(t, r, recordingStart("", "bash", newProducer(), &face))
			for _, a := range tt.appends {
				face.Append(a, jobs.AppendOptions{})
			}
			rec, err := r.ReadRecord("", snap.ID, tt.from)
			if err != nil {
				t.Fatal(err)
			}
			var got []chunk
			for _, c := range rec.Chunks {
				got = append(got, chunk{c.Offset, c.Text, c.GapBefore})
			}
			if !slices.Equal(got, tt.chunks) || rec.Earliest != tt.earliest || rec.Next != tt.next || rec.Lossy != tt.lossy {
				t.Fatalf("ReadRecord(%d) = chunks %v earliest %d next %d lossy %v; want %v %d %d %v",
					tt.from, got, rec.Earliest, rec.Next, rec.Lossy, tt.chunks, tt.earliest, tt.next, tt.lossy)
			}
		})
	}
}

func TestReadRecordPerJobOutputLimit(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{RetainBytes: 100}))
	var face jobs.RecordingJob
	start := recordingStart("", "bash", newProducer(), &face)
	start.OutputLimitBytes = 3
	snap := mustStart(t, r, start)
	face.Append("abcdef", jobs.AppendOptions{})
	rec, _ := r.ReadRecord("", snap.ID, 0)
	if len(rec.Chunks) != 1 || rec.Chunks[0].Text != "def" {
		t.Fatalf("record %+v; want the job's own 3-byte limit to apply", rec)
	}
}

func TestReadRecordKeepsChunkTimesAndChannels(t *testing.T) {
	clock := &fixedClock{}
	logger, logs := newLogger()
	r := registry.New(registry.WithClock(clock), registry.WithLogger(logger))
	var face jobs.RecordingJob
	snap := mustStart(t, r, recordingStart("", "bash", newProducer(), &face))
	clock.set(time.UnixMilli(100))
	face.Append("out", jobs.AppendOptions{Channel: jobs.ChannelStdout})
	clock.set(time.UnixMilli(200))
	face.Append("log", jobs.AppendOptions{Channel: jobs.ChannelLog})
	face.Append("odd", jobs.AppendOptions{Channel: "telemetry"})
	rec, _ := r.ReadRecord("", snap.ID, 0)
	want := []jobs.RecordChunk{
		{Offset: 0, At: 100, Text: "out", Channel: jobs.ChannelStdout},
		{Offset: 3, At: 200, Text: "log", Channel: jobs.ChannelLog},
		{Offset: 6, At: 200, Text: "odd"},
	}
	if !slices.Equal(rec.Chunks, want) {
		t.Fatalf("chunks %+v; want %+v", rec.Chunks, want)
	}
	if !containsAll(logs.String(), "unknown channel", "telemetry") {
		t.Fatalf("an unknown channel was not logged:\n%s", logs)
	}
}

func TestReadRecordRefusals(t *testing.T) {
	r := registry.New()
	plain := mustStart(t, r, plainStart("", "bash", newProducer()))
	if _, err := r.ReadRecord("", plain.ID, 0); !errors.Is(err, registry.ErrNoRecord) {
		t.Fatalf("ReadRecord of a plain job = %v; want ErrNoRecord", err)
	}
	var face jobs.RecordingJob
	rec := mustStart(t, r, recordingStart("", "bash", newProducer(), &face))
	if _, err := r.ReadRecord("", rec.ID, -1); !errors.Is(err, registry.ErrNegativeOffset) {
		t.Fatalf("ReadRecord from -1 = %v; want ErrNegativeOffset", err)
	}
}

func TestReadRecordNeverMarksReported(t *testing.T) {
	r := registry.New()
	p, face, snap := recordingBash(t, r, "")
	face.Append("x", jobs.AppendOptions{})
	p.finish(jobs.JobStatusCompleted, "", "")
	waitSettledWithoutReporting(t, r, snap.ID)
	for range 2 {
		if _, err := r.ReadRecord("", snap.ID, 0); err != nil {
			t.Fatal(err)
		}
	}
	if mustGet(t, r, "", snap.ID).Reported {
		t.Fatal("ReadRecord marked the job reported")
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestReadContainsPanickingCursor(t *testing.T) {
	logger, logs := newLogger()
	r := registry.New(registry.WithLogger(logger))
	p := newProducer()
	p.readOutput = func() string { panic("cursor bug") }
	snap := mustStart(t, r, plainStart("", "bash", p))
	res, err := r.Read("", snap.ID)
	if err != nil || res.Output != "" || res.Job.ID != snap.ID {
		t.Fatalf("Read = %+v, %v; want the snapshot and no output", res, err)
	}
	if !strings.Contains(logs.String(), "cursor bug") {
		t.Fatalf("the panic was not logged:\n%s", logs)
	}
}

// ReadRecordInto answers what ReadRecord answers, from any offset of a
// wrapped record, into one reused buffer; its errors are ReadRecord's and
// leave the buffer empty.
func TestReadRecordIntoReadsWhatReadRecordReads(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{RetainBytes: 64}))
	var face jobs.RecordingJob
	snap := mustStart(t, r, recordingStart("s", "bash", newProducer(), &face))
	for i := range 40 {
		face.Append(strings.Repeat(string(rune('a'+i%26)), 1+i%7), jobs.AppendOptions{Channel: jobs.ChannelStderr, GapBefore: i%5 == 0})
	}
	var buf registry.RecordBuffer
	total := mustGet(t, r, "s", snap.ID).OutputBytes
	for from := int64(0); from <= total+1; from++ {
		want, err := r.ReadRecord("s", snap.ID, from)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.ReadRecordInto("s", snap.ID, from, &buf); err != nil {
			t.Fatal(err)
		}
		if buf.Earliest != want.Earliest || buf.Next != want.Next || buf.Lossy != want.Lossy || len(buf.Chunks) != len(want.Chunks) {
			t.Fatalf("from %d: window %d %d %v, %d chunks; want %+v", from, buf.Earliest, buf.Next, buf.Lossy, len(buf.Chunks), want)
		}
		for i, c := range buf.Chunks {
			w := want.Chunks[i]
			if c.Offset() != w.Offset || c.At() != w.At || string(buf.Text(i)) != w.Text || c.Channel() != w.Channel || c.GapBefore() != w.GapBefore {
				t.Fatalf("from %d chunk %d: %+v %q; want %+v", from, i, c, buf.Text(i), w)
			}
		}
	}
	if err := r.ReadRecordInto("other", snap.ID, 0, &buf); !errors.Is(err, registry.ErrForeignJob) || len(buf.Chunks) != 0 {
		t.Fatalf("foreign read = %v, %d chunks; want ErrForeignJob and an empty buffer", err, len(buf.Chunks))
	}
	if err := r.ReadRecordInto("s", snap.ID, -1, &buf); !errors.Is(err, registry.ErrNegativeOffset) {
		t.Fatalf("negative offset = %v", err)
	}
}

// A reused RecordBuffer remembers the job it read, but every read is fenced
// and looked up again when that job is gone: another caller is refused, a
// removed job's id taken by a new job reads the new job's record, and a
// buffer moved to another registry reads that registry's job.
func TestReadRecordIntoWithAReusedBufferIsFencedEachTime(t *testing.T) {
	same := func() jobs.JobID { return jobs.JobID{9} }
	r := registry.New(registry.WithIDs(same))
	var buf registry.RecordBuffer
	p, face, snap := recordingBash(t, r, "a")
	face.Append("first job", jobs.AppendOptions{})
	if err := r.ReadRecordInto("a", snap.ID, 0, &buf); err != nil || string(buf.Bytes()) != "first job" {
		t.Fatalf("ReadRecordInto = %q, %v", buf.Bytes(), err)
	}
	if err := r.ReadRecordInto("b", snap.ID, 0, &buf); !errors.Is(err, registry.ErrForeignJob) {
		t.Fatalf("another session's read with the same buffer = %v; want ErrForeignJob", err)
	}
	if err := r.ReadRecordInto("a", snap.ID, 0, &buf); err != nil || string(buf.Bytes()) != "first job" {
		t.Fatalf("ReadRecordInto after a refused read = %q, %v", buf.Bytes(), err)
	}
	p.finish(jobs.JobStatusCompleted, "", "")
	waitSettled(t, r, "a", snap.ID)
	if err := r.Remove("a", snap.ID); err != nil {
		t.Fatal(err)
	}
	p2, face2, snap2 := recordingBash(t, r, "a") // the buffer still remembers the removed job
	face2.Append("second job", jobs.AppendOptions{})
	if err := r.ReadRecordInto("a", snap2.ID, 0, &buf); err != nil || string(buf.Bytes()) != "second job" {
		t.Fatalf("read of the id's new job = %q, %v; want the new job's record", buf.Bytes(), err)
	}
	p2.finish(jobs.JobStatusCompleted, "", "")
	waitSettled(t, r, "a", snap2.ID)
	if err := r.Remove("a", snap2.ID); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := r.ReadRecordInto("a", snap.ID, 0, &buf); !errors.Is(err, registry.ErrUnknownJob) {
			t.Fatalf("read of the removed job = %v; want ErrUnknownJob", err)
		}
	}
	other := registry.New(registry.WithIDs(same))
	_, face3, snap3 := recordingBash(t, other, "a")
	face3.Append("other registry", jobs.AppendOptions{})
	if err := other.ReadRecordInto("a", snap3.ID, 0, &buf); err != nil || string(buf.Bytes()) != "other registry" {
		t.Fatalf("read on another registry = %q, %v; want that registry's job", buf.Bytes(), err)
	}
}
