//go:build unix

package procjob

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/registry/registrytest"
)

func start(t *testing.T, opts Options) (*registrytest.Job, jobs.Hooks) {
	t.Helper()
	rec := &registrytest.Job{}
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	hooks, err := Start(opts).Run(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return rec, hooks
}

func TestStdoutAndStderrAreLabelled(t *testing.T) {
	rec, hooks := start(t, Options{Command: []string{"sh", "-c", "echo out; echo err >&2; echo more"}})
	outcome, err := hooks.Done()
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Status != jobs.JobStatusCompleted || outcome.Detail != "exit status 0" {
		t.Errorf("outcome = %+v", outcome)
	}
	if got := rec.Text(jobs.ChannelStdout); got != "out\nmore\n" {
		t.Errorf("stdout record = %q", got)
	}
	if got := rec.Text(jobs.ChannelStderr); got != "err\n" {
		t.Errorf("stderr record = %q", got)
	}
}

func TestExitStatusFailsTheJob(t *testing.T) {
	_, hooks := start(t, Options{Command: []string{"sh", "-c", "exit 3"}})
	outcome, err := hooks.Done()
	if err != nil || outcome.Status != jobs.JobStatusFailed || outcome.Detail != "exit status 3" {
		t.Errorf("outcome = %+v, %v", outcome, err)
	}
}

func TestOutputWrittenRightBeforeExitIsRecordedBeforeDone(t *testing.T) {
	// The pump's cadence is an hour: only the final drain can catch this.
	rec, hooks := start(t, Options{Command: []string{"sh", "-c", "sleep 0.1; printf 'last words'"}, Poll: time.Hour})
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	if got := rec.Text(jobs.ChannelStdout); got != "last words" {
		t.Errorf("record at done = %q", got)
	}
}

func TestCancelTerminatesTheProcessGroup(t *testing.T) {
	// The shell starts a background sleep: killing only the shell would leave
	// it holding stdout open.
	rec, hooks := start(t, Options{Command: []string{"sh", "-c", "echo started; sleep 60 & sleep 60; wait"}})
	waitFor(t, func() bool { return rec.Text(jobs.ChannelStdout) == "started\n" })
	begin := time.Now()
	if err := hooks.Cancel("user asked"); err != nil {
		t.Fatal(err)
	}
	if err := hooks.Cancel("again"); err != nil {
		t.Errorf("a second Cancel must be a no-op, got %v", err)
	}
	outcome, err := hooks.Done()
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Status != jobs.JobStatusKilled || outcome.Detail != "terminated by SIGTERM" {
		t.Errorf("outcome = %+v", outcome)
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("Done took %v after Cancel; the whole group should have died at once", took)
	}
}

func TestCancelEscalatesToSIGKILL(t *testing.T) {
	rec, hooks := start(t, Options{Command: []string{"sh", "-c", "trap '' TERM; echo armed; sleep 60"}, Grace: 200 * time.Millisecond})
	waitFor(t, func() bool { return rec.Text(jobs.ChannelStdout) == "armed\n" })
	begin := time.Now()
	hooks.Cancel("stop")
	outcome, err := hooks.Done()
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Status != jobs.JobStatusKilled || outcome.Detail != "terminated by SIGKILL" {
		t.Errorf("outcome = %+v", outcome)
	}
	if took := time.Since(begin); took < 200*time.Millisecond || took > 2*time.Second {
		t.Errorf("SIGKILL came after %v, want just after the 200ms grace", took)
	}
}

func TestReadOutputSeesEveryByteWhenTheRecordWindowDoesNot(t *testing.T) {
	// 200 KB through a 1 KB window with the pump nearly asleep: the record
	// must show a gap, the consuming cursor must not.
	rec, hooks := start(t, Options{Command: []string{"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x"}, Window: 1024, Poll: time.Hour})
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	all := hooks.ReadOutput()
	if len(all) != 200000 || strings.Trim(all, "x") != "" {
		t.Errorf("ReadOutput returned %d bytes, want 200000 x's", len(all))
	}
	if hooks.ReadOutput() != "" {
		t.Error("a second ReadOutput returned bytes already consumed")
	}
	gap := false
	for _, a := range rec.Appends() {
		gap = gap || a.Opts.GapBefore
	}
	if !gap {
		t.Error("the record lost output without marking a gap")
	}
}

func TestUnstartableCommandRegistersNothing(t *testing.T) {
	_, err := Start(Options{Command: []string{"/nonexistent/program"}}).Run(context.Background(), &registrytest.Job{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/program") {
		t.Errorf("err = %v", err)
	}
	_, err = Start(Options{}).Run(context.Background(), &registrytest.Job{})
	if err == nil {
		t.Error("an empty command started")
	}
}

func TestNothingOutlivesTheJob(t *testing.T) {
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	for range 5 {
		_, hooks := start(t, Options{Command: []string{"sh", "-c", "echo hi; echo there >&2"}})
		hooks.Done()
		_, hooks = start(t, Options{Command: []string{"sleep", "60"}})
		hooks.Cancel("leak check")
		hooks.Done()
	}
	waitFor(t, func() bool { return runtime.NumGoroutine() <= goroutines })
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines left over:\n%s", n-goroutines, buf[:runtime.Stack(buf, true)])
	}
	if n := openFDs(t); n > fds {
		t.Errorf("%d file descriptors left open", n-fds)
	}
}

func TestCompleteUTF8HoldsBackOnlyAnUnfinishedRune(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"abc", 3}, {"a你", 4}, {"a\xe4\xbd", 1}, {"a\xe4", 1}, {"\xff\xfe", 2}, {"好\xe5\xa5", 3},
	} {
		if got := completeUTF8([]byte(c.in)); got != c.want {
			t.Errorf("completeUTF8(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestStreamNeverSplitsACharacterUntilClosed(t *testing.T) {
	s := &stream{window: 1 << 10, sink: &consumer{limit: 1 << 10}}
	s.Write([]byte("x\xe4\xbd"))
	if text, next, _ := s.ReadFrom(0); text != "x" || next != 1 {
		t.Errorf("ReadFrom(0) = %q, %d; want the complete prefix", text, next)
	}
	s.Write([]byte("\xa0"))
	if text, next, _ := s.ReadFrom(1); text != "你" || next != 4 {
		t.Errorf("ReadFrom(1) = %q, %d", text, next)
	}
	s.Write([]byte("\xe5"))
	s.close()
	if text, _, _ := s.ReadFrom(4); text != "\xe5" {
		t.Errorf("after close, a trailing partial rune must be handed out, got %q", text)
	}
}

// A stream tells a pump on a pacer that it was written to, once the text can
// be read, and a stopped notify is not called again.
func TestStreamNotifiesWrites(t *testing.T) {
	s := &stream{window: 1 << 10, sink: &consumer{limit: 1 << 10}}
	var seen []string
	stop := s.NotifyWrites(func() {
		text, _, _ := s.ReadFrom(0)
		seen = append(seen, text)
	})
	s.Write([]byte("ab"))
	s.Write([]byte("c"))
	stop()
	s.Write([]byte("d"))
	if strings.Join(seen, "|") != "ab|abc" {
		t.Errorf("notices saw %q; want one after each write, with its text readable, and none after stop", seen)
	}
}

// A running process on a shared pacer whose output comes after an idle
// stretch has it recorded while it still runs: with nothing to read the pacer
// sleeps, and the streams' notices wake it.
func TestOutputAfterIdleReachesAPacedRecord(t *testing.T) {
	var _ registry.NotifyingReader = (*stream)(nil)
	pacer, err := registry.NewPacer(50 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	rec, hooks := start(t, Options{Command: []string{"sh", "-c", "sleep 0.3; echo late; sleep 60"}, Pacer: pacer})
	waitFor(t, func() bool { return rec.Text(jobs.ChannelStdout) == "late\n" })
	if err := hooks.Cancel("done"); err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

func TestReadOutputKeepsAtMostItsLimitAndReleasesItOnceRead(t *testing.T) {
	// 100 MB of output, the job settled and nothing read yet: the consuming
	// cursor holds the last ReadOutputLimit bytes, no more, and lets them go
	// when they are read.
	const limit, total = 4 << 20, 100_000_000
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	p, err := run(&registrytest.Job{}, Options{
		Command:         []string{"sh", "-c", "head -c 100000000 /dev/zero | tr '\\0' x"},
		ReadOutputLimit: limit, Window: 64 << 10, Poll: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	hooks := p.hooks()
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	const slack = 1 << 20 // the record window, pipe buffers, the test's own garbage
	if held := p.consumer.retained(); held > limit {
		t.Errorf("the unread output holds %d bytes of capacity, over the %d-byte limit", held, limit)
	}
	if grew := int64(heap()) - int64(before); grew > limit+slack {
		t.Errorf("a settled job with unread output grew the heap by %d bytes, want at most the %d-byte limit and %d slack", grew, limit, slack)
	}

	out := hooks.ReadOutput()
	header := "[" + strconv.Itoa(total-limit) + " bytes of output dropped unread]\n"
	if !strings.HasPrefix(out, header) || len(out) != len(header)+limit || strings.Trim(out[len(header):], "x") != "" {
		t.Errorf("ReadOutput returned %d bytes starting %q; want %q and the last %d bytes", len(out), out[:min(len(out), 60)], header, limit)
	}
	out = ""
	if held := p.consumer.retained(); held != 0 {
		t.Errorf("after the read the consumer still holds %d bytes of capacity", held)
	}
	if grew := int64(heap()) - int64(before); grew > slack {
		t.Errorf("after the read the job still holds %d bytes of heap", grew)
	}
	runtime.KeepAlive(p) // the job is still registered: only what it was read must go
}

func TestConsumerReturnsTheLastLimitBytesInOrderAndCountsTheRest(t *testing.T) {
	// Writes of every size against a reference: all bytes since the last
	// read, of which the consumer must return exactly the last limit.
	const limit = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	c := &consumer{limit: limit}
	var since []byte
	next := byte(0)
	for round := range 2000 {
		chunk := make([]byte, rng.IntN(3*limit/2))
		for i := range chunk {
			chunk[i], next = 'a'+next%26, next+1
		}
		c.write(chunk, jobs.ChannelStdout)
		since = append(since, chunk...)
		if held := c.retained(); held > limit {
			t.Fatalf("round %d: the ring holds %d bytes, over the limit %d", round, held, limit)
		}
		if rng.IntN(5) > 0 {
			continue
		}
		want := string(since[max(0, len(since)-limit):])
		if dropped := len(since) - len(want); dropped > 0 {
			want = "[" + strconv.Itoa(dropped) + " bytes of output dropped unread]\n" + want
		}
		if got := c.read(); got != want {
			t.Fatalf("round %d: read %d bytes, want %d:\n got %.80q\nwant %.80q", round, len(got), len(want), got, want)
		}
		since = since[:0]
	}
}

// What ReadOutput returns says which channel each part came from when
// the channel changes: a job's stdout alone reads as it was written, and
// each switch to stderr or back starts on a line of its own, labelled.
func TestReadOutputLabelsAChangeOfChannel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []struct {
			text string
			ch   jobs.Channel
		}
		want string
	}{
		{"stdout alone", []struct {
			text string
			ch   jobs.Channel
		}{{"a\n", jobs.ChannelStdout}, {"b\n", jobs.ChannelStdout}}, "a\nb\n"},
		{"a switch and back", []struct {
			text string
			ch   jobs.Channel
		}{{"a\n", jobs.ChannelStdout}, {"oops\n", jobs.ChannelStderr}, {"b\n", jobs.ChannelStdout}}, "a\n[stderr]\noops\n[stdout]\nb\n"},
		{"a switch mid-line ends the line first", []struct {
			text string
			ch   jobs.Channel
		}{{"a", jobs.ChannelStdout}, {"oops", jobs.ChannelStderr}}, "a\n[stderr]\noops"},
		{"stderr first", []struct {
			text string
			ch   jobs.Channel
		}{{"oops\n", jobs.ChannelStderr}, {"more\n", jobs.ChannelStderr}}, "[stderr]\noops\nmore\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &consumer{limit: 1000, labels: true}
			for _, w := range tc.writes {
				c.write([]byte(w.text), w.ch)
			}
			if got := c.read(); got != tc.want {
				t.Errorf("read %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNarrationIsRecordedOnTheLogChannelAndNeverRead(t *testing.T) {
	rec, hooks := start(t, Options{Command: []string{"sh", "-c", "echo 'phase: build' >&3; echo out; echo 'phase: test' >&3; echo err >&2"}, Narration: true})
	if _, err := hooks.Done(); err != nil {
		t.Fatal(err)
	}
	if got := rec.Text(jobs.ChannelLog); got != "phase: build\nphase: test\n" {
		t.Errorf("log channel record = %q", got)
	}
	if got := rec.Text(jobs.ChannelStdout); got != "out\n" {
		t.Errorf("stdout record = %q", got)
	}
	if got := hooks.ReadOutput(); strings.Contains(got, "phase") || !strings.Contains(got, "out\n") || !strings.Contains(got, "err\n") {
		t.Errorf("ReadOutput = %q; want the output without the narration", got)
	}
}

func TestWithoutNarrationFD3IsClosed(t *testing.T) {
	_, hooks := start(t, Options{Command: []string{"sh", "-c", "echo x >&3"}})
	if outcome, err := hooks.Done(); err != nil || outcome.Status != jobs.JobStatusFailed {
		t.Errorf("outcome = %+v, %v; a write to fd 3 without narration must fail", outcome, err)
	}
}
