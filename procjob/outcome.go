package procjob

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/jobgen/jobgen/generated/jobs"
)

// done waits for the process group to end and the pump to drain, then reports
// the outcome from the leader's exit status. Every call returns the same result.
func (p *process) done() (jobs.JobOutcome, error) {
	p.doneOnce.Do(func() { p.outcome, p.doneErr = p.wait() })
	return p.outcome, p.doneErr
}

func (p *process) wait() (jobs.JobOutcome, error) {
	p.mu.Lock()
	attached, job := p.attached, p.job
	p.mu.Unlock()
	// The registry calls Done only once the job's registration is
	// committed (and recorded), so job/command follows job/registered.
	recording := attached && p.opts.Recorder != nil && p.opts.Owner != ""
	var recordErrs []error
	if recording {
		recordErrs = append(recordErrs, p.recordCommand(job))
	}
	if attached {
		pumpErr := <-p.pumpDone // returns only after exited fired and the final drain ran
		if pumpErr != nil {
			return jobs.JobOutcome{}, fmt.Errorf("procjob: pump: %w", pumpErr)
		}
	} else {
		exited := make(chan struct{})
		p.exited.Subscribe(func() { close(exited) })
		<-exited
	}
	p.mu.Lock()
	cancelled := p.cancelled != ""
	p.mu.Unlock()
	outcome, err := p.leaderOutcome(cancelled)
	if err != nil {
		return outcome, err
	}
	if p.leftovers {
		outcome.Detail += "; stopped the processes it left running in its group"
	}
	switch {
	case p.stopErr != nil:
		outcome.Detail += "; " + p.stopErr.Error()
	case p.survivors:
		outcome.Detail += "; processes of its group were still there after SIGKILL"
	}
	if p.cutOff {
		outcome.Detail += "; output still open after its process group ended was cut off"
	}
	if p.kept != nil {
		outcome.Detail += "; " + p.kept.Error()
	}
	if recording {
		recordErrs = append(recordErrs, p.recordExit(job, p.endedAt))
	}
	for _, err := range recordErrs {
		if err != nil {
			outcome.Detail += "; " + err.Error()
		}
	}
	return outcome, nil
}

// leaderOutcome reads the leader's exit: status 0 completes the job, a
// signal after Cancel kills it, anything else fails it.
func (p *process) leaderOutcome(cancelled bool) (jobs.JobOutcome, error) {
	err := p.waitErr
	if err == nil {
		return jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "exit status 0"}, nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return jobs.JobOutcome{}, fmt.Errorf("procjob: wait: %w", err)
	}
	detail, signalled := describeExit(exit, cancelled)
	if cancelled && signalled {
		return jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: detail}, nil
	}
	return jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: detail}, nil
}
