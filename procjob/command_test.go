//go:build unix

package procjob

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A fullLog keeps every fact a registry or procjob records, in order.
type fullLog struct {
	mu    sync.Mutex
	facts []jobs.Fact
}

func (l *fullLog) Record(f jobs.Fact) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.facts = append(l.facts, f)
	return nil
}

func (l *fullLog) all() []jobs.Fact {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.facts)
}

// commandFacts runs start in a registry recording to log, waits for it to
// settle (after kill, if kill is set, once it has written "started") and
// returns the facts recorded, checked to be job/registered, job/command,
// job/exited and job/settled in that order.
func commandFacts(t *testing.T, start func(reg *registry.Registry) (jobs.JobSnapshot, error), log *fullLog, kill bool) (jobs.JobCommand, jobs.JobExited) {
	t.Helper()
	reg := registry.New(registry.WithRecorder(log))
	defer reg.Close(context.Background())
	snap, err := start(reg)
	if err != nil {
		t.Fatal(err)
	}
	if kill {
		waitFor(t, func() bool { r, _ := reg.Read("s1", snap.ID); return strings.Contains(r.Output, "started") })
		if _, err := reg.Kill("s1", snap.ID, "enough"); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, settled, err := reg.Wait(ctx, "s1", snap.ID, 0); err != nil || !settled {
		t.Fatalf("Wait = %v, %v", settled, err)
	}
	facts := log.all()
	var types []string
	for _, f := range facts {
		types = append(types, f.FactType())
	}
	if want := []string{"job/registered", "job/command", "job/exited", "job/settled"}; !slices.Equal(types, want) {
		t.Fatalf("facts = %v; want %v", types, want)
	}
	cmd, exited := facts[1].(jobs.JobCommand), facts[2].(jobs.JobExited)
	if cmd.JobID != snap.ID || exited.JobID != snap.ID || cmd.Owner != "s1" || exited.Owner != "s1" {
		t.Errorf("facts of %s = %+v, %+v; want the job's, owned by s1", snap.ID, cmd, exited)
	}
	if settled := facts[3].(jobs.JobSettled); exited.At > settled.At || cmd.At > exited.At {
		t.Errorf("command at %d, exited at %d, settled at %d; want them in that order", cmd.At, exited.At, settled.At)
	}
	return cmd, exited
}

func TestProcjobRecordsTheCommandAndItsExitCode(t *testing.T) {
	dir := t.TempDir()
	log := &fullLog{}
	argv := []string{"sh", "-c", "exit 3", "a b", "--token=x"}
	cmd, exited := commandFacts(t, func(reg *registry.Registry) (jobs.JobSnapshot, error) {
		return reg.Start(context.Background(), Start(Options{Command: argv, Dir: dir, Owner: "s1", Recorder: log}))
	}, log, false)
	if !slices.Equal(cmd.Argv, argv) || cmd.Dir != dir || cmd.Truncated {
		t.Errorf("job/command = %+v; want argv %q in %s, whole", cmd, argv, dir)
	}
	if exited.ExitCode != 3 || exited.Signal != "" {
		t.Errorf("job/exited = %+v; want exit code 3, no signal", exited)
	}
}

func TestProcjobRecordsTheSignalThatEndedTheCommand(t *testing.T) {
	log := &fullLog{}
	_, exited := commandFacts(t, func(reg *registry.Registry) (jobs.JobSnapshot, error) {
		return reg.Start(context.Background(), Start(Options{Command: []string{"sh", "-c", "echo started; exec sleep 60"}, Owner: "s1", Recorder: log, Poll: 10 * time.Millisecond}))
	}, log, true)
	if exited.ExitCode != -1 || exited.Signal != "SIGTERM" {
		t.Errorf("job/exited = %+v; want -1 and SIGTERM", exited)
	}
}

func TestPromotedForegroundCommandRecordsItsCommand(t *testing.T) {
	dir := t.TempDir()
	log := &fullLog{}
	argv := gatedCommand(dir)
	cmd, exited := commandFacts(t, func(reg *registry.Registry) (jobs.JobSnapshot, error) {
		fg, err := RunForeground(context.Background(), Options{Command: argv, Owner: "s1", Recorder: log, Poll: 10 * time.Millisecond},
			Wait{Deadline: 200 * time.Millisecond, Policy: DeadlineOffer})
		if err != nil || fg.Offer == nil {
			t.Fatalf("foreground = %+v, %v", fg, err)
		}
		snap, err := fg.Offer.Accept(context.Background(), reg)
		touch(t, dir, "gate")
		touch(t, dir, "gate2")
		return snap, err
	}, log, false)
	if !slices.Equal(cmd.Argv, argv) || exited.ExitCode != 0 || exited.Signal != "" {
		t.Errorf("job/command = %+v, job/exited = %+v; want its argv and exit 0", cmd, exited)
	}
}

func TestForegroundCommandThatEndsInTimeRecordsNothing(t *testing.T) {
	log := &fullLog{}
	fg, err := RunForeground(context.Background(), Options{Command: []string{"true"}, Owner: "s1", Recorder: log},
		Wait{Deadline: 30 * time.Second, Policy: DeadlineOffer})
	if err != nil || fg.Offer != nil {
		t.Fatalf("foreground = %+v, %v", fg, err)
	}
	if facts := log.all(); len(facts) != 0 {
		t.Errorf("facts = %v; a command that was never a job has none", facts)
	}
}

func TestUnownedJobRecordsNoCommand(t *testing.T) {
	log := &fullLog{}
	reg := registry.New(registry.WithRecorder(log))
	defer reg.Close(context.Background())
	snap, err := reg.Start(context.Background(), Start(Options{Command: []string{"true"}, Recorder: log}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := reg.Wait(ctx, "", snap.ID, 0); err != nil {
		t.Fatal(err)
	}
	if facts := log.all(); len(facts) != 0 {
		t.Errorf("facts = %v; an unowned job has no stream to record on", facts)
	}
}

func TestBoundCommandCutsAtTheLimitOnARuneBoundary(t *testing.T) {
	for _, c := range []struct {
		name      string
		argv      []string
		dir       string
		limit     int
		want      []string
		wantDir   string
		truncated bool
	}{
		{"within", []string{"ls", "-l"}, "/tmp", 10, []string{"ls", "-l"}, "/tmp", false},
		{"exactly", []string{"ab", "cd"}, "", 4, []string{"ab", "cd"}, "", false},
		{"cut argument", []string{"echo", "abcdef"}, "", 7, []string{"echo", "abc"}, "", true},
		{"dropped arguments", []string{"echo", "ab", "cd", "ef"}, "", 6, []string{"echo", "ab"}, "", true},
		{"rune kept whole", []string{"é€x"}, "", 4, []string{"é"}, "", true},
		{"dir first", []string{"ls"}, "/very/long", 5, []string{}, "/very", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, dir, truncated := boundCommand(c.argv, c.dir, c.limit)
			if !slices.Equal(got, c.want) || dir != c.wantDir || truncated != c.truncated {
				t.Errorf("boundCommand(%q, %q, %d) = %q, %q, %v; want %q, %q, %v", c.argv, c.dir, c.limit, got, dir, truncated, c.want, c.wantDir, c.truncated)
			}
		})
	}
}
