package subagent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// watch settles a resident child: once its agent is idle, no waking
// message waits and it owns no live child, it is disposed at once. Waking
// messages the idle agent holds and no turn took (its turn failed before
// taking them) are discarded first, and the residency is then aborted.
func (s *Service) watch(a *activation, agent Agent) {
	defer s.watchers.Done()
	for {
		s.mu.Lock()
		if a.state != stateResident {
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		select {
		case <-agent.Idle():
		case <-a.poke:
			continue
		case <-a.done:
			return
		}
		s.mu.Lock()
		if a.state != stateResident {
			s.mu.Unlock()
			return
		}
		unrun := a.unrunLocked()
		if len(a.owned) > 0 || (a.wakingLocked() > 0 && unrun == nil) {
			s.mu.Unlock()
			select {
			case <-a.poke:
			case <-a.done:
				return
			}
			continue
		}
		s.mu.Unlock()
		if marked, dropped := s.trySettle(a, agent, unrun); marked != nil {
			for _, id := range dropped {
				s.recordDiscard(a, id, "no turn took it")
			}
			s.teardownFor(a, marked)
			return
		}
	}
}

// trySettle marks a for its settling teardown unless something changed
// since the watcher looked: the agent is busy again, a message or a child
// arrived. The unrun waking messages the watcher saw leave the inbox in
// the same critical section, so nothing is reserved in between.
func (s *Service) trySettle(a *activation, agent Agent, unrun []subagents.MessageID) ([]*activation, []subagents.MessageID) {
	select {
	case <-agent.Idle():
	default:
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.state != stateResident || len(a.owned) > 0 || !slices.Equal(a.unrunLocked(), unrun) {
		return nil, nil
	}
	for _, id := range unrun {
		a.dropLocked(id)
		a.unrun = true
	}
	return s.markLocked(a, settle), unrun
}

// teardownFor runs the teardown of marked, which a's own settling or
// opening started, bounded by the teardown bound. No caller receives its
// failures, so each is logged with its child, as every contained failure is.
func (s *Service) teardownFor(a *activation, marked []*activation) {
	ctx, cancel := context.WithTimeout(context.Background(), s.bound)
	defer cancel()
	s.runTeardown(ctx, marked, nil)
	for _, x := range marked {
		if x.err != nil {
			s.log.Error("subagent: a child's teardown failed", "child", x.id, "err", x.err)
		}
	}
}

// markLocked starts the teardown of a and of every live descendant, top
// down: each becomes disposing (the admission cutoff) and is returned in
// that order. Activations already disposing are left to their teardown.
// Call with s.mu held.
func (s *Service) markLocked(a *activation, mode teardownMode) []*activation {
	var marked []*activation
	var walk func(*activation)
	walk = func(x *activation) {
		if x.state == stateResident {
			x.state = stateDisposing
			x.mode = mode
			marked = append(marked, x)
		}
		for _, c := range x.owned {
			walk(c)
		}
	}
	walk(a)
	return marked
}

// runTeardown cancels the marked activations top down, at once, then tears
// each down after its children (children first), and waits for them all.
func (s *Service) runTeardown(ctx context.Context, marked []*activation, cause error) {
	if cause == nil {
		cause = errors.New("subagent: torn down")
	}
	for _, a := range marked {
		if a.mode != settle {
			a.agent.Cancel(cause, a.mode == shutdown)
		}
	}
	var wg sync.WaitGroup
	for _, a := range marked {
		wg.Go(func() { s.finish(ctx, a) })
	}
	wg.Wait()
}

// finish is the teardown of one disposing activation; exactly one
// goroutine runs it. It waits for the children, for accepts admitted
// before the cutoff and for the agent to go idle; discards waiting
// messages on a drain; disposes the agent; records the residency's end;
// flushes the session best-effort; and leaves the tree, sending the
// parent a settlement notice.
func (s *Service) finish(ctx context.Context, a *activation) {
	failures := s.waitChildren(a)
	a.accepts.Wait()
	s.mu.Lock()
	agent, mode := a.agent, a.mode
	s.mu.Unlock()
	select {
	case <-agent.Idle():
	case <-ctx.Done():
	}
	if mode.discards() {
		s.mu.Lock()
		waiting := append([]pendingMsg(nil), a.pending...)
		s.mu.Unlock()
		for _, p := range waiting {
			s.discard(a, p.msg.ID, "drained")
		}
	}
	if err := agent.Dispose(ctx); err != nil {
		failures = append(failures, fmt.Errorf("dispose the agent: %w", err))
	}
	reason, last, cp := s.closeInbox(a, len(failures) > 0)
	err := s.recordEnd(context.WithoutCancel(ctx), a, &subagents.SubagentResidencyEnded{
		Run: a.run, At: s.now().UnixMilli(), StopReason: reason, LastMessage: last,
	}, cp)
	if err != nil {
		failures = append(failures, fmt.Errorf("record the residency's end: %w", err))
	}
	s.obs.ResidencyEnded(a.id, a.run, reason)
	s.finalFlush(ctx, a)
	s.leave(a, failures, reason, last)
}

// waitChildren waits for the teardown of each child a owns (each was
// started by markLocked or before) and returns their failures.
func (s *Service) waitChildren(a *activation) []error {
	s.mu.Lock()
	children := make([]*activation, 0, len(a.owned))
	for _, c := range a.owned {
		children = append(children, c)
	}
	s.mu.Unlock()
	var failures []error
	for _, c := range children {
		<-c.done
		if c.err != nil {
			failures = append(failures, c.err)
		}
	}
	return failures
}

// closeInbox ends the residency's inbox and returns its checkpoint (the
// messages still waiting), its stop reason and closing message: the last turn's, except that a residency whose agent
// refused its first message, or whose teardown failed, ended in error, and
// one that left a waking message unrun (discarded by a drain or because no
// turn took it, or kept by Close for the next residency) was stopped, not
// finished.
func (s *Service) closeInbox(a *activation, failed bool) (subagents.StopReason, string, *subagents.SubagentCheckpoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.inbox.closed = true
	cp := s.checkpointFactLocked(a)
	reason, last := a.lastReason, a.lastMessage
	if reason == "" {
		reason = subagents.StopReasonCompleted
	}
	if reason == subagents.StopReasonCompleted && (a.droppedWake || a.wakingLocked() > 0) || a.unrun {
		reason = subagents.StopReasonAborted
	}
	if failed || a.openFailed {
		reason, last = subagents.StopReasonError, ""
	}
	return reason, last, cp
}

// leave takes a finished activation out of the tree and sends its parent
// the settlement notice.
func (s *Service) leave(a *activation, failures []error, reason subagents.StopReason, last string) {
	var teardownErr error
	if len(failures) > 0 {
		teardownErr = newError(subagents.ErrorCodeActivationTeardownFailed, errors.Join(failures...), "tear down child %s", a.id)
	}
	s.mu.Lock()
	a.err = teardownErr
	a.state = stateGone
	if s.children[a.id] == a {
		delete(s.children, a.id)
	}
	notice, to := s.noticeLocked(a, reason, last)
	if a.parent != nil {
		delete(a.parent.owned, a.id)
		a.parent.wakeUp()
	}
	s.mu.Unlock()
	close(a.done)
	if notice != nil {
		s.sendNotice(a, *notice, to)
	}
}

// finalFlush flushes the child's session through the barrier, ignoring
// whether anyone took part and only logging a failure, then ends it.
func (s *Service) finalFlush(ctx context.Context, a *activation) {
	if _, err := s.sessions.Flush(context.WithoutCancel(ctx), a.id); err != nil {
		s.log.Warn("subagent: final flush of a child's session failed", "child", a.id, "err", err)
	}
	s.mu.Lock()
	unregister := a.unregister
	s.mu.Unlock()
	if unregister != nil {
		unregister()
	}
	if err := s.sessions.End(a.id); err != nil {
		s.log.Warn("subagent: end a child's session", "child", a.id, "err", err)
	}
}

// A noticeTarget is where a settlement notice goes: a resident child
// parent (reserved in its inbox) or an attached root.
type noticeTarget struct {
	child *activation
	root  *attachedRoot
	wake  bool
}

// noticeLocked builds the settlement notice for a's parent when an id of a
// was ever handed out and the parent is live and not closing; a child
// parent's inbox is reserved for it in the same critical section that
// releases a, so the parent cannot settle in between. The notice of a
// drain of a whole scope or of Close waits for the parent's next turn: a
// drain or a shutdown never starts one. Call with s.mu held.
func (s *Service) noticeLocked(a *activation, reason subagents.StopReason, last string) (*subagents.Message, noticeTarget) {
	if !a.announced {
		return nil, noticeTarget{}
	}
	text, summary := noticeText(a.id, reason, last)
	msg := subagents.Message{
		ID:      subagents.NewMessageID(),
		Source:  subagents.MessageSource{Kind: subagents.SourceKindSubagentSettled, Sender: a.id, Summary: summary},
		Content: []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: text}},
	}
	wake := a.mode.noticeWakes()
	if p := a.parent; p != nil {
		if p.state != stateResident || p.reserveLocked(msg, wake) != nil {
			return nil, noticeTarget{}
		}
		return &msg, noticeTarget{child: p, wake: wake}
	}
	if root, ok := s.roots[a.header.ParentSession]; ok {
		return &msg, noticeTarget{root: &root, wake: wake}
	}
	return nil, noticeTarget{}
}

