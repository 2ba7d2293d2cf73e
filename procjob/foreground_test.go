//go:build unix

package procjob

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/registry/registrytest"
)

// gatedCommand writes "a", waits for the file gate, writes "b" and then
// creates the file wrote, waits for the file gate2, writes "c" and exits 0.
// Each run appends a line to runs and writes its pid to pid, so a test can
// tell one run from two.
func gatedCommand(dir string) []string {
	script := `echo run >> runs; echo $$ > pid; printf 'a\n'; while [ ! -e gate ]; do sleep 0.01; done; printf 'b\n'; : > wrote; ` +
		`while [ ! -e gate2 ]; do sleep 0.01; done; printf 'c\n'`
	return []string{"sh", "-c", "cd " + dir + " && " + script}
}

func touch(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func pidOf(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func TestForegroundCommandThatSettlesFirstResolvesWithNoOffer(t *testing.T) {
	for _, policy := range []DeadlinePolicy{DeadlineKill, DeadlineOffer, DeadlineNone} {
		t.Run(string(policy), func(t *testing.T) {
			fg, err := RunForeground(context.Background(), Options{Command: []string{"sh", "-c", "printf 'done\\n'"}},
				Wait{Deadline: 30 * time.Second, Policy: policy})
			if err != nil {
				t.Fatal(err)
			}
			if fg.Offer != nil {
				t.Fatal("a command that ended within its wait was offered")
			}
			if fg.Outcome.Status != jobs.JobStatusCompleted || fg.Output != "done\n" {
				t.Errorf("foreground = %+v", fg)
			}
		})
	}
}

func TestForegroundKillPolicyStopsTheCommandAtTheDeadline(t *testing.T) {
	dir := t.TempDir()
	begin := time.Now()
	fg, err := RunForeground(context.Background(), Options{Command: gatedCommand(dir)}, Wait{Deadline: time.Second, Policy: DeadlineKill})
	if err != nil {
		t.Fatal(err)
	}
	if fg.Offer != nil || fg.Outcome.Status != jobs.JobStatusKilled || fg.Output != "a\n" {
		t.Errorf("foreground = %+v", fg)
	}
	if took := time.Since(begin); took < time.Second {
		t.Errorf("the wait ended after %v, before its deadline", took)
	}
	if pid := pidOf(t, dir); !gone(pid) {
		t.Errorf("process %d outlived the kill", pid)
	}
}

func TestForegroundOfferPromotesTheSameProcessAndItsCursorContinues(t *testing.T) {
	dir := t.TempDir()
	fg, err := RunForeground(context.Background(), Options{Command: gatedCommand(dir), Poll: 10 * time.Millisecond},
		Wait{Deadline: time.Second, Policy: DeadlineOffer})
	if err != nil {
		t.Fatal(err)
	}
	if fg.Offer == nil {
		t.Fatalf("no offer at the deadline: %+v", fg)
	}
	if fg.Output != "a\n" {
		t.Errorf("output at the deadline = %q, want %q", fg.Output, "a\n")
	}
	if s := fg.Offer.StartedAt(); s.IsZero() || time.Since(s) < time.Second {
		t.Errorf("StartedAt = %v, want at least the deadline ago", s)
	}
	pid := pidOf(t, dir)
	// "b" is written after the deadline and before the promotion: the
	// cursor holds it for the job.
	touch(t, dir, "gate")
	waitFor(t, func() bool { return fg.Offer.p.consumer.unread() > 0 })
	rec := &registrytest.Job{}
	hooks, err := fg.Offer.Start().Run(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	if gone(pid) {
		t.Fatalf("process %d is gone after the promotion", pid)
	}
	touch(t, dir, "gate2")
	outcome, err := hooks.Done()
	if err != nil || outcome.Status != jobs.JobStatusCompleted {
		t.Fatalf("outcome = %+v, %v", outcome, err)
	}
	if got := hooks.ReadOutput(); got != "b\nc\n" {
		t.Errorf("the job's cursor read %q after the foreground's %q, want exactly %q", got, fg.Output, "b\nc\n")
	}
	if got := rec.Text(jobs.ChannelStdout); got != "a\nb\nc\n" {
		t.Errorf("record = %q, want the output from the command's start", got)
	}
	if runs, _ := os.ReadFile(filepath.Join(dir, "runs")); string(runs) != "run\n" {
		t.Errorf("the command ran %d times, want once", strings.Count(string(runs), "run"))
	}
	if _, err := fg.Offer.Start().Run(context.Background(), &registrytest.Job{}); !errors.Is(err, ErrOfferClosed) {
		t.Errorf("a second take of the offer = %v, want ErrOfferClosed", err)
	}
}

func TestDeclinedOfferKillsTheCommand(t *testing.T) {
	dir := t.TempDir()
	fg, err := RunForeground(context.Background(), Options{Command: gatedCommand(dir)}, Wait{Deadline: time.Second, Policy: DeadlineOffer})
	if err != nil || fg.Offer == nil {
		t.Fatalf("foreground = %+v, %v", fg, err)
	}
	outcome, rest, err := fg.Offer.Decline("")
	if err != nil || outcome.Status != jobs.JobStatusKilled || rest != "" {
		t.Errorf("decline = %+v, %q, %v", outcome, rest, err)
	}
	if pid := pidOf(t, dir); !gone(pid) {
		t.Errorf("process %d outlived the decline", pid)
	}
	if _, err := fg.Offer.Start().Run(context.Background(), &registrytest.Job{}); !errors.Is(err, ErrOfferClosed) {
		t.Errorf("taking a declined offer = %v, want ErrOfferClosed", err)
	}
}

func TestUnansweredOfferDeclinesItself(t *testing.T) {
	dir := t.TempDir()
	fg, err := RunForeground(context.Background(), Options{Command: gatedCommand(dir)},
		Wait{Deadline: time.Second, Policy: DeadlineOffer, AnswerWithin: 50 * time.Millisecond})
	if err != nil || fg.Offer == nil {
		t.Fatalf("foreground = %+v, %v", fg, err)
	}
	pid := pidOf(t, dir)
	waitFor(t, func() bool { return gone(pid) })
	if _, _, err := fg.Offer.Decline(""); !errors.Is(err, ErrOfferClosed) {
		t.Errorf("decline after the offer lapsed = %v, want ErrOfferClosed", err)
	}
}

func TestForegroundCallerGoingAwayKillsTheCommand(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		for range 500 {
			if _, err := os.Stat(filepath.Join(dir, "pid")); err == nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	fg, err := RunForeground(ctx, Options{Command: gatedCommand(dir)}, Wait{Policy: DeadlineNone})
	if !errors.Is(err, context.Canceled) || fg.Offer != nil || fg.Outcome.Status != jobs.JobStatusKilled {
		t.Errorf("foreground = %+v, %v", fg, err)
	}
	if pid := pidOf(t, dir); !gone(pid) {
		t.Errorf("process %d outlived its caller", pid)
	}
}

func TestForegroundRefusesAnUnusableWait(t *testing.T) {
	for name, w := range map[string]Wait{
		"no deadline":    {Policy: DeadlineOffer},
		"unknown policy": {Deadline: time.Second, Policy: "later"},
	} {
		if _, err := RunForeground(context.Background(), Options{Command: []string{"true"}}, w); err == nil {
			t.Errorf("%s: RunForeground accepted %+v", name, w)
		}
	}
}

func TestAcceptedOfferIsAJobOfTheRegistry(t *testing.T) {
	dir := t.TempDir()
	rec := &factLog{}
	reg := registry.New(registry.WithRecorder(rec))
	defer reg.Close(context.Background())
	fg, err := RunForeground(context.Background(), Options{Command: gatedCommand(dir), Owner: "s1", Kind: "sh", Poll: 10 * time.Millisecond},
		Wait{Deadline: time.Second, Policy: DeadlineOffer})
	if err != nil || fg.Offer == nil {
		t.Fatalf("foreground = %+v, %v", fg, err)
	}
	snap, err := fg.Offer.Accept(context.Background(), reg)
	if err != nil {
		t.Fatal(err)
	}
	touch(t, dir, "gate")
	touch(t, dir, "gate2")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, settled, err := reg.Wait(ctx, "s1", snap.ID, 0); err != nil || !settled {
		t.Fatalf("Wait = %v, %v", settled, err)
	}
	read, err := reg.Read("s1", snap.ID)
	if err != nil || read.Output != "b\nc\n" || read.Job.Status != jobs.JobStatusCompleted {
		t.Errorf("Read = %+v, %v; want the output after the foreground's, completed", read, err)
	}
	facts := rec.registered()
	if len(facts) != 1 || !facts[0].Promoted || facts[0].CommandStartedAt != fg.Offer.StartedAt().UnixMilli() || facts[0].At < facts[0].CommandStartedAt+1000 {
		t.Errorf("registered = %+v", facts)
	}
}

func TestRefusedPromotionFallsBackToTheKill(t *testing.T) {
	dir := t.TempDir()
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logged}, nil))
	reg := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	defer reg.Close(context.Background())
	hold := Start(Options{Command: []string{"sleep", "60"}, Owner: "s1"})
	if _, err := reg.Start(context.Background(), hold); err != nil {
		t.Fatal(err)
	}
	fg, err := RunForeground(context.Background(), Options{Command: gatedCommand(dir), Owner: "s1"},
		Wait{Deadline: time.Second, Policy: DeadlineOffer, Log: log})
	if err != nil || fg.Offer == nil {
		t.Fatalf("foreground = %+v, %v", fg, err)
	}
	if _, err := fg.Offer.Accept(context.Background(), reg); !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("Accept past the owner's limit = %v; want ErrTooManyJobs", err)
	}
	if pid := pidOf(t, dir); !gone(pid) {
		t.Errorf("process %d outlived the refused promotion", pid)
	}
	if !strings.Contains(logged.String(), "refused a promotion") {
		t.Errorf("log = %q; want the refusal logged", logged.String())
	}
}

