package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The reasons teardown passes to Cancel and merges into killed settlements.
const (
	closeReason   = "registry closed"
	disposeReason = "session disposed"
)

func cancelFailedDetail(err error) string {
	return "cancel failed during teardown; work may be orphaned: " + err.Error()
}

// DisposeOwner tears down every job of session and then removes them all
// from the registry, firing jobs-changed for the removal. See Close for the
// teardown itself. Starts for session that are inside their starter while
// DisposeOwner runs are not waited for and register afterwards.
func (r *Registry) DisposeOwner(ctx context.Context, session jobs.SessionID) error {
	if session == "" {
		return errors.New("registry: dispose: empty session (unowned jobs end with Close)")
	}
	sh := r.shards.get(session)
	if sh == nil {
		// The session never started a job, or was disposed: it ends all
		// the same for those who keep state by session.
		r.fireRemoved(Removal{Owner: session, Disposed: true})
		return nil
	}
	err := r.teardown(ctx, []*shard{sh}, disposeReason)

	sh.mu.Lock()
	var removed []jobs.JobID
	kept := sh.list[:0]
	for _, j := range sh.list {
		if j.state == stateSettled {
			r.ids.delete(j)
			j.mu.Lock()
			j.removed = true
			j.mu.Unlock()
			removed = append(removed, j.id)
		} else {
			kept = append(kept, j)
		}
	}
	clear(sh.list[len(kept):])
	sh.list = kept
	drop := sh.dropIfEmpty()
	sh.mu.Unlock()
	if drop {
		r.shards.delete(sh)
	}
	if len(removed) > 0 {
		r.fireChanged(r.changed.load())
	}
	r.fireRemoved(Removal{Owner: session, Jobs: removed, Disposed: true})
	if err != nil {
		return fmt.Errorf("registry: dispose %q: %w", session, err)
	}
	return nil
}

// Close stops all listeners, refuses new starts and tears down every job: it
// marks them reported, moves live ones to stopping and calls their Cancel
// hooks; a job whose Cancel fails is force-settled failed at once (without
// waiting for its producer); the rest are waited for, bounded by the teardown
// bound and ctx, and whatever has not settled then is force-settled failed.
// Either way force-settled jobs carry producerReported=false.
//
// The error joins the cancel failures and the force-settlements at the bound,
// and wraps ctx's error when ctx ended the wait. Close may be called again; it
// then tears down whatever registered since.
func (r *Registry) Close(ctx context.Context) error {
	r.lmu.Lock()
	r.closed.Store(true) // before listing the shards: one made later is closed from the start
	r.changed.clear()
	r.output.clear()
	r.done.clear()
	r.removed.clear()
	r.lmu.Unlock()
	shards := r.allShards(false)
	for _, sh := range shards {
		sh.mu.Lock()
		sh.closed = true
		sh.wakeSlotWaiters()
		sh.mu.Unlock()
	}
	if err := r.teardown(ctx, shards, closeReason); err != nil {
		return fmt.Errorf("registry: close: %w", err)
	}
	return nil
}

// A target is one job teardown waits for.
type target struct {
	j      *job
	done   <-chan struct{}
	cancel func(string) error // nil when the job is settling or another teardown cancelled it
}

// A teardownRun is one call of teardown: the bound's timer, shared by its
// waits, and what went wrong. Only teardown's own goroutine waits, so expired
// and ctxErr need no lock; errs is also appended to by Cancel goroutines.
type teardownRun struct {
	ctx     context.Context
	bound   time.Duration
	timer   *time.Timer
	expired bool  // the bound or ctx ended a wait
	ctxErr  error // ctx's error, when ctx ended a wait

	errMu sync.Mutex
	errs  []error
}

func (t *teardownRun) report(err error) {
	t.errMu.Lock()
	t.errs = append(t.errs, err)
	t.errMu.Unlock()
}

// wait waits for ch, or until the bound expires or ctx ends.
func (t *teardownRun) wait(ch <-chan struct{}) {
	select {
	case <-ch:
	case <-t.timer.C:
		t.expired = true
	case <-t.ctx.Done():
		t.expired, t.ctxErr = true, t.ctx.Err()
	}
}

// teardown tears down every job of shards, in three phases: targets marks
// them and moves live ones to stopping, cancelTargets calls their Cancel
// hooks, awaitTargets waits for them within the bound and force-settles the
// rest. See Close for what the caller sees.
func (r *Registry) teardown(ctx context.Context, shards []*shard, reason string) error {
	run := &teardownRun{ctx: ctx, bound: r.limits.TeardownBound}
	run.timer = time.NewTimer(run.bound)
	defer run.timer.Stop()

	var targets []target
	moved := false
	for _, sh := range shards {
		var m bool
		targets, m = r.targets(run, sh, reason, targets)
		moved = moved || m
	}
	if moved {
		r.fireChanged(r.changed.load())
	}
	r.cancelTargets(run, targets, reason)
	r.awaitTargets(run, targets)

	run.errMu.Lock()
	defer run.errMu.Unlock()
	if run.ctxErr != nil {
		run.errs = append(run.errs, run.ctxErr)
	}
	return errors.Join(run.errs...)
}

