package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
)

var (
	// ErrNoTerminal reports input or a resize for a job that does not run
	// under a terminal: a plain job, or a recording job started with Run.
	ErrNoTerminal = errors.New("job has no terminal")
	// ErrSettled reports input or a resize for a terminal job that has
	// settled: its terminal is gone.
	ErrSettled = errors.New("job has settled")
)

// StartTerminal starts a terminal job, a RecordingJobStart whose RunTerminal
// is set, as Start does, and returns its registered snapshot and its
// [jobs.TerminalJob]: the one handle that writes to the job's terminal
// without naming a session. Start and StartWait start terminal jobs too;
// their input then goes by id, through Send and Resize. A start without
// RunTerminal is an invalid start, refused before admission, so a job
// without a terminal never has a TerminalJob.
func (r *Registry) StartTerminal(ctx context.Context, start jobs.RecordingJobStart) (jobs.JobSnapshot, jobs.TerminalJob, error) {
	spec, err := parseStart(start)
	if err != nil {
		return jobs.JobSnapshot{}, nil, err
	}
	if spec.terminal == nil {
		return jobs.JobSnapshot{}, nil, fmt.Errorf("registry: start terminal %q: no RunTerminal: %w", start.Kind, ErrInvalidStart)
	}
	j, snap, err := r.start(ctx, spec, false)
	if err != nil {
		return jobs.JobSnapshot{}, nil, err
	}
	return snap, terminalFace{j}, nil
}

// Send writes text to the terminal of a job visible to caller, as the
// job's [jobs.TerminalJob] would: the route for input that arrives by id
// (the wire, a tool). A job the caller cannot see is [ErrUnknownJob] or
// [ErrForeignJob], as for every read; a job without a terminal is
// [ErrNoTerminal]; a terminal job that has settled is [ErrSettled]. An
// error of the producer's Send is returned wrapped. Empty text writes
// nothing.
func (r *Registry) Send(caller jobs.SessionID, id jobs.JobID, text string) error {
	in, err := r.lockTerminal(caller, id, nil)
	if err != nil {
		return fmt.Errorf("registry: send %s: %w", id, err)
	}
	if err := r.callSend(in, text); err != nil {
		return fmt.Errorf("registry: send %s: %w", id, err)
	}
	return nil
}

// Resize changes the terminal window of a job visible to caller, refusing
// as Send does.
func (r *Registry) Resize(caller jobs.SessionID, id jobs.JobID, size jobs.TerminalSize) error {
	in, err := r.lockTerminal(caller, id, nil)
	if err != nil {
		return fmt.Errorf("registry: resize %s: %w", id, err)
	}
	if err := r.callResize(in, size); err != nil {
		return fmt.Errorf("registry: resize %s: %w", id, err)
	}
	return nil
}

// lockTerminal finds the terminal input of a live terminal job: id's
// visible to caller, or, when j is given, j's with no fence (its
// TerminalJob's holder started it). It holds only the job's own lock, and
// releases it before returning, so input never waits on the job's shard.
func (r *Registry) lockTerminal(caller jobs.SessionID, id jobs.JobID, j *job) (*jobs.TerminalInput, error) {
	fenced := j == nil
	if fenced {
		if j = r.ids.get(id); j == nil {
			return nil, ErrUnknownJob
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case fenced && !j.listed():
		return nil, ErrUnknownJob
	case fenced && !j.visibleTo(caller):
		return nil, ErrForeignJob
	case j.terminal() == nil:
		return nil, ErrNoTerminal
	case j.state != stateLive:
		// Settling or settled: the producer has reported, or was
		// force-settled, and its terminal is gone or going.
		return nil, ErrSettled
	}
	return j.terminal(), nil
}

// callSend calls the producer's Send with no lock held, turning a panic
// into an error.
func (r *Registry) callSend(in *jobs.TerminalInput, text string) (err error) {
	if text == "" {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("send panicked: %v", v)
		}
	}()
	return in.Send(text)
}

// callResize calls the producer's Resize with no lock held, turning a
// panic into an error.
func (r *Registry) callResize(in *jobs.TerminalInput, size jobs.TerminalSize) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("resize panicked: %v", v)
		}
	}()
	return in.Resize(size)
}

// A terminalFace is what StartTerminal hands the runtime: the job's
// terminal, and nothing of its producer's face (no Append, no Settle).
type terminalFace struct{ j *job }

// ID returns the job's identifier.
func (f terminalFace) ID() jobs.JobID { return f.j.id }

// Send writes text to the job's terminal; see [jobs.TerminalJob].
func (f terminalFace) Send(text string) error {
	in, err := f.j.r.lockTerminal("", f.j.id, f.j)
	if err == nil {
		err = f.j.r.callSend(in, text)
	}
	if err != nil {
		return fmt.Errorf("registry: send %s: %w", f.j.id, err)
	}
	return nil
}

// Resize changes the size of the job's terminal window.
func (f terminalFace) Resize(size jobs.TerminalSize) error {
	in, err := f.j.r.lockTerminal("", f.j.id, f.j)
	if err == nil {
		err = f.j.r.callResize(in, size)
	}
	if err != nil {
		return fmt.Errorf("registry: resize %s: %w", f.j.id, err)
	}
	return nil
}

var _ jobs.TerminalJob = terminalFace{}
