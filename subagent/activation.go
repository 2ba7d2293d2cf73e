package subagent

import (
	"context"
	"fmt"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

type actState int

const (
	// stateOpening: installed in the tree, its residency not yet recorded
	// or its first message not yet delivered; no teardown can take it.
	stateOpening actState = iota
	stateResident
	stateDisposing
	stateGone
)

// A teardownMode says why a residency ends, which decides what becomes of
// the messages still waiting in its inbox and whether the parent's notice
// wakes it.
type teardownMode int

const (
	// settle: the child went quiescent. Quiet messages still waiting stay
	// accepted and are redelivered on the next residency.
	settle teardownMode = iota
	// drainChosen: DrainChildren. Every waiting message is discarded; the
	// parent, which goes on, is woken by the notice.
	drainChosen
	// drainScope: DrainDescendants. Every waiting message is discarded; the
	// notice waits for the parent's next turn.
	drainScope
	// shutdown: Close. Turns are cancelled, waiting messages are kept for
	// the next residency, as a crash would keep them; notices wake nobody.
	shutdown
)

// discards reports whether the teardown discards waiting messages.
func (m teardownMode) discards() bool { return m == drainChosen || m == drainScope }

// noticeWakes reports whether the settlement notice starts a parent turn: a
// drain of a whole scope or a shutdown never does.
func (m teardownMode) noticeWakes() bool { return m == settle || m == drainChosen }

// A pendingMsg is a message the child's inbox accepted and nobody has
// claimed or discarded yet.
type pendingMsg struct {
	msg  subagents.Message
	wake bool
	// delivered: the agent's Deliver returned nil for it.
	delivered bool
	// kept: an Interrupt kept it for the next turn, which it waits for.
	kept bool
}

// An activation is one residency of one child: its agent, its inbox
// bookkeeping and its place in the tree. Fields below mu are guarded by
// Service.mu.
type activation struct {
	id     jobs.SessionID
	stream journal.Stream
	header subagents.ChildHeader
	desc   subagents.Descriptor
	run    subagents.RunID
	cp     checkpointCursor // where the child's checkpoints stand
	inbox  *inbox
	poke   chan struct{}
	done   chan struct{} // closed when the residency is over
	// accepts counts messages between their reservation and their
	// delivery; teardown waits for them after its cutoff.
	accepts sync.WaitGroup

	// mu: Service.mu
	state       actState
	agent       Agent
	parent      *activation  // nil when the parent is an attached root
	pending     []pendingMsg // acceptance order
	owned       map[jobs.SessionID]*activation
	announced   bool // the residency's first message was handed out
	openFailed  bool // the agent refused the first message
	lastReason  subagents.StopReason
	lastMessage string
	mode        teardownMode
	droppedWake bool // teardown discarded a waking message with no turn for it
	unrun       bool // the idle agent held waking messages no turn took
	err         error
	unregister  func()
}

// newActivation is a fresh residency of child id with a new run and an
// open inbox.
func (s *Service) newActivation(id jobs.SessionID, header subagents.ChildHeader, desc subagents.Descriptor) *activation {
	a := &activation{
		id:     id,
		stream: journal.Stream(id),
		header: header,
		desc:   desc,
		run:    subagents.NewRunID(),
		poke:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		owned:  map[jobs.SessionID]*activation{},
	}
	a.inbox = &inbox{s: s, a: a}
	return a
}

func (a *activation) wakeUp() {
	select {
	case a.poke <- struct{}{}:
	default:
	}
}

// wakingLocked counts waiting messages that were to wake the child.
func (a *activation) wakingLocked() int {
	n := 0
	for _, p := range a.pending {
		if p.wake {
			n++
		}
	}
	return n
}

// unrunLocked lists the waking messages when every one of them was
// delivered and none was kept by an Interrupt: if the agent is idle now,
// no turn took them and none will. It returns nil otherwise.
func (a *activation) unrunLocked() []subagents.MessageID {
	var ids []subagents.MessageID
	for _, p := range a.pending {
		if !p.wake {
			continue
		}
		if !p.delivered || p.kept {
			return nil // a turn may be starting for it, or it waits by design
		}
		ids = append(ids, p.msg.ID)
	}
	return ids
}

// dropLocked removes message id from the pending list and reports whether
// it was there.
func (a *activation) dropLocked(id subagents.MessageID) (pendingMsg, bool) {
	for i, p := range a.pending {
		if p.msg.ID == id {
			a.pending = append(a.pending[:i:i], a.pending[i+1:]...)
			return p, true
		}
	}
	return pendingMsg{}, false
}

// markDeliveredLocked notes that the agent took message id into its inbox.
func (a *activation) markDeliveredLocked(id subagents.MessageID) {
	for i := range a.pending {
		if a.pending[i].msg.ID == id {
			a.pending[i].delivered = true
			return
		}
	}
}

// reserveLocked admits msg into a resident child's inbox: from here the
// child cannot settle before the message is delivered, and teardown waits
// for the delivery. The caller then calls deliver, without the lock, which
// ends the reservation.
func (a *activation) reserveLocked(msg subagents.Message, wake bool) error {
	if a.state != stateResident {
		return newError(subagents.ErrorCodeActivationClosing, nil, "child %s is being disposed", a.id)
	}
	a.pending = append(a.pending, pendingMsg{msg: msg, wake: wake})
	a.accepts.Add(1)
	return nil
}

// deliver ends a reservation: it writes the message's accepted fact, then
// hands the message to the agent. On failure the message is withdrawn
// (with a discarded fact when its accepted fact was written).
func (s *Service) deliver(ctx context.Context, a *activation, msg subagents.Message, wake bool) error {
	defer a.accepts.Done()
	defer a.wakeUp()
	err := s.appendFacts(ctx, a.stream, &subagents.SubagentMessageAccepted{
		Message: msg.ID, At: s.now().UnixMilli(), Source: msg.Source, Content: msg.Content, Wake: wake,
	})
	if err != nil {
		s.mu.Lock()
		a.dropLocked(msg.ID)
		s.mu.Unlock()
		return fmt.Errorf("subagent: accept a message for %s: %w", a.id, err)
	}
	s.obs.MessageAccepted(a.id, msg.ID, wake)
	return s.hand(a, msg, wake)
}

// hand gives an accepted message to the activation's agent and notes it
// delivered; one the agent refuses is discarded.
func (s *Service) hand(a *activation, msg subagents.Message, wake bool) error {
	s.mu.Lock()
	agent := a.agent
	s.mu.Unlock()
	if err := agent.Deliver(msg, wake); err != nil {
		s.discard(a, msg.ID, "delivery failed: "+err.Error())
		return fmt.Errorf("subagent: deliver to %s: %w", a.id, err)
	}
	s.mu.Lock()
	a.markDeliveredLocked(msg.ID)
	s.mu.Unlock()
	return nil
}

// discard drops a waiting message with a discarded fact.
func (s *Service) discard(a *activation, id subagents.MessageID, why string) bool {
	s.mu.Lock()
	p, ok := a.dropLocked(id)
	if ok && p.wake && a.state == stateDisposing {
		a.droppedWake = true
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	s.recordDiscard(a, id, why)
	a.wakeUp()
	return true
}

// recordDiscard writes the discarded fact of a message that left the inbox.
func (s *Service) recordDiscard(a *activation, id subagents.MessageID, why string) {
	err := s.appendFacts(context.Background(), a.stream, &subagents.SubagentMessageDiscarded{
		Message: id, At: s.now().UnixMilli(), Why: why,
	})
	if err != nil {
		s.log.Error("subagent: record a discarded message", "child", a.id, "message", id, "err", err)
	}
	s.obs.MessageDiscarded(a.id, id, why)
}

// An inbox is the Inbox one residency's agent reports to.
type inbox struct {
	s      *Service
	a      *activation
	closed bool // guarded by s.mu: the residency ended
}

func (in *inbox) Claimed(ids ...subagents.MessageID) {
	s, a := in.s, in.a
	s.mu.Lock()
	if in.closed {
		s.mu.Unlock()
		return
	}
	facts := make([]subagents.Fact, 0, len(ids))
	at := s.now().UnixMilli()
	for _, id := range ids {
		if _, ok := a.dropLocked(id); ok {
			facts = append(facts, &subagents.SubagentMessageClaimed{Message: id, At: at, Run: a.run})
		}
	}
	s.mu.Unlock()
	if len(facts) == 0 {
		return
	}
	s.recordClaims(a, facts)
	for _, f := range facts {
		s.obs.MessageClaimed(a.id, f.(*subagents.SubagentMessageClaimed).Message)
	}
	a.wakeUp()
}

// recordClaims writes claimed facts in one durable batch append
// before the agent's turn goes on, so a claimed message is never delivered
// again, not even after a crash; concurrent claims share the store's flush
// (group commit). A failure is logged: those messages may then be
// delivered again after a restart.
func (s *Service) recordClaims(a *activation, facts []subagents.Fact) {
	ctx := context.Background()
	err := s.appendDurable(ctx, a.stream, facts...)
	if err != nil {
		s.log.Error("subagent: record claimed messages", "child", a.id, "messages", len(facts), "err", err)
	}
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
		in.a.lastReason = reason
		if lastMessage != "" {
			in.a.lastMessage = lastMessage
		}
	}
	s.mu.Unlock()
	in.a.wakeUp()
}