// targets marks every job of sh reported and moves live ones to stopping,
// appending them (and those already settling) to targets in start order,
// and reports whether any moved. It first waits, within the bound, for
// registrations recording their fact: they are about to become visible and
// are torn down too.
func (r *Registry) targets(run *teardownRun, sh *shard, reason string, targets []target) ([]target, bool) {
	for {
		sh.mu.Lock()
		if sh.registering == 0 || run.expired {
			break
		}
		if sh.regIdle == nil {
			sh.regIdle = make(chan struct{})
		}
		idle := sh.regIdle
		sh.mu.Unlock()
		run.wait(idle)
	}
	defer sh.mu.Unlock()
	moved := false
	for _, j := range sh.list {
		j.reported = true
		switch j.state {
		case stateLive:
			if !j.stopRequested {
				j.stopRequested, j.stopReason, j.stopCause = true, reason, jobs.SettlementCauseTeardown
			}
			j.stopTentative = false // teardown asks for good, whatever a kill's Cancel answers
			moved = sh.stop(j) || moved
			t := target{j: j, done: r.doneOf(j)}
			if !j.teardownCancel {
				j.teardownCancel, t.cancel = true, j.hooks.Cancel
			}
			targets = append(targets, t)
		case stateSettling:
			targets = append(targets, target{j: j, done: r.doneOf(j)})
		}
	}
	return targets, moved
}

// cancelTargets calls the Cancel hook of each target this teardown cancels,
// concurrently, so one Cancel that hangs cannot hold the others past the
// bound. A job whose Cancel fails is force-settled at once.
func (r *Registry) cancelTargets(run *teardownRun, targets []target, reason string) {
	for _, t := range targets {
		if t.cancel == nil {
			continue
		}
		go func() {
			if err := r.callCancel(t.cancel, reason); err != nil {
				// Reported before settling, so the waiter below sees it.
				run.report(fmt.Errorf("job %s: cancel: %w", t.j.name, err))
				r.forceSettle(t.j, jobs.SettlementCauseCancelFailure, cancelFailedDetail(err))
			}
		}()
	}
}

// awaitTargets waits for the targets to settle until the bound expires or
// ctx ends; then it force-settles whatever has not, and waits for the jobs
// another source is settling to finish recording.
func (r *Registry) awaitTargets(run *teardownRun, targets []target) {
	for _, t := range targets {
		if run.expired {
			break
		}
		run.wait(t.done)
	}
	if !run.expired {
		return
	}
	detail := fmt.Sprintf("producer did not settle within the teardown bound (%s); work may be orphaned", run.bound)
	if run.ctxErr != nil {
		detail = fmt.Sprintf("teardown stopped waiting for the producer: %v; work may be orphaned", run.ctxErr)
	}
	for _, t := range targets {
		if r.forceSettle(t.j, jobs.SettlementCauseTeardownBound, detail) {
			r.log.Error("registry: teardown force-settled a job", "job", t.j.id, "name", t.j.name, "detail", detail)
			if run.ctxErr == nil {
				run.report(fmt.Errorf("job %s: not settled within %s; force-settled", t.j.name, run.bound))
			}
		}
	}
	// A job another source is settling finishes once its fact is recorded.
	for _, t := range targets {
		<-t.done
	}
}

// stopClosedLate is the close-time teardown of a job whose registration
// commit finds the registry closed, and reports whether it did find it so:
// Close ran while the job's fact was recorded. Close waits for the commit and
// then tears the job down with the others, unless its bound ran out first;
// so the job is marked and stopped here, cancelled by cancelClosedLate once
// it is visible, and Close does not cancel it again. A producer that has
// reported (settled) is not asked to stop. j.sh.mu must be held.
func (r *Registry) stopClosedLate(j *job, settled bool) bool {
	if !j.sh.closed {
		return false
	}
	j.reported, j.teardownCancel = true, true
	if !settled {
		j.stopRequested, j.stopReason, j.stopCause = true, closeReason, jobs.SettlementCauseTeardown
		j.sh.stop(j)
	}
	return true
}

// cancelClosedLate calls the Cancel of a job stopClosedLate stopped, outside
// any lock, and force-settles the job when Cancel fails, as teardown does.
func (r *Registry) cancelClosedLate(j *job, cancel func(string) error) {
	if err := r.callCancel(cancel, closeReason); err != nil {
		r.forceSettle(j, jobs.SettlementCauseCancelFailure, cancelFailedDetail(err))
	}
}
