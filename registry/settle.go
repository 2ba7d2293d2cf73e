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
	result           string // the producer's result, handed once to the first Read
	resultBytes      int64  // len(result), kept when the Read takes it
	producerReported bool
	at               int64 // finishedAt, Unix ms
	// cause names the source that settled the job, for the settled fact; a
	// producer's settlement leaves it empty and claim fills it in.
	cause jobs.SettlementCause
	// outcome marks a settlement from the producer's own outcome, to which
	// the stop rule applies: after a kill or teardown asked the producer to
	// stop, a reported failure is the stop's doing and settles killed.
	outcome bool
}

// awaitProducer runs on a goroutine of its own for a job whose starter
// returned a Done hook: it blocks in Done and settles the job with what Done
// returns.
func (r *Registry) awaitProducer(j *job) {
	s := producerSettlement(callDone(j.hooks.Done))
	r.producerOutcome(j, &s)
}

// producerOutcome settles j with its producer's outcome, from Done or from
// the face's Settle. Only the producer's first outcome counts. Inside the
// starter (and while the registered fact is recorded) the outcome is kept
// for the registration commit, which applies it.
func (r *Registry) producerOutcome(j *job, s *settlement) {
	j.sh.mu.Lock()
	if j.outcomeSeen {
		j.sh.mu.Unlock()
		r.logLateOutcome(j)
		return
	}
	j.outcomeSeen = true
	if j.state == stateStaged {
		pending := *s
		j.pending = &pending
		j.sh.mu.Unlock()
		return
	}
	j.sh.mu.Unlock()
	if !r.settle(j, s) {
		r.logLateOutcome(j)
	}
}

// producerSettlement turns what Done returned into a settlement: the outcome
// when its status is terminal, else a producer failure.
func producerSettlement(out jobs.JobOutcome, err error) settlement {
	switch {
	case err != nil:
		return settlement{status: jobs.JobStatusFailed, detail: "producer failed: " + err.Error()}
	case !out.Status.Terminal():
		return settlement{status: jobs.JobStatusFailed, detail: fmt.Sprintf(
			"producer failed: it reported status %q, which is not terminal (want completed, killed or failed); its detail was %q",
			out.Status, out.Detail)}
	}
	return settlement{status: out.Status, detail: out.Detail, output: out.Output, result: out.Result, producerReported: true, outcome: true}
}

func (r *Registry) logLateOutcome(j *job) {
	r.log.Debug("registry: producer ended after its job settled", "job", j.id)
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
func (r *Registry) forceSettle(j *job, cause jobs.SettlementCause, detail string) bool {
	return r.settle(j, &settlement{status: jobs.JobStatusFailed, detail: detail, cause: cause})
}

// settle is the only close of a job, first-wins. In order: claim the job and
// decide status, detail, output and finishedAt; record the settled fact (no
// lock held; readers still see the job live); then commit: in one critical
// section apply them, mark reported if waiters exist, free the admission
// slot, trim the record and snapshot; then release waiters, fire
// jobs-changed, the final output signal (recording jobs) and the done
// listeners. It reports whether this call settled the job.
func (r *Registry) settle(j *job, s *settlement) bool {
	s.at = r.now()
	fact, ok := r.claim(j, s)
	if !ok {
		return false
	}
	if fact != nil {
		r.record(fact, j.id)
	}
	r.commit(j, s)
	return true
}

// claim decides a settlement of a live job, completing s, and returns the
// settled fact to record (nil for an unowned job). It reports false when
// another settlement came first.
func (r *Registry) claim(j *job, s *settlement) (jobs.Fact, bool) {
	j.sh.mu.Lock()
	defer j.sh.mu.Unlock()
	if j.state != stateLive {
		return nil, false
	}
	if s.outcome && j.stopRequested && s.status == jobs.JobStatusFailed {
		s.status = jobs.JobStatusKilled
	}
	if s.cause == "" {
		// The producer's Done settled the job: on its own, or answering a stop.
		s.cause = jobs.SettlementCauseProducer
		if j.stopRequested {
			s.cause = j.stopCause
		}
	}
	if !lifecycle.CanTransition(j.status, s.status) {
		s.detail = fmt.Sprintf("registry: illegal move %s → %s (%s)", j.status, s.status, s.detail)
		s.status, s.producerReported = jobs.JobStatusFailed, false
	}
	j.mu.Lock()
	if s.detail == "" {
		s.detail = j.detail
	}
	j.state = stateSettling
	j.mu.Unlock()
	if s.status == jobs.JobStatusKilled && j.stopReason != "" {
		s.detail = joinDetail(s.detail, j.stopReason)
	}
	if j.owner() == "" {
		return nil, true
	}
	return jobs.JobSettled{
		JobID:            j.id,
		At:               s.at,
		Status:           s.status,
		Detail:           s.detail,
		ProducerReported: s.producerReported,
		Registration:     j.registration(),
		Cause:            s.cause,
		HasResult:        s.result != "",
	}, true
}

// commit makes a claimed settlement visible and signals it.
func (r *Registry) commit(j *job, s *settlement) {
	var snap jobs.JobSnapshot
	changed, output, done, release := r.apply(j, s, &snap)
	if r.obs != nil {
		r.obs.JobSettled(j.kind, s.status, s.cause)
	}
	if release != nil {
		close(release)
	}
	r.fireChanged(changed)
	if j.record != nil {
		r.fireOutput(output, j.id)
	}
	r.fireDone(done, &snap)
}

// apply writes a claimed settlement into the job, its snapshot into snap, and
// returns the listeners to signal and the done channel to close (nil when
// nothing waited). (Pointers, not values: the snapshot is large and this
// runs on the producer's small goroutine stack.)
func (r *Registry) apply(j *job, s *settlement, snap *jobs.JobSnapshot) ([]listener[func()], []listener[func(jobs.JobID)], []listener[func(jobs.JobSnapshot)], chan struct{}) {
	sh := j.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	sh.unload(j.status)
	j.status = s.status
	j.detail = s.detail
	j.output = s.output
	if s.result != "" {
		// pending is free once the job is live: it keeps the result (a
		// copy, so that s, on the settling goroutine's stack, stays there).
		j.pending = &settlement{result: s.result, resultBytes: int64(len(s.result))}
	}
	j.finishedAt = s.at
	j.producerReported = s.producerReported
	if j.waiters > 0 {
		j.reported = true
	}
	j.state = stateSettled
	r.stopDeadline(j)
	sh.releaseSlot()
	if j.record != nil {
		j.record.settle(r.limits.SettledRetainBytes)
	}
	j.snapshotInto(snap)
	return r.changed.load(), r.output.load(), r.done.load(), j.done
}

// doneOf returns the channel that closes when j's settlement is visible,
// making it if need be; for a settled job, one that is closed. j.sh.mu
// must be held.
func (r *Registry) doneOf(j *job) <-chan struct{} {
	if j.state == stateSettled {
		return r.settledDone
	}
	if j.done == nil {
		j.done = make(chan struct{})
	}
	return j.done
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
