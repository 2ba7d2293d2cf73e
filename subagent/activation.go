package subagent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

type actState int

const (
	stateMaterializing actState = iota
	stateResident
	stateDisposing
	stateGone
)

// A teardownMode says why a residency ends, which decides what becomes of
// the messages still waiting in its inbox.
type teardownMode int

const (
	// settle: the child went quiescent. Quiet messages still waiting stay
	// accepted and are redelivered on the next residency.
	settle teardownMode = iota
	// drain: a scoped drain. Every waiting message is discarded.
	drain
	// shutdown: Close. Turns are cancelled, waiting messages are kept for
	// the next residency, as a crash would keep them.
	shutdown
)

// A pendingMsg is a message the child's inbox accepted and nobody has
// claimed or discarded yet.
type pendingMsg struct {
	msg  subagents.Message
	wake bool
}

// An activation is one resident child: its agent, its inbox bookkeeping and
// its place in the tree. Fields below mu are guarded by Service.mu.
type activation struct {
	id     jobs.SessionID
	stream journal.Stream
	header subagents.ChildHeader
	desc   subagents.Descriptor
	parent *activation // nil when the parent is an attached root
	poke   chan struct{}
	done   chan struct{} // closed when teardown finished
	// accepts counts accepts between their reservation and their delivery;
	// teardown waits for them after its cutoff.
	accepts sync.WaitGroup

	// mu: Service.mu
	state       actState
	agent       Agent
	run         subagents.RunID
	inbox       *inbox
	pending     []pendingMsg // acceptance order
	owned       map[jobs.SessionID]*activation
	announced   bool
	lastReason  subagents.StopReason
	lastMessage string
	mode        teardownMode
	droppedWake bool // teardown discarded a waking message nobody ran
	err         error
	unregister  func()
}

func newActivation(id jobs.SessionID, header subagents.ChildHeader, desc subagents.Descriptor) *activation {
	return &activation{
		id:     id,
		stream: journal.Stream(id),
		header: header,
		desc:   desc,
		poke:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		owned:  map[jobs.SessionID]*activation{},
	}
}

func (a *activation) wakeUp() {
	select {
	case a.poke <- struct{}{}:
	default:
	}
}

// waking counts waiting messages that were to wake the child.
func (a *activation) waking() int {
	n := 0
	for _, p := range a.pending {
		if p.wake {
			n++
		}
	}
	return n
}

// drop removes message id from the pending list and reports whether it
// was there.
func (a *activation) drop(id subagents.MessageID) (pendingMsg, bool) {
	for i, p := range a.pending {
		if p.msg.ID == id {
			a.pending = append(a.pending[:i:i], a.pending[i+1:]...)
			return p, true
		}
	}
	return pendingMsg{}, false
}

// reserve admits msg into a resident child's inbox: from here the child
// cannot settle before the message is delivered, and teardown waits for
// the delivery. Call with s.mu held; then call deliver without it.
func (a *activation) reserve(msg subagents.Message, wake bool) error {
	if a.state != stateResident {
		return newError(subagents.ErrorCodeActivationClosing, nil, "child %s is being disposed", a.id)
	}
	a.pending = append(a.pending, pendingMsg{msg: msg, wake: wake})
	a.accepts.Add(1)
	return nil
}

// deliver writes the accepted fact of a reserved message, then hands the
// message to the agent. On failure the message is withdrawn (with a
// discarded fact when its accepted fact was written).
func (s *Service) deliver(ctx context.Context, a *activation, msg subagents.Message, wake bool) error {
	defer a.accepts.Done()
	defer a.wakeUp()
	err := s.appendFacts(ctx, a.stream, factEntry{"accepted/" + msg.ID.String(), &subagents.SubagentMessageAccepted{
		Message: msg.ID, At: s.now().UnixMilli(), Source: msg.Source, Content: msg.Content, Wake: wake,
	}})
	if err != nil {
		s.mu.Lock()
		a.drop(msg.ID)
		s.mu.Unlock()
		return fmt.Errorf("subagent: accept a message for %s: %w", a.id, err)
	}
	s.mu.Lock()
	agent := a.agent
	s.mu.Unlock()
	if err := agent.Deliver(msg, wake); err != nil {
		s.discard(a, msg.ID, "delivery failed: "+err.Error())
		return fmt.Errorf("subagent: deliver to %s: %w", a.id, err)
	}
	return nil
}

