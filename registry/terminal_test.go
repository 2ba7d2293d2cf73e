package registry_test

import (
	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A terminal is a fake terminal producer: it keeps what it was sent and the
// sizes it was given, and fails or panics on demand.
type terminal struct {
	*producer
	mu      sync.Mutex
	sent    []string
	sizes   []jobs.TerminalSize
	sendErr error
	panics  bool
}

func newTerminal() *terminal { return &terminal{producer: newProducer()} }

func (t *terminal) input() jobs.TerminalInput {
	return jobs.TerminalInput{Send: t.send, Resize: t.resize}
}

func (t *terminal) send(text string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.panics {
		panic("terminal closed")
	}
	if t.sendErr != nil {
		return t.sendErr
	}
	t.sent = append(t.sent, text)
	return nil
}

func (t *terminal) resize(size jobs.TerminalSize) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sizes = append(t.sizes, size)
	return nil
}

func (t *terminal) received() ([]string, []jobs.TerminalSize) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.sent...), append([]jobs.TerminalSize(nil), t.sizes...)
}

// terminalStart starts a terminal job of owner driven by term, and stores
// the producer's face in *face when face is not nil.
func terminalStart(owner jobs.SessionID, term *terminal, face *jobs.RecordingJob) jobs.RecordingJobStart {
	return jobs.RecordingJobStart{
		JobStartCommon: common(owner, "sh"),
		RunTerminal: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
			if face != nil {
				*face = job
			}
			return term.hooks(), term.input(), nil
		},
	}
}

func mustStartTerminal(t *testing.T, r *registry.Registry, start jobs.RecordingJobStart) (jobs.JobSnapshot, jobs.TerminalJob) {
	t.Helper()
	snap, handle, err := r.StartTerminal(t.Context(), start)
	if err != nil {
		t.Fatalf("StartTerminal: %v", err)
	}
	return snap, handle
}

func TestStartTerminalReturnsTheHandleThatWritesToTheTerminal(t *testing.T) {
	r := registry.New()
	term := newTerminal()
	var face jobs.RecordingJob
	snap, handle := mustStartTerminal(t, r, terminalStart("s", term, &face))
	if !snap.Terminal || !snap.Record || handle.ID() != snap.ID {
		t.Fatalf("snapshot %+v, handle %v; want a recording terminal job and its handle", snap, handle.ID())
	}
	if err := handle.Send("ls\n"); err != nil {
		t.Fatal(err)
	}
	if err := handle.Resize(jobs.TerminalSize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	if err := r.Send("s", snap.ID, "exit\n"); err != nil {
		t.Fatal(err)
	}
	if err := r.Resize("s", snap.ID, jobs.TerminalSize{Rows: 10, Cols: 20}); err != nil {
		t.Fatal(err)
	}
	sent, sizes := term.received()
	if want := []string{"ls\n", "exit\n"}; !reflect.DeepEqual(sent, want) {
		t.Errorf("the terminal got %q; want %q", sent, want)
	}
	if want := []jobs.TerminalSize{{Rows: 40, Cols: 120}, {Rows: 10, Cols: 20}}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("the terminal got sizes %v; want %v", sizes, want)
	}
	// The producer of a terminal job holds the recording face, with its
	// record: what it appends is read back like any recording job's.
	face.Append("$ ", jobs.AppendOptions{Channel: jobs.ChannelTerminal})
	if rec, err := r.ReadRecord("s", snap.ID, 0); err != nil || len(rec.Chunks) != 1 || rec.Chunks[0].Channel != jobs.ChannelTerminal {
		t.Fatalf("ReadRecord = %+v, %v; want the terminal's chunk", rec, err)
	}
}

func TestStartAndStartWaitStartTerminalJobsReachedByID(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*registry.Registry, jobs.JobStart) (jobs.JobSnapshot, error)
	}{
		{"Start", func(r *registry.Registry, s jobs.JobStart) (jobs.JobSnapshot, error) {
			return r.Start(context.Background(), s)
		}},
		{"StartWait", func(r *registry.Registry, s jobs.JobStart) (jobs.JobSnapshot, error) {
			return r.StartWait(context.Background(), s)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := registry.New()
			term := newTerminal()
			snap, err := tc.start(r, terminalStart("s", term, nil))
			if err != nil || !snap.Terminal {
				t.Fatalf("%s = %+v, %v; want a terminal job", tc.name, snap, err)
			}
			if err := r.Send("s", snap.ID, "y\n"); err != nil {
				t.Fatal(err)
			}
			if sent, _ := term.received(); len(sent) != 1 || sent[0] != "y\n" {
				t.Fatalf("the terminal got %q; want the input", sent)
			}
		})
	}
}

