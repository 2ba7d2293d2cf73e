package subagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// An opening is what differs between creating a child and resuming it.
type opening struct {
	// verb names the operation in errors: "create" or "resume".
	verb string
	// parent must be the exact live direct parent.
	parent Agent
	// child is what the host is given.
	child Child
	// facts open the residency on the child's stream, in one append; they
	// end with first's accepted fact.
	facts []subagents.Fact
	// redeliver are messages accepted by earlier residencies and never
	// claimed or discarded, delivered before first.
	redeliver []pendingMsg
	// first is the message the residency opens with: the prompt, or the
	// follow-up that resumed the child.
	first subagents.Message
}

// openResidency is the one owner of a residency's opening, for a creation
// and a resume alike. It installs a in the tree, asks the host for its
// agent, admits it under the exact live parent with op.first reserved,
// writes op.facts in one append, begins the child's session, delivers the
// redelivered messages and op.first, and hands the residency to its
// watcher. It holds the materialization count and op.first's reservation
// for exactly as long as that takes. A failure before the append leaves
// nothing behind; once the facts are on the stream the residency is a
// residency like any other and a failure ends it through teardown, which
// records its end.
func (s *Service) openResidency(ctx context.Context, a *activation, op opening) error {
	if err := s.install(ctx, a, op.parent); err != nil {
		return err
	}
	defer s.inflight.Done()
	agent, err := s.host.Materialize(ctx, op.child, a.inbox)
	if err == nil {
		err = checkPointer(agent)
	}
	if err != nil {
		s.rollback(a, agent)
		return s.failure(ctx, err, "%s child %s", op.verb, a.id)
	}
	if err := s.admit(ctx, a, agent, op); err != nil {
		s.rollback(a, agent)
		return err
	}
	if err := s.appendFacts(ctx, a.stream, op.facts...); err != nil {
		a.accepts.Done()
		s.rollback(a, agent)
		return s.failure(ctx, err, "record the %s of child %s", op.verb, a.id)
	}
	s.recorded(a, op)
	marked := s.becomeResident(a)
	for _, p := range op.redeliver {
		if s.hand(a, p.msg, p.wake) == nil {
			s.obs.Redelivered(a.id, p.msg.ID)
		}
	}
	if err := s.handFirst(a, agent, op.first); err != nil {
		a.accepts.Done()
		s.abortOpening(a, marked, op.first.ID)
		return fmt.Errorf("subagent: deliver the first message to child %s: %w", a.id, err)
	}
	a.accepts.Done()
	s.watchers.Add(1)
	go s.watch(a, agent)
	if len(marked) > 0 {
		s.watchers.Add(1)
		go func() {
			defer s.watchers.Done()
			s.teardownFor(a, marked)
		}()
	}
	return nil
}

// failure names a failed step of an opening: the context's cancellation
// when it ended, ErrNotResumable when retention archived the history it
// read (a retry reads the same), else err with what was being done.
func (s *Service) failure(ctx context.Context, err error, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	if c := cancelled(ctx, what); c != nil {
		return c
	}
	if errors.Is(err, journal.ErrArchived) {
		return newError(subagents.ErrorCodeNotResumable, err, "%s: the child's history was archived", what)
	}
	return fmt.Errorf("subagent: %s: %w", what, err)
}

// install enters an opening activation in the tree, so that its id is
// taken and Close waits for it; the caller calls s.inflight.Done once the
// opening is over.
func (s *Service) install(ctx context.Context, a *activation, parent Agent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.goingOnLocked(ctx, a, parent); err != nil {
		return err
	}
	if _, dup := s.children[a.id]; dup {
		return newError(subagents.ErrorCodeDuplicateChild, nil, "child %s is live", a.id)
	}
	if _, err := s.parentLocked(a, parent); err != nil {
		return err
	}
	s.children[a.id] = a
	s.inflight.Add(1)
	return nil
}

// admit places the materialized agent under the exact live parent, which
// owns the child from here (its teardown waits for it), and reserves the
// redelivered messages and op.first in the inbox, in one critical section.
func (s *Service) admit(ctx context.Context, a *activation, agent Agent, op opening) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.goingOnLocked(ctx, a, op.parent); err != nil {
		return err
	}
	parentAct, err := s.parentLocked(a, op.parent)
	if err != nil {
		return err
	}
	a.parent = parentAct
	a.agent = agent
	if parentAct != nil {
		parentAct.owned[a.id] = a
	}
	a.pending = append(a.pending, op.redeliver...)
	a.pending = append(a.pending, pendingMsg{msg: op.first, wake: true})
	a.accepts.Add(1)
	return nil
}

