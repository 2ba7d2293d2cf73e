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
	r.mu.Lock()
	j, err := r.lookup(caller, id)
	if err != nil {
		r.mu.Unlock()
		return 0, fmt.Errorf("registry: kill %s: %w", id, err)
	}
	switch j.state {
	case stateSettled:
		r.mu.Unlock()
		return KillAlreadyFinished, nil
	case stateSettling:
		done := r.doneOf(j)
		r.mu.Unlock()
		<-done // the settlement is decided; let it become visible first
		return KillAlreadyFinished, nil
	}
	if !j.stopRequested {
		j.stopRequested, j.stopReason, j.stopCause = true, reason, jobs.SettlementCauseKill
		j.stopTentative = true
	}
	j.killsCancelling++
	cancel := j.hooks.Cancel
	r.mu.Unlock()

	err = r.callCancel(cancel, reason)

	r.mu.Lock()
	j.killsCancelling--
	if err != nil {
		if j.stopTentative && j.killsCancelling == 0 {
			j.stopRequested, j.stopReason, j.stopCause, j.stopTentative = false, "", "", false
		}
		r.mu.Unlock()
		return 0, fmt.Errorf("registry: kill %s: cancel: %w", id, err)
	}
	j.stopTentative = false
	// The kill hands the job's end to its caller: reported from now on, also
	// when the producer settled while Cancel ran.
	j.reported = true
	if j.state != stateLive {
		r.mu.Unlock()
		return KillRequested, nil
	}
	moved := r.stop(j)
	ls := r.changed.list
	r.mu.Unlock()
	if moved {
		r.fireChanged(ls)
	}
	return KillRequested, nil
}
