package registry

import (
	"context"
	"fmt"
	"slices"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A slotWaiter is one StartWait queued for its owner's admission slot.
type slotWaiter struct {
	// kind, label and since (Unix milliseconds) are what Waiting shows of
	// the start; they never change.
	kind, label string
	since       int64
	// ready is closed when the waiter is granted a slot or the registry
	// closes; granted tells the two apart. Both are guarded by the owner's
	// shard's mutex.
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
	spec, err := parseStart(start)
	if err != nil {
		return jobs.JobSnapshot{}, err
	}
	_, snap, err := r.start(ctx, spec, true)
	return snap, err
}

// admit takes one of the owner's admission slots and issues the kind's next
// ordinal; with wait it queues for a slot when none is free. It returns the
// owner's shard, which the job keeps.
func (r *Registry) admit(ctx context.Context, c *jobs.JobStartCommon, wait bool) (*shard, int, error) {
	var since int64
	if wait {
		since = r.now() // the Clock is user code: read it before locking
	}
	sh := r.lockShard(c.Owner)
	if sh.closed {
		sh.mu.Unlock()
		return nil, 0, fmt.Errorf("registry: start %q: %w", c.Kind, ErrClosed)
	}
	if n := sh.active; n < r.limits.MaxPerOwner {
		sh.active++
	} else if !wait {
		sh.mu.Unlock()
		return nil, 0, fmt.Errorf("registry: start %q for owner %q: %d of %d slots taken: %w",
			c.Kind, c.Owner, n, r.limits.MaxPerOwner, ErrTooManyJobs)
	} else if err := r.awaitSlot(ctx, sh, c, since); err != nil {
		sh.mu.Unlock()
		return nil, 0, err
	}
	sh.mu.Unlock()
	return sh, r.ordinal(c.Kind), nil
}

// awaitSlot queues for a slot of sh and waits until one is handed over
// (nil: the slot is counted in sh.active), ctx ends or the registry closes.
// sh.mu must be held; it is released while waiting and held again on return.
func (r *Registry) awaitSlot(ctx context.Context, sh *shard, c *jobs.JobStartCommon, since int64) error {
	w := &slotWaiter{kind: c.Kind, label: c.Label, since: since, ready: make(chan struct{})}
	sh.queue = append(sh.queue, w)
	sh.mu.Unlock()
	select {
	case <-w.ready:
	case <-ctx.Done():
	}
	sh.mu.Lock()
	switch {
	case sh.closed:
		if w.granted {
			sh.releaseSlot()
		} else {
			sh.dequeue(w)
		}
		return fmt.Errorf("registry: start %q: %w", c.Kind, ErrClosed)
	case ctx.Err() != nil:
		if w.granted { // handed a slot as ctx ended: pass it on
			sh.releaseSlot()
		} else {
			sh.dequeue(w)
		}
		return fmt.Errorf("registry: start %q for owner %q: waiting for one of %d slots: %w: %w",
			c.Kind, c.Owner, r.limits.MaxPerOwner, ErrTooManyJobs, ctx.Err())
	}
	return nil
}

// dequeue takes a waiter that gave up out of the queue. sh.mu must be held.
func (sh *shard) dequeue(w *slotWaiter) {
	if i := slices.Index(sh.queue, w); i >= 0 { // else Close emptied the queue
		sh.queue = slices.Delete(sh.queue, i, i+1)
	}
}

// handOff gives a slot being released to the longest waiting StartWait, if
// any, and reports whether it did: the slot then stays counted in
// sh.active, now for the waiter. sh.mu must be held.
func (sh *shard) handOff() bool {
	if len(sh.queue) == 0 {
		return false
	}
	w := sh.queue[0]
	sh.queue = slices.Delete(sh.queue, 0, 1)
	w.granted = true
	close(w.ready)
	return true
}

// wakeSlotWaiters wakes every queued StartWait of a closing registry; each
// returns ErrClosed. sh.mu must be held.
func (sh *shard) wakeSlotWaiters() {
	for _, w := range sh.queue {
		close(w.ready)
	}
	sh.queue = nil
}

// A Waiter is a StartWait waiting for an admission slot, as Waiting shows
// it. It has no id or ordinal yet: those are issued once it is admitted.
type Waiter struct {
	Owner jobs.SessionID
	Kind  string
	Label string
	// Since is when it began to wait, in Unix milliseconds.
	Since int64
	// Place is its place in its owner's line, from 1: the next slot the
	// owner frees goes to place 1.
	Place int
}

// Waiting returns the StartWaits visible to caller that wait for a slot:
// its own session's and the unowned ones, as the fence shows jobs, each
// owner's in the order they will be admitted (the unowned line first).
// A waiter that has been handed a slot is no longer waiting (decision
// 0212).
func (r *Registry) Waiting(caller jobs.SessionID) []Waiter {
	var out []Waiter
	add := func(sh *shard) {
		sh.mu.Lock()
		for i, w := range sh.queue {
			out = append(out, Waiter{Owner: sh.owner, Kind: w.kind, Label: w.label, Since: w.since, Place: i + 1})
		}
		sh.mu.Unlock()
	}
	add(r.unowned)
	if caller != "" {
		if sh := r.shards.get(caller); sh != nil {
			add(sh)
		}
	}
	return out
}