// parentLocked returns the activation of parent (nil for an attached root)
// when parent is the exact live agent of a's direct parent: a parent being
// disposed is ErrActivationClosing, anything else ErrUnauthorized. Call
// with s.mu held.
func (s *Service) parentLocked(a *activation, parent Agent) (*activation, error) {
	if p := s.children[parent.ID()]; p != nil && p.agent == parent && p.state == stateDisposing {
		return nil, newError(subagents.ErrorCodeActivationClosing, nil, "the parent %s of child %s is being disposed", parent.ID(), a.id)
	}
	parentAct, live := s.liveLocked(parent)
	if !live || a.header.ParentSession != parent.ID() {
		return nil, newError(subagents.ErrorCodeUnauthorized, nil, "child %s needs the exact live parent agent %s", a.id, a.header.ParentSession)
	}
	return parentAct, nil
}

// goingOnLocked refuses to go on with a's opening once ctx ended or
// parent's subtree stopped admitting. Call with s.mu held.
func (s *Service) goingOnLocked(ctx context.Context, a *activation, parent Agent) error {
	if err := cancelled(ctx, "open child "+string(a.id)); err != nil {
		return err
	}
	return s.admittingLocked(parent.ID())
}

// recorded reports the opening facts to the observer and begins the
// child's session.
func (s *Service) recorded(a *activation, op opening) {
	s.obs.ResidencyStarted(a.id, a.run, op.child.Resumed)
	s.obs.MessageAccepted(a.id, op.first.ID, true)
	s.beginSession(a)
}

// becomeResident makes a recorded activation resident, after which
// teardown may take it. A parent that began disposing, or a scope that
// stopped admitting, while it opened takes it along: it is marked for the
// same teardown, which the opening then runs.
func (s *Service) becomeResident(a *activation) []*activation {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.state = stateResident
	switch {
	case a.parent != nil && a.parent.state == stateDisposing:
		return s.markLocked(a, a.parent.mode)
	case s.closing:
		return s.markLocked(a, shutdown)
	case s.admittingLocked(a.header.ParentSession) != nil:
		return s.markLocked(a, drainScope)
	}
	return nil
}

// handFirst delivers the residency's first message and announces the
// residency before its reservation ends, so a teardown that waited for the
// reservation sends the parent its notice.
func (s *Service) handFirst(a *activation, agent Agent, first subagents.Message) error {
	if err := agent.Deliver(first, true); err != nil {
		return err
	}
	s.mu.Lock()
	a.markDeliveredLocked(first.ID)
	a.announced = true
	s.mu.Unlock()
	return nil
}

// abortOpening ends a recorded residency whose agent refused its first
// message: the message is discarded and the residency torn down with stop
// reason error, by the teardown already marked or by one started here. It
// returns once the residency's end is recorded.
func (s *Service) abortOpening(a *activation, marked []*activation, first subagents.MessageID) {
	s.mu.Lock()
	a.openFailed = true
	s.mu.Unlock()
	s.discard(a, first, "rolled back: the agent did not take it")
	if len(marked) == 0 {
		s.mu.Lock()
		marked = s.markLocked(a, settle)
		s.mu.Unlock()
	}
	if len(marked) > 0 {
		s.teardownFor(a, marked)
	}
	<-a.done
}

// rollback undoes an opening that failed before its facts were written:
// the activation leaves the tree and its agent, if any, is disposed.
func (s *Service) rollback(a *activation, agent Agent) {
	s.mu.Lock()
	a.state = stateGone
	if s.children[a.id] == a {
		delete(s.children, a.id)
	}
	if a.parent != nil {
		delete(a.parent.owned, a.id)
		a.parent.wakeUp()
	}
	a.pending = nil
	a.inbox.closed = true
	s.mu.Unlock()
	if agent != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.bound)
		agent.Cancel(errors.New("subagent: opening rolled back"), false)
		if err := agent.Dispose(ctx); err != nil {
			s.log.Warn("subagent: dispose a rolled-back child", "child", a.id, "err", err)
		}
		cancel()
	}
	close(a.done)
}

// beginSession makes the child a live session of the flush barrier with the
// store's Flush as its listener.
func (s *Service) beginSession(a *activation) {
	if err := s.sessions.Begin(a.id); err != nil && !errors.Is(err, journal.ErrSessionLive) {
		s.log.Warn("subagent: begin a child's session", "child", a.id, "err", err)
	}
	unregister, err := s.sessions.OnFlush(a.id, s.store.Flush)
	if err != nil {
		s.log.Warn("subagent: register the store with a child's session", "child", a.id, "err", err)
		unregister = func() {}
	}
	s.mu.Lock()
	a.unregister = unregister
	s.mu.Unlock()
}