func (s *Service) sendNotice(a *activation, msg subagents.Message, to noticeTarget) {
	var err error
	if to.child != nil {
		err = s.deliver(context.Background(), to.child, msg, to.wake)
	} else {
		err = to.root.deliver(context.Background(), msg, to.wake)
	}
	if err != nil {
		s.log.Warn("subagent: settlement notice not delivered", "child", a.id, "parent", a.header.ParentSession, "err", err)
	}
}

// noticeText is the settlement notice of a child and its summary.
func noticeText(id jobs.SessionID, reason subagents.StopReason, last string) (text, summary string) {
	var how string
	switch reason {
	case subagents.StopReasonCompleted:
		how = "finished and will do no further work unless you send it more."
	case subagents.StopReasonAborted:
		how = "was stopped before it finished."
	case subagents.StopReasonMaxTokens:
		how = "ran out of room before it finished."
	case subagents.StopReasonRefusal:
		how = "declined the task."
	default:
		how = "failed before it finished."
	}
	summary = "Background subagent " + string(id) + " " + how
	if len(summary) > subagents.DefaultNoticeSummaryBytes {
		summary = truncateUTF8(summary, subagents.DefaultNoticeSummaryBytes)
	}
	if last != "" {
		return "Background subagent " + string(id) + " " + how + "\nIts closing message:\n" + last, summary
	}
	return "Background subagent " + string(id) + " " + how + "\nIt left no closing message.", summary
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}
