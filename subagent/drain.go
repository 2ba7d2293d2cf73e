package subagent

import (
	"context"
	"errors"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// DrainDescendants tears down every live descendant of each parent, which
// must be an exact live agent (an attached root or a resident child). From
// the call on, nothing is admitted under those parents — no new child, no
// follow-up, no report (ErrDraining) — until the drain returns. Turns are
// cancelled at once, top down; teardown then runs children first, and every
// message still waiting in a drained child's inbox is discarded with a
// discarded fact.
func (s *Service) DrainDescendants(ctx context.Context, parents []Agent) error {
	var errs []error
	var scoped []jobs.SessionID
	var marked []*activation
	var waits []*activation
	s.mu.Lock()
	for _, p := range parents {
		if _, ok := s.liveLocked(p); !ok {
			errs = append(errs, newError(subagents.ErrorCodeUnauthorized, nil, "drain: %v is not an exact live agent", agentID(p)))
			continue
		}
		id := p.ID()
		s.scopes[id]++
		scoped = append(scoped, id)
		for _, a := range s.children {
			if a.header.ParentSession != id {
				continue
			}
			if a.state == stateResident {
				marked = append(marked, s.markLocked(a, drainScope)...)
			}
			waits = append(waits, a)
		}
	}
	s.mu.Unlock()
	errs = append(errs, s.teardownAndWait(ctx, marked, waits)...)
	s.mu.Lock()
	for _, id := range scoped {
		if s.scopes[id]--; s.scopes[id] == 0 {
			delete(s.scopes, id)
		}
	}
	s.mu.Unlock()
	return errors.Join(errs...)
}

// DrainChildren tears down the chosen children of parent, which must be
// the exact live agent; ids that are not live children of parent are
// skipped. Waiting messages of the drained children are discarded.
func (s *Service) DrainChildren(ctx context.Context, parent Agent, children []jobs.SessionID) error {
	var marked, waits []*activation
	s.mu.Lock()
	if _, ok := s.liveLocked(parent); !ok {
		s.mu.Unlock()
		return newError(subagents.ErrorCodeUnauthorized, nil, "drain: %v is not an exact live agent", agentID(parent))
	}
	for _, id := range children {
		a := s.children[id]
		if a == nil || a.header.ParentSession != parent.ID() {
			continue
		}
		if a.state == stateResident {
			marked = append(marked, s.markLocked(a, drainChosen)...)
		}
		waits = append(waits, a)
	}
	s.mu.Unlock()
	return errors.Join(s.teardownAndWait(ctx, marked, waits)...)
}

// Close drains the whole manager: it admits nothing more (ErrDraining),
// waits for materializations under way, cancels every turn (keeping
// inboxes: a waiting message is redelivered on the next residency, as after
// a crash) and tears every child down, children first. It returns once all
// are gone or ctx ends.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	materialized := make(chan struct{})
	go func() { s.inflight.Wait(); close(materialized) }()
	select {
	case <-materialized:
	case <-ctx.Done():
		return cancelled(ctx, "close: wait for materializations under way")
	}
	var marked, waits []*activation
	s.mu.Lock()
	for _, a := range s.children {
		if a.parent == nil && a.state == stateResident {
			marked = append(marked, s.markLocked(a, shutdown)...)
		}
		waits = append(waits, a)
	}
	s.mu.Unlock()
	errs := s.teardownAndWait(ctx, marked, waits)
	if len(errs) == 0 {
		done := make(chan struct{})
		go func() { s.watchers.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			errs = append(errs, cancelled(ctx, "close"))
		}
	}
	return errors.Join(errs...)
}

// teardownAndWait runs the teardown of marked and waits for every one of
// waits (marked or already disposing) to be gone, or for ctx; it returns
// the teardown failures.
func (s *Service) teardownAndWait(ctx context.Context, marked, waits []*activation) []error {
	if len(marked) > 0 {
		s.runTeardown(ctx, marked, errors.New("subagent: drained"))
	}
	var errs []error
	for _, a := range waits {
		select {
		case <-a.done:
			if a.err != nil {
				errs = append(errs, a.err)
			}
		case <-ctx.Done():
			return append(errs, cancelled(ctx, "wait for the teardown of "+string(a.id)))
		}
	}
	return errs
}

func agentID(a Agent) any {
	if a == nil {
		return "<nil>"
	}
	return a.ID()
}
