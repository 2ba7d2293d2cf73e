package registry

import (
	"fmt"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// armDeadline starts the timer of a job whose JobStart set a Timeout, at its
// registration commit. A time.AfterFunc timer costs no goroutine until it
// fires. j.sh.mu must be held.
func (r *Registry) armDeadline(j *job) {
	if j.timeout <= 0 {
		return
	}
	j.deadline = time.AfterFunc(j.timeout, func() { r.expire(j) })
}

// stopDeadline stops a settling job's timer. j.sh.mu must be held.
func (r *Registry) stopDeadline(j *job) {
	if j.deadline != nil {
		j.deadline.Stop()
		j.deadline = nil
	}
}

// timeoutReason is the reason a deadline passes to Cancel and merges into a
// killed settlement's detail.
func timeoutReason(d time.Duration) string {
	return fmt.Sprintf("timeout: the job's deadline of %s passed", d)
}

// expire runs on the timer's goroutine when j's deadline passes: it asks the
// producer to stop as Kill does, with cause timeout, so the producer's
// outcome after that settles the job (a reported failure as killed). It
// differs from Kill in two ways: nobody holds the job's end, so the job is
// not marked reported; and nobody can be told that Cancel failed, so a
// failing Cancel force-settles the job failed rather than leave a job past
// its deadline running. A job that another kill or a teardown is already
// stopping is left to that stop.
func (r *Registry) expire(j *job) {
	j.sh.mu.Lock()
	j.deadline = nil
	if j.state != stateLive || (j.stopRequested && !j.stopTentative) {
		j.sh.mu.Unlock()
		return
	}
	reason := timeoutReason(j.timeout)
	if err := r.askStop(j, stopAsk{reason: reason, cause: jobs.SettlementCauseTimeout}); err != nil {
		detail := fmt.Sprintf("%s and cancel failed; work may be orphaned: %v", reason, err)
		if r.forceSettle(j, jobs.SettlementCauseTimeout, detail) {
			r.log.Error("registry: deadline force-settled a job", "job", j.id, "name", j.name, "err", err)
		}
	}
}
