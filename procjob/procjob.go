// Package procjob runs an operating-system command as a recording job.
//
// Start returns a jobs.RecordingJobStart for a registry. Its producer starts
// the command in a process group of its own, captures stdout and stderr, and
// pumps both into the job's record labelled with their channels, while the
// consuming cursor (Hooks.ReadOutput) still receives every byte. Cancel sends
// SIGTERM to the process group and SIGKILL after a grace period. Done waits
// for the process to exit and for the pump's final drain, so every byte the
// process wrote is in the record before the outcome is reported: exit status 0
// completes the job, any other status fails it with the status in the detail,
// and a process ended by Cancel is killed. Nothing the job starts — process,
// goroutine or file descriptor — outlives Done.
package procjob

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// Options describe the command and how to run it.
type Options struct {
	// Command is the program and its arguments; it is required.
	Command []string
	Dir     string   // working directory; empty is the caller's
	Env     []string // environment; nil inherits the caller's

	Kind     string // job kind; defaults to the program's base name
	Label    string // job label; defaults to the command line
	Owner    jobs.SessionID
	ToolCall jobs.ToolCallID

	// Grace is how long Cancel waits after SIGTERM before SIGKILL; zero means 2s.
	Grace time.Duration
	// Poll is the pump cadence when Pacer is nil; zero means jobs.DefaultPumpPoll.
	Poll time.Duration
	// Pacer, when set, shares one pump goroutine and timer among many jobs.
	Pacer *registry.Pacer
	// Window is how many recent bytes of each stream stay readable by the
	// pump; output that outruns the pump by more is recorded as a gap.
	// Zero means jobs.DefaultRetainBytes.
	Window int
	// ReadOutputLimit caps the unread bytes kept for ReadOutput; zero means 64 MiB.
	ReadOutputLimit int
}

// Start returns a start for the registry that runs the command as a
// recording job.
func Start(opts Options) jobs.RecordingJobStart {
	kind, label := opts.Kind, opts.Label
	if len(opts.Command) > 0 {
		if kind == "" {
			kind = baseName(opts.Command[0])
		}
		if label == "" {
			label = commandLine(opts.Command)
		}
	}
	return jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: kind, Label: label, Owner: opts.Owner, ToolCall: opts.ToolCall},
		Run: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			return run(job, opts)
		},
	}
}

// A process is one running command and what watches it.
type process struct {
	cmd      *exec.Cmd
	grace    time.Duration
	exited   registry.OnceSignal // the process has exited and its pipes are drained
	waitErr  error               // cmd.Wait's result, set before exited fires
	pumpDone chan error          // the pump's result, after its final drain
	out, err *stream
	consumer *consumer

	mu        sync.Mutex
	cancelled string // the first Cancel's reason
	killTimer *time.Timer

	doneOnce sync.Once
	outcome  jobs.JobOutcome
	doneErr  error
}

func run(job jobs.RecordingJob, opts Options) (jobs.Hooks, error) {
	if len(opts.Command) == 0 {
		return jobs.Hooks{}, errors.New("procjob: no command")
	}
	window := opts.Window
	if window <= 0 {
		window = jobs.DefaultRetainBytes
	}
	limit := opts.ReadOutputLimit
	if limit <= 0 {
		limit = 64 << 20
	}
	p := &process{grace: opts.Grace, pumpDone: make(chan error, 1), consumer: &consumer{limit: limit}}
	if p.grace <= 0 {
		p.grace = 2 * time.Second
	}
	p.out = &stream{window: window, sink: p.consumer}
	p.err = &stream{window: window, sink: p.consumer}

	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	cmd.Stdout, cmd.Stderr = p.out, p.err
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that keeps a pipe open must not hold Done forever.
	cmd.WaitDelay = p.grace
	p.cmd = cmd
	if err := cmd.Start(); err != nil {
		return jobs.Hooks{}, fmt.Errorf("procjob: start %s: %w", commandLine(opts.Command), err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		p.out.close()
		p.err.close()
		p.mu.Lock()
		if p.killTimer != nil {
			p.killTimer.Stop()
		}
		p.mu.Unlock()
		p.exited.Fire()
	}()
	poll := opts.Poll
	if poll <= 0 {
		poll = jobs.DefaultPumpPoll
	}
	sources := []registry.PumpSource{{Reader: p.out, Channel: jobs.ChannelStdout}, {Reader: p.err, Channel: jobs.ChannelStderr}}
	go func() {
		p.pumpDone <- registry.PumpJobOutput(context.Background(), job, sources,
			registry.PumpOptions{Poll: poll, Pacer: opts.Pacer, Done: &p.exited})
	}()
	return jobs.Hooks{Cancel: p.cancel, Done: p.done, ReadOutput: p.consumer.read}, nil
}

// cancel sends SIGTERM to the process group, and SIGKILL after the grace
// period if the process is still there. It is idempotent.
func (p *process) cancel(reason string) error {
	if p.exited.Fired() {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killTimer != nil {
		return nil // already asked
	}
	pgid := p.cmd.Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("procjob: signal process group %d: %w", pgid, err)
	}
	if reason == "" {
		reason = "cancelled"
	}
	p.cancelled = reason
	p.killTimer = time.AfterFunc(p.grace, func() {
		if !p.exited.Fired() {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
	return nil
}

// done waits for the process to exit and the pump to drain, then reports the
// outcome from the exit status. Every call returns the same result.
func (p *process) done() (jobs.JobOutcome, error) {
	p.doneOnce.Do(func() { p.outcome, p.doneErr = p.wait() })
	return p.outcome, p.doneErr
}

func (p *process) wait() (jobs.JobOutcome, error) {
	pumpErr := <-p.pumpDone // returns only after exited fired and the final drain ran
	if pumpErr != nil {
		return jobs.JobOutcome{}, fmt.Errorf("procjob: pump: %w", pumpErr)
	}
	p.mu.Lock()
	cancelled := p.cancelled
	p.mu.Unlock()
	err := p.waitErr
	var exit *exec.ExitError
	switch {
	case err == nil:
		return jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "exit status 0"}, nil
	case errors.As(err, &exit):
		status, _ := exit.Sys().(syscall.WaitStatus)
		if cancelled != "" && status.Signaled() {
			return jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: "terminated by " + signalName(status.Signal())}, nil
		}
		if status.Signaled() {
			return jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "terminated by " + signalName(status.Signal())}, nil
		}
		return jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: fmt.Sprintf("exit status %d", exit.ExitCode())}, nil
	case errors.Is(err, exec.ErrWaitDelay):
		// The process exited cleanly but something it started kept its output open.
		return jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "exit status 0; output still open after exit was cut off"}, nil
	}
	return jobs.JobOutcome{}, fmt.Errorf("procjob: wait: %w", err)
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return s.String()
}
