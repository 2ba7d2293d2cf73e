package registry

import (
	"sync"
	"sync/atomic"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A listenerSet holds subscribed callbacks. list is copy-on-write, guarded
// by the registry's lmu: subscriptions build a new slice, and shared
// publishes each new slice, so a firing loads the current one without a
// lock and calls it while subscriptions made meanwhile build the next.
type listenerSet[F any] struct {
	next   uint64
	list   []listener[F]
	shared atomic.Pointer[[]listener[F]]
}

// load returns the current list without a lock.
func (s *listenerSet[F]) load() []listener[F] {
	if p := s.shared.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *listenerSet[F]) publish() {
	list := s.list
	s.shared.Store(&list)
}

type listener[F any] struct {
	id uint64
	fn F
}

func (s *listenerSet[F]) add(fn F) uint64 {
	s.next++
	list := make([]listener[F], len(s.list), len(s.list)+1)
	copy(list, s.list)
	s.list = append(list, listener[F]{id: s.next, fn: fn})
	s.publish()
	return s.next
}

func (s *listenerSet[F]) remove(id uint64) {
	for i, l := range s.list {
		if l.id == id {
			list := make([]listener[F], 0, len(s.list)-1)
			list = append(list, s.list[:i]...)
			s.list = append(list, s.list[i+1:]...)
			s.publish()
			return
		}
	}
}

func (s *listenerSet[F]) clear() {
	s.list = nil
	s.publish()
}

// subscribe adds fn to the set chosen by pick and returns its idempotent
// unsubscribe. On a closed registry it subscribes nothing.
func subscribe[F any](r *Registry, pick func(*Registry) *listenerSet[F], fn F) func() {
	r.lmu.Lock()
	defer r.lmu.Unlock()
	if r.closed.Load() {
		return func() {}
	}
	id := pick(r).add(fn)
	var once sync.Once
	return func() {
		once.Do(func() {
			r.lmu.Lock()
			pick(r).remove(id)
			r.lmu.Unlock()
		})
	}
}

// OnJobsChanged subscribes fn to jobs-changed: a registration, a detail
// update, a move to stopping, a settlement or a removal. It never fires on
// append. The returned func unsubscribes; a firing already under way may still
// call fn once.
func (r *Registry) OnJobsChanged(fn func()) func() {
	return subscribe(r, func(r *Registry) *listenerSet[func()] { return &r.changed }, fn)
}

// OnOutput subscribes fn to output signals: once per committed non-empty
// append of a live recording job, and once when a recording job settles. fn
// runs on the producer's goroutine, inside its Append, so it should only note
// the signal (a non-blocking channel send, say) and return.
func (r *Registry) OnOutput(fn func(jobs.JobID)) func() {
	return subscribe(r, func(r *Registry) *listenerSet[func(jobs.JobID)] { return &r.output }, fn)
}

// OnJobDone subscribes fn to settlements, with the settled snapshot. It fires
// last in the settlement order, after waiters are released.
func (r *Registry) OnJobDone(fn func(jobs.JobSnapshot)) func() {
	return subscribe(r, func(r *Registry) *listenerSet[func(jobs.JobSnapshot)] { return &r.done }, fn)
}

// A Removal is what one Remove or DisposeOwner took out of the registry:
// jobs of one owner (none when a disposed session had none), and whether
// the owner's session was disposed. Whoever keeps state by job or by
// session (the model-facing tools keep the rest of a read, and a parent's
// subagents) lets it go on a Removal.
type Removal struct {
	Owner    jobs.SessionID
	Jobs     []jobs.JobID
	Disposed bool // DisposeOwner: the session has ended
}

// OnRemoved subscribes fn to removals: once per Remove, after the job is
// gone and its jobs-changed signal fired, and once per DisposeOwner, after
// its teardown, whether or not the session had jobs. A job DisposeOwner
// could not settle is not removed and not listed. fn runs on the caller's
// goroutine.
func (r *Registry) OnRemoved(fn func(Removal)) func() {
	return subscribe(r, func(r *Registry) *listenerSet[func(Removal)] { return &r.removed }, fn)
}

func (r *Registry) fireRemoved(rm Removal) {
	for _, l := range r.removed.load() {
		r.contain("removed", func() { l.fn(rm) })
	}
}

func (r *Registry) fireChanged(ls []listener[func()]) {
	for _, l := range ls {
		r.contain("jobs-changed", l.fn)
	}
}

func (r *Registry) fireOutput(ls []listener[func(jobs.JobID)], id jobs.JobID) {
	for _, l := range ls {
		r.contain("output", func() { l.fn(id) })
	}
}

func (r *Registry) fireDone(ls []listener[func(jobs.JobSnapshot)], s *jobs.JobSnapshot) {
	for _, l := range ls {
		r.contain("job-done", func() { l.fn(*s) })
	}
}

// contain calls a listener, logging a panic instead of propagating it.
func (r *Registry) contain(signal string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("registry: listener panicked", "signal", signal, "panic", v)
		}
	}()
	fn()
}