// discard drops a waiting message with a discarded fact.
func (s *Service) discard(a *activation, id subagents.MessageID, why string) bool {
	s.mu.Lock()
	p, ok := a.drop(id)
	if ok && p.wake && a.state == stateDisposing {
		a.droppedWake = true
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	err := s.appendFacts(context.Background(), a.stream, factEntry{"discarded/" + id.String(), &subagents.SubagentMessageDiscarded{
		Message: id, At: s.now().UnixMilli(), Why: why,
	}})
	if err != nil {
		s.log.Error("subagent: record a discarded message", "child", a.id, "message", id, "err", err)
	}
	a.wakeUp()
	return true
}

// An inbox is the Inbox one residency's agent reports to.
type inbox struct {
	s      *Service
	a      *activation
	run    subagents.RunID
	closed bool // guarded by s.mu: the residency ended
}

func (in *inbox) Claimed(id subagents.MessageID) {
	s, a := in.s, in.a
	s.mu.Lock()
	if in.closed {
		s.mu.Unlock()
		return
	}
	_, ok := a.drop(id)
	s.mu.Unlock()
	if !ok {
		return
	}
	err := s.appendFacts(context.Background(), a.stream, factEntry{"claimed/" + id.String(), &subagents.SubagentMessageClaimed{
		Message: id, At: s.now().UnixMilli(), Run: in.run,
	}})
	if err != nil {
		s.log.Error("subagent: record a claimed message", "child", a.id, "message", id, "err", err)
	}
	a.wakeUp()
}

func (in *inbox) Discarded(id subagents.MessageID, why string) {
	in.s.mu.Lock()
	closed := in.closed
	in.s.mu.Unlock()
	if !closed {
		in.s.discard(in.a, id, why)
	}
}

func (in *inbox) TurnEnded(reason subagents.StopReason, lastMessage string) {
	s := in.s
	s.mu.Lock()
	if !in.closed {
		in.a.lastReason, in.a.lastMessage = reason, lastMessage
	}
	s.mu.Unlock()
	in.a.wakeUp()
}

// watch settles a resident child: once its agent is idle, no waking
// message waits and it owns no live child, it is disposed at once.
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
		if a.waking() > 0 || len(a.owned) > 0 {
			s.mu.Unlock()
			select {
			case <-a.poke:
			case <-a.done:
				return
			}
			continue
		}
		marked := s.markLocked(a, settle)
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), s.bound)
		s.runTeardown(ctx, marked, nil)
		cancel()
		return
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
	var failures []error
	s.mu.Lock()
	children := make([]*activation, 0, len(a.owned))
	for _, c := range a.owned {
		children = append(children, c)
	}
	s.mu.Unlock()
	for _, c := range children {
		<-c.done // each child's own teardown was started by markLocked or before
		if c.err != nil {
			failures = append(failures, c.err)
		}
	}
	a.accepts.Wait()
	s.mu.Lock()
	agent, mode := a.agent, a.mode
	s.mu.Unlock()
	select {
	case <-agent.Idle():
	case <-ctx.Done():
	}
	if mode == drain {
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
	s.mu.Lock()
	a.inbox.closed = true
	reason, last := a.lastReason, a.lastMessage
	if reason == "" {
		reason = subagents.StopReasonCompleted
	}
	if reason == subagents.StopReasonCompleted && a.droppedWake {
		reason = subagents.StopReasonAborted
	}
	if len(failures) > 0 {
		reason, last = subagents.StopReasonError, ""
	}
	run := a.run
	s.mu.Unlock()
	err := s.appendFacts(context.WithoutCancel(ctx), a.stream, factEntry{"ended/" + run.String(), &subagents.SubagentResidencyEnded{
		Run: run, At: s.now().UnixMilli(), StopReason: reason, LastMessage: last,
	}})
	if err != nil {
		failures = append(failures, fmt.Errorf("record the residency's end: %w", err))
	}
	s.finalFlush(ctx, a)

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
	root  Agent
}

// noticeLocked builds the settlement notice for a's parent when an id of a
// was ever handed out and the parent is live and not closing; a child
// parent's inbox is reserved for it in the same critical section that
// releases a, so the parent cannot settle in between. Call with s.mu held.
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
	if p := a.parent; p != nil {
		if p.state != stateResident || p.reserve(msg, true) != nil {
			return nil, noticeTarget{}
		}
		return &msg, noticeTarget{child: p}
	}
	if root, ok := s.roots[a.header.ParentSession]; ok {
		return &msg, noticeTarget{root: root}
	}
	return nil, noticeTarget{}
}

func (s *Service) sendNotice(a *activation, msg subagents.Message, to noticeTarget) {
	var err error
	if to.child != nil {
		err = s.deliver(context.Background(), to.child, msg, true)
	} else {
		err = to.root.Deliver(msg, true)
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
