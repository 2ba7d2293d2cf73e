package registry

import (
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A settlement is what one source asks a job to settle as.
type settlement struct {
	status           jobs.JobStatus
	detail           string // empty keeps the last progress line
	output           string
	producerReported bool
	// outcome marks a settlement from the producer's own outcome, to which
	// the stop rule applies: after a kill or teardown asked the producer to
	// stop, a reported failure is the stop's doing and settles killed.
	outcome bool
}

// awaitProducer runs on its own goroutine per job: it blocks in Done and
// settles the job with what Done returns.
func (r *Registry) awaitProducer(j *job) {
	out, err := callDone(j.hooks.Done)
	var s settlement
	switch {
	case err != nil:
		s = settlement{status: jobs.JobStatusFailed, detail: "producer failed: " + err.Error()}
	case !out.Status.Terminal():
		s = settlement{status: jobs.JobStatusFailed, detail: fmt.Sprintf(
			"producer failed: it reported status %q, which is not terminal (want completed, killed or failed); its detail was %q",
			out.Status, out.Detail)}
	default:
		s = settlement{status: out.Status, detail: out.Detail, output: out.Output, producerReported: true, outcome: true}
	}
	if !r.settle(j, s) {
		r.log.Debug("registry: producer ended after its job settled", "job", j.id, "status", s.status)
	}
}

// callDone calls a Done hook, turning a panic into an error.
func callDone(done func() (jobs.JobOutcome, error)) (out jobs.JobOutcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return done()
}

// forceSettle settles j as failed without its producer's word.
func (r *Registry) forceSettle(j *job, detail string) bool {
	return r.settle(j, settlement{status: jobs.JobStatusFailed, detail: detail})
}

// settle is the only close of a job, first-wins. In order: claim the job and
// decide status, detail, output and finishedAt; record the settled fact (no
// lock held; readers still see the job live); then, in one critical section,
// apply them, mark reported if waiters exist, free the admission slot, trim
// the record and snapshot; then release waiters, fire jobs-changed, the final
// output signal (recording jobs) and the done listeners. It reports whether
// this call settled the job.
func (r *Registry) settle(j *job, s settlement) bool {
	at := r.now()
	r.mu.Lock()
	if j.state != stateLive {
		r.mu.Unlock()
		return false
	}
	status, detail := s.status, s.detail
	if s.outcome && j.stopRequested && status == jobs.JobStatusFailed {
		status = jobs.JobStatusKilled
	}
	if !lifecycle.CanTransition(j.status, status) {
		detail = fmt.Sprintf("registry: illegal move %s → %s (%s)", j.status, status, detail)
		status = jobs.JobStatusFailed
		s.producerReported = false
	}
	if detail == "" {
		detail = j.detail
	}
	if status == jobs.JobStatusKilled && j.stopReason != "" {
		detail = joinDetail(detail, j.stopReason)
	}
	j.state = stateSettling
	var fact jobs.Fact
	if j.owner != "" {
		fact = jobs.JobSettled{
			JobID:            j.id,
			At:               at,
			Status:           status,
			Detail:           detail,
			ProducerReported: s.producerReported,
			Registration:     j.registration(),
		}
	}
	r.mu.Unlock()

	if fact != nil {
		r.record(fact, j.id)
	}

	r.mu.Lock()
	j.status = status
	j.detail = detail
	j.output = s.output
	j.finishedAt = at
	j.producerReported = s.producerReported
	if j.waiters > 0 {
		j.reported = true
	}
	j.state = stateSettled
	r.releaseSlot(j.owner)
	if j.record != nil {
		j.record.settle(r.limits.SettledRetainBytes)
	}
	snap := j.snapshot()
	changed, output, done := r.changed.list, r.output.list, r.done.list
	r.mu.Unlock()

	close(j.done)
	r.fireChanged(changed)
	if j.record != nil {
		r.fireOutput(output, j.id)
	}
	r.fireDone(done, snap)
	return true
}

func joinDetail(detail, reason string) string {
	switch {
	case detail == "":
		return reason
	case reason == "":
		return detail
	}
	return detail + "; " + reason
}

// A KillResult says what a Kill did.
type KillResult int

const (
	// KillRequested means the producer was asked to stop; the job is stopping
	// (or settled meanwhile).
	KillRequested KillResult = iota + 1
	// KillAlreadyFinished means the job had already settled; nothing was done.
	KillAlreadyFinished
)

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
// job moves to stopping (firing jobs-changed) and keeps its admission slot
// until its producer ends; if it then reports failed or killed, it settles
// killed with reason merged into its detail ("<detail>; <reason>").
func (r *Registry) Kill(caller jobs.SessionId, id jobs.JobId, reason string) (KillResult, error) {
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
		r.mu.Unlock()
		<-j.done // the settlement is decided; let it become visible first
		return KillAlreadyFinished, nil
	}
	cancel := j.hooks.Cancel
	r.mu.Unlock()

	if err := r.callCancel(cancel, reason); err != nil {
		return 0, fmt.Errorf("registry: kill %s: cancel: %w", id, err)
	}

	r.mu.Lock()
	if j.state != stateLive {
		r.mu.Unlock()
		return KillRequested, nil
	}
	if !j.stopRequested {
		j.stopRequested, j.stopReason = true, reason
	}
	moved := r.stop(j)
	ls := r.changed.list
	r.mu.Unlock()
	if moved {
		r.fireChanged(ls)
	}
	return KillRequested, nil
}

// stop moves a running job to stopping and reports whether it moved. r.mu
// must be held.
func (r *Registry) stop(j *job) bool {
	if !lifecycle.CanTransition(j.status, jobs.JobStatusStopping) {
		return false
	}
	j.status = jobs.JobStatusStopping
	return true
}