// A factLog keeps the job/registered facts a registry records.
type factLog struct {
	mu    sync.Mutex
	facts []jobs.JobRegistered
}

func (l *factLog) Record(f jobs.Fact) error {
	if r, ok := f.(jobs.JobRegistered); ok {
		l.mu.Lock()
		l.facts = append(l.facts, r)
		l.mu.Unlock()
	}
	return nil
}

func (l *factLog) registered() []jobs.JobRegistered {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]jobs.JobRegistered(nil), l.facts...)
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestConsumerReadUpToAcrossTheRingsWrap(t *testing.T) {
	c := &consumer{limit: 8}
	c.write([]byte("abcdef"), jobs.ChannelStdout)
	if got := c.readUpTo(4); got != "abcd" {
		t.Fatalf("readUpTo(4) = %q", got)
	}
	c.write([]byte("ghij"), jobs.ChannelStdout) // wraps the ring of 8
	if got := c.readUpTo(5); got != "efghi" {
		t.Errorf("readUpTo(5) across the wrap = %q, want %q", got, "efghi")
	}
	if got := c.read(); got != "j" {
		t.Errorf("the rest = %q, want %q", got, "j")
	}
}

// Narration reaches the record and followers of a registry's job, never
// its consuming read.
func TestNarrationReachesFollowersAndNeverTheConsumingRead(t *testing.T) {
	reg := registry.New()
	defer reg.Close(context.Background())
	snap, err := reg.Start(context.Background(), Start(Options{
		Command: []string{"sh", "-c", "echo 'phase: one' >&3; echo out; echo 'phase: two' >&3"}, Owner: "s1", Narration: true, Poll: 10 * time.Millisecond,
	}))
	if err != nil {
		t.Fatal(err)
	}
	var followed strings.Builder
	for read, err := range reg.Follow(context.Background(), "s1", snap.ID, registry.FromEarliest()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range read.Frames {
			if out, ok := f.(jobs.OutputFrame); ok {
				for _, c := range out.Chunks {
					if c.Channel == jobs.ChannelLog {
						followed.WriteString(c.Text)
					}
				}
			}
		}
	}
	if followed.String() != "phase: one\nphase: two\n" {
		t.Errorf("a follower got the narration %q", followed.String())
	}
	read, err := reg.Read("s1", snap.ID)
	if err != nil || read.Output != "out\n" {
		t.Errorf("Read = %q, %v; want the output without the narration", read.Output, err)
	}
}
