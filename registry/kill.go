package registry

import (
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A KillResult says what a Kill did.
type KillResult int

const (
	// KillRequested means the producer was asked to stop; the job is stopping
	// (or settled meanwhile).
	KillRequested KillResult = iota + 1
	// KillAlreadyFinished means the job had already settled; nothing was done.
	KillAlreadyFinished
)

// String returns the result as logs and tests spell it.
func (k KillResult) String() string {
	switch k {
	case KillRequested:
		return "requested"
	case KillAlreadyFinished:
		return "already-finished"
	}
	return fmt.Sprintf("KillResult(%d)", int(k))
}

// Kill asks a job visible to caller to stop. It calls the job's Cancel with
// reason first; an error leaves the job untouched and is returned. Then the
// job is marked reported (the caller of Kill has its end in hand), moves to
// stopping (firing jobs-changed) and keeps its admission slot
// until its producer ends; if it then reports failed or killed, it settles
// killed with reason merged into its detail ("<detail>; <reason>").
//
// The stop counts as asked from the moment Cancel is called, as for a
// teardown: a producer that reports while its Cancel still runs settles by
// the same rule. A Cancel that fails withdraws the request, unless another
// kill's Cancel is still running or has succeeded.
func (r *Registry) Kill(caller jobs.SessionID, id jobs.JobID, reason string) (KillResult, error) {
	j, err := r.lookup(caller, id)
	if err != nil {
		return 0, fmt.Errorf("registry: kill %s: %w", id, err)
	}
	switch j.state {
	case stateSettled:
		j.sh.mu.Unlock()
		return KillAlreadyFinished, nil
	case stateSettling:
		done := r.doneOf(j)
		j.sh.mu.Unlock()
		<-done // the settlement is decided; let it become visible first
		return KillAlreadyFinished, nil
	}
	if err := r.askStop(j, stopAsk{reason: reason, cause: jobs.SettlementCauseKill, reported: true, withdraw: true}); err != nil {
		return 0, fmt.Errorf("registry: kill %s: cancel: %w", id, err)
	}
	return KillRequested, nil
}

// A stopAsk is what one path asking a job to stop (a Kill, a deadline)
// brings to askStop: the reason and cause of the stop, and the two ways the
// paths differ.
type stopAsk struct {
	reason string
	cause  jobs.SettlementCause
	// reported marks the job reported once its Cancel succeeded: the asker
	// holds the job's end, also when the producer settled while Cancel ran.
	reported bool
	// withdraw takes back a failed Cancel's tentative request, unless
	// another Cancel is still running or has succeeded.
	withdraw bool
}

// askStop asks a live or stopping job's producer to stop: the stop counts
// as requested (tentatively) from before Cancel is called, so a producer
// that reports while its Cancel runs settles by the stop's rule; once
// Cancel succeeded the request is for good and a job still live moves to
// stopping, firing jobs-changed. It returns Cancel's error. j.sh.mu must
// be held; askStop releases it.
func (r *Registry) askStop(j *job, ask stopAsk) error {
	if !j.stopRequested {
		j.stopRequested, j.stopReason, j.stopCause = true, ask.reason, ask.cause
		j.stopTentative = true
	}
	j.killsCancelling++
	cancel := j.hooks.Cancel
	sh := j.sh
	sh.mu.Unlock()

	err := r.callCancel(cancel, ask.reason)

	sh.mu.Lock()
	j.killsCancelling--
	if err != nil {
		if ask.withdraw && j.stopTentative && j.killsCancelling == 0 {
			j.stopRequested, j.stopReason, j.stopCause, j.stopTentative = false, "", "", false
		}
		sh.mu.Unlock()
		return err
	}
	j.stopTentative = false
	if ask.reported {
		j.reported = true
	}
	if j.state != stateLive {
		sh.mu.Unlock()
		return nil
	}
	moved := sh.stop(j)
	sh.mu.Unlock()
	if moved {
		r.fireChanged(r.changed.load())
	}
	return nil
}