func TestSendAndResizeRefuse(t *testing.T) {
	r := registry.New()
	plain := mustStart(t, r, plainStart("s", "bash", newProducer()))
	_, _, recording := recordingBash(t, r, "s")
	term := newTerminal()
	live, _ := mustStartTerminal(t, r, terminalStart("s", term, nil))
	settledTerm := newTerminal()
	var settledFace jobs.RecordingJob
	settled, settledHandle := mustStartTerminal(t, r, terminalStart("s", settledTerm, &settledFace))
	settledFace.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)

	for _, tc := range []struct {
		name   string
		caller jobs.SessionID
		id     jobs.JobID
		want   error
	}{
		{"a plain job", "s", plain.ID, registry.ErrNoTerminal},
		{"a recording job started with Run", "s", recording.ID, registry.ErrNoTerminal},
		{"another session's terminal job", "t", live.ID, registry.ErrForeignJob},
		{"the empty session, for an owned job", "", live.ID, registry.ErrForeignJob},
		{"an unknown job", "s", jobs.NewJobID(), registry.ErrUnknownJob},
		{"a settled terminal job", "s", settled.ID, registry.ErrSettled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := r.Send(tc.caller, tc.id, "rm -rf /\n"); !errors.Is(err, tc.want) {
				t.Errorf("Send = %v; want %v", err, tc.want)
			}
			if err := r.Resize(tc.caller, tc.id, jobs.TerminalSize{Rows: 1, Cols: 1}); !errors.Is(err, tc.want) {
				t.Errorf("Resize = %v; want %v", err, tc.want)
			}
		})
	}
	if err := settledHandle.Send("late\n"); !errors.Is(err, registry.ErrSettled) {
		t.Errorf("the settled job's handle sent: %v; want ErrSettled", err)
	}
	if err := settledHandle.Resize(jobs.TerminalSize{Rows: 1, Cols: 1}); !errors.Is(err, registry.ErrSettled) {
		t.Errorf("the settled job's handle resized: %v; want ErrSettled", err)
	}
	for _, tm := range []*terminal{term, settledTerm} {
		if sent, sizes := tm.received(); len(sent) != 0 || len(sizes) != 0 {
			t.Errorf("a refused Send or Resize reached the producer: %q %v", sent, sizes)
		}
	}
}

func TestSendContainsTheProducersFailures(t *testing.T) {
	r := registry.New()
	term := newTerminal()
	snap, handle := mustStartTerminal(t, r, terminalStart("", term, nil))
	term.sendErr = errors.New("input/output error")
	if err := r.Send("", snap.ID, "x"); err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Errorf("Send = %v; want the producer's error", err)
	}
	term.sendErr, term.panics = nil, true
	if err := handle.Send("x"); err == nil || !strings.Contains(err.Error(), "send panicked: terminal closed") {
		t.Errorf("Send = %v; want the producer's panic as an error", err)
	}
	if err := handle.Send(""); err != nil {
		t.Errorf("empty Send = %v; want nothing written and no error", err)
	}
}

func TestStartTerminalRefusesAJobWithoutATerminal(t *testing.T) {
	r := registry.New()
	ran := false
	recording := jobs.RecordingJobStart{
		JobStartCommon: common("s", "sh"),
		Run: func(context.Context, jobs.RecordingJob) (jobs.Hooks, error) {
			ran = true
			return newProducer().hooks(), nil
		},
	}
	if _, handle, err := r.StartTerminal(t.Context(), recording); !errors.Is(err, registry.ErrInvalidStart) || handle != nil {
		t.Fatalf("StartTerminal of a start with Run = %v, %v; want ErrInvalidStart and no handle", handle, err)
	}
	both := terminalStart("s", newTerminal(), nil)
	both.Run = recording.Run
	if _, err := r.Start(t.Context(), both); !errors.Is(err, registry.ErrInvalidStart) {
		t.Fatalf("Start with Run and RunTerminal = %v; want ErrInvalidStart", err)
	}
	if ran {
		t.Fatal("a refused start ran its starter")
	}
	// The refusals took no ordinal: the next sh job is sh-1.
	if snap := mustStart(t, r, recording); snap.Name != "sh-1" {
		t.Fatalf("next job is %s; want sh-1", snap.Name)
	}
}

