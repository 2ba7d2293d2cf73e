package registry

import (
	"context"
	"fmt"
	"slices"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A slotWaiter is one StartWait queued for its owner's admission slot.
type slotWaiter struct {
	// ready is closed when the waiter is granted a slot or the registry
	// closes; granted tells the two apart. Both are guarded by r.mu.
	ready   chan struct{}
	granted bool
}

// StartWait is Start, except that when the owner's admission slots
// (Limits.MaxPerOwner) are all taken it waits for one to free, bounded by
// ctx, instead of failing with ErrTooManyJobs. Waiters of one owner are
// admitted first come, first served: a slot freed while someone waits is
// handed to the longest waiting, so neither a later StartWait nor a Start
// takes it first. A waiter whose ctx ends leaves the queue, and the error
// wraps both ErrTooManyJobs and ctx's error; if a slot was handed to it in
// the same moment, it passes the slot on to the next waiter. Close wakes every
// waiter with ErrClosed. Waiting costs no goroutine beyond the caller's.
func (r *Registry) StartWait(ctx context.Context, start jobs.JobStart) (jobs.JobSnapshot, error) {
	return r.start(ctx, start, true)
}

// admit takes one of the owner's admission slots and issues the kind's next
// ordinal; with wait it queues for a slot when none is free.
func (r *Registry) admit(ctx context.Context, c *jobs.JobStartCommon, wait bool) (int, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return 0, fmt.Errorf("registry: start %q: %w", c.Kind, ErrClosed)
	}
	if n := r.active[c.Owner]; n < r.limits.MaxPerOwner {
		r.active[c.Owner]++
	} else if !wait {
		r.mu.Unlock()
		return 0, fmt.Errorf("registry: start %q for owner %q: %d of %d slots taken: %w",
			c.Kind, c.Owner, n, r.limits.MaxPerOwner, ErrTooManyJobs)
	} else if err := r.awaitSlot(ctx, c); err != nil {
		r.mu.Unlock()
		return 0, err
	}
	r.ordinals[c.Kind]++
	ordinal := r.ordinals[c.Kind]
	r.mu.Unlock()
	return ordinal, nil
}

// awaitSlot queues for a slot of c.Owner and waits until one is handed over
// (nil: the slot is counted in r.active), ctx ends or the registry closes.
// r.mu must be held; it is released while waiting and held again on return.
func (r *Registry) awaitSlot(ctx context.Context, c *jobs.JobStartCommon) error {
	w := &slotWaiter{ready: make(chan struct{})}
	if r.slotQueue == nil {
		r.slotQueue = make(map[jobs.SessionID][]*slotWaiter)
	}
	r.slotQueue[c.Owner] = append(r.slotQueue[c.Owner], w)
	r.queued++
	r.mu.Unlock()
	select {
	case <-w.ready:
	case <-ctx.Done():
	}
	r.mu.Lock()
	switch {
	case r.closed:
		if w.granted {
			r.releaseSlot(c.Owner)
		} else {
			r.dequeue(c.Owner, w)
		}
		return fmt.Errorf("registry: start %q: %w", c.Kind, ErrClosed)
	case ctx.Err() != nil:
		if w.granted { // handed a slot as ctx ended: pass it on
			r.releaseSlot(c.Owner)
		} else {
			r.dequeue(c.Owner, w)
		}
		return fmt.Errorf("registry: start %q for owner %q: waiting for one of %d slots: %w: %w",
			c.Kind, c.Owner, r.limits.MaxPerOwner, ErrTooManyJobs, ctx.Err())
	}
	return nil
}

// dequeue takes a waiter that gave up out of its owner's queue. r.mu must be
// held.
func (r *Registry) dequeue(owner jobs.SessionID, w *slotWaiter) {
	q := r.slotQueue[owner]
	i := slices.Index(q, w)
	if i < 0 {
		return // Close emptied the queue
	}
	r.queued--
	if q = slices.Delete(q, i, i+1); len(q) == 0 {
		delete(r.slotQueue, owner)
	} else {
		r.slotQueue[owner] = q
	}
}

// handOff gives a slot owner is releasing to the owner's longest waiting
// StartWait, if any, and reports whether it did: the slot then stays counted
// in r.active, now for the waiter. r.mu must be held.
func (r *Registry) handOff(owner jobs.SessionID) bool {
	if r.queued == 0 {
		return false
	}
	q := r.slotQueue[owner]
	if len(q) == 0 {
		return false
	}
	w := q[0]
	r.queued--
	if q = slices.Delete(q, 0, 1); len(q) == 0 {
		delete(r.slotQueue, owner)
	} else {
		r.slotQueue[owner] = q
	}
	w.granted = true
	close(w.ready)
	return true
}

// wakeSlotWaiters wakes every queued StartWait of a closing registry; each
// returns ErrClosed. r.mu must be held.
func (r *Registry) wakeSlotWaiters() {
	for _, q := range r.slotQueue {
		for _, w := range q {
			close(w.ready)
		}
	}
	r.slotQueue, r.queued = nil, 0
}
