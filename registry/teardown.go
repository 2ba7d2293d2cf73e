package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	match := func(j *job) bool { return j.owner == session }
	err := r.teardown(ctx, match, disposeReason)

	r.mu.Lock()
	removed := false
	kept := r.owned[session][:0]
	for _, j := range r.owned[session] {
		if j.state == stateSettled {
			delete(r.jobs, j.id)
			removed = true
		} else {
			kept = append(kept, j)
		}
	}
	if len(kept) == 0 {
		delete(r.owned, session)
	} else {
		clear(r.owned[session][len(kept):])
		r.owned[session] = kept
	}
	ls := r.changed.list
	r.mu.Unlock()
	if removed {
		r.fireChanged(ls)
	}
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
	r.mu.Lock()
	r.closed = true
	r.wakeSlotWaiters()
	r.changed.clear()
	r.output.clear()
	r.done.clear()
	r.mu.Unlock()
	if err := r.teardown(ctx, func(*job) bool { return true }, closeReason); err != nil {
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

func (r *Registry) teardown(ctx context.Context, match func(*job) bool, reason string) error {
	bound := r.limits.TeardownBound
	timer := time.NewTimer(bound)
	defer timer.Stop()

	var (
		errMu   sync.Mutex
		errs    []error
		expired bool
		ctxErr  error
	)
	report := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	wait := func(ch <-chan struct{}) {
		select {
		case <-ch:
		case <-timer.C:
			expired = true
		case <-ctx.Done():
			expired, ctxErr = true, ctx.Err()
		}
	}

	// Registrations recording their fact are about to become visible; wait for
	// them so they are torn down too.
	var targets []target
	moved := false
	for {
		r.mu.Lock()
		if r.registering > 0 && !expired {
			if r.regIdle == nil {
				r.regIdle = make(chan struct{})
			}
			idle := r.regIdle
			r.mu.Unlock()
			wait(idle)
			continue
		}
		for _, j := range r.jobs {
			if !match(j) {
				continue
			}
			j.reported = true
			switch j.state {
			case stateLive:
				if !j.stopRequested {
					j.stopRequested, j.stopReason, j.stopCause = true, reason, jobs.SettlementCauseTeardown
				}
				j.stopTentative = false // teardown asks for good, whatever a kill's Cancel answers
				moved = r.stop(j) || moved
				t := target{j: j, done: r.doneOf(j)}
				if !j.teardownCancel {
					j.teardownCancel, t.cancel = true, j.hooks.Cancel
				}
				targets = append(targets, t)
			case stateSettling:
				targets = append(targets, target{j: j, done: r.doneOf(j)})
			}
		}
		break
	}
	ls := r.changed.list
	r.mu.Unlock()
	slices.SortFunc(targets, func(a, b target) int { return compareSeq(a.j, b.j) })
	if moved {
		r.fireChanged(ls)
	}

	// Cancel concurrently, so one Cancel that hangs cannot hold the others past
	// the bound.
	for _, t := range targets {
		if t.cancel == nil {
			continue
		}
		go func() {
			if err := r.callCancel(t.cancel, reason); err != nil {
				// Reported before settling, so the waiter below sees it.
				report(fmt.Errorf("job %s: cancel: %w", t.j.name, err))
				r.forceSettle(t.j, jobs.SettlementCauseCancelFailure, cancelFailedDetail(err))
			}
		}()
	}

	for _, t := range targets {
		if expired {
			break
		}
		wait(t.done)
	}
	if expired {
		detail := fmt.Sprintf("producer did not settle within the teardown bound (%s); work may be orphaned", bound)
		if ctxErr != nil {
			detail = fmt.Sprintf("teardown stopped waiting for the producer: %v; work may be orphaned", ctxErr)
		}
		for _, t := range targets {
			if r.forceSettle(t.j, jobs.SettlementCauseTeardownBound, detail) {
				r.log.Error("registry: teardown force-settled a job", "job", t.j.id, "name", t.j.name, "detail", detail)
				if ctxErr == nil {
					report(fmt.Errorf("job %s: not settled within %s; force-settled", t.j.name, bound))
				}
			}
		}
		// A job another source is settling finishes once its fact is recorded.
		for _, t := range targets {
			<-t.done
		}
	}

	errMu.Lock()
	defer errMu.Unlock()
	if ctxErr != nil {
		errs = append(errs, ctxErr)
	}
	return errors.Join(errs...)
}

func compareSeq(a, b *job) int {
	switch {
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}