func TestATerminalStarterWithoutSendIsCancelled(t *testing.T) {
	r := registry.New()
	p := newProducer()
	_, _, err := r.StartTerminal(t.Context(), jobs.RecordingJobStart{
		JobStartCommon: common("s", "sh"),
		RunTerminal: func(context.Context, jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
			return p.hooks(), jobs.TerminalInput{Resize: func(jobs.TerminalSize) error { return nil }}, nil
		},
	})
	if !errors.Is(err, registry.ErrInvalidStart) {
		t.Fatalf("StartTerminal = %v; want ErrInvalidStart", err)
	}
	if reasons := p.cancelReasons(); len(reasons) != 1 {
		t.Fatalf("Cancel reasons %q; want the producer that cannot take input cancelled once", reasons)
	}
	if n := len(r.List("s")); n != 0 {
		t.Fatalf("%d jobs registered; want none", n)
	}
}

// TestOnlyTheTerminalFaceSends: the producer's faces of every kind of job
// have no Send, so no producer can assert its way to its own input; and the
// runtime's TerminalJob has no Append or Settle, so input's holder cannot
// write the producer's record or report its outcome.
func TestOnlyTheTerminalFaceSends(t *testing.T) {
	r := registry.New()
	var plain jobs.RunningJob
	mustStart(t, r, jobs.PlainJobStart{
		JobStartCommon: common("", "bash"),
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			plain = job
			return newProducer().hooks(), nil
		},
	})
	_, recording, _ := recordingBash(t, r, "")
	var producerOfTerminal jobs.RecordingJob
	_, handle := mustStartTerminal(t, r, terminalStart("", newTerminal(), &producerOfTerminal))
	for name, face := range map[string]any{"plain": plain, "recording": recording, "terminal job's producer": producerOfTerminal} {
		if _, ok := face.(jobs.TerminalJob); ok {
			t.Errorf("the %s face asserts to jobs.TerminalJob", name)
		}
		for _, m := range []string{"Send", "Resize"} {
			if _, ok := reflect.TypeOf(face).MethodByName(m); ok {
				t.Errorf("the %s face's concrete type %T has a %s method", name, face, m)
			}
		}
	}
	for _, m := range []string{"Append", "Settle", "UpdateDetail"} {
		if _, ok := reflect.TypeOf(handle).MethodByName(m); ok {
			t.Errorf("the TerminalJob's concrete type %T has a %s method", handle, m)
		}
	}
}

// TestSendOnAJobWithoutATerminalDoesNotCompile builds testdata/sendrule,
// which sends input through a producer's RecordingJob and through the
// snapshot Start returns, and appends through a TerminalJob, and requires
// the build to fail for exactly those three reasons: the face rule for
// Send is the compiler's, as it is for Append.
func TestSendOnAJobWithoutATerminalDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command in PATH: %v", err)
	}
	out, err := exec.Command(goBin, "build", "-o", "/dev/null", "./testdata/sendrule").CombinedOutput()
	if err == nil {
		t.Fatal("a program sending input to a job without a terminal compiled")
	}
	want := []string{
		"job.Send undefined (type jobs.RecordingJob has no field or method Send)",
		"snap.Send undefined (type jobs.JobSnapshot has no field or method Send)",
		"term.Append undefined (type jobs.TerminalJob has no field or method Append)",
	}
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(line, "main.go:") {
			errs = append(errs, line)
		}
	}
	if len(errs) != len(want) {
		t.Fatalf("build failed with %d errors; want exactly %d:\n%s", len(errs), len(want), out)
	}
	for i, w := range want {
		if !strings.Contains(errs[i], w) {
			t.Errorf("error %d is %q; want %q", i+1, errs[i], w)
		}
	}
}
