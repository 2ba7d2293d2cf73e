package subagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// A DurableRoot is a root attached with AttachDurable: the reports and
// settlement notices the manager delivers to it are facts on its own
// stream (journal.Stream of its id) before it sees them, as a child's
// messages are, and those it neither claimed nor discarded are delivered
// again after a restart, once, by MessageID.
type DurableRoot struct {
	s      *Service
	agent  Agent
	inbox  *rootInbox
	detach func()
}

// AttachDurable attaches root as Attach does and makes the messages the
// manager delivers to it durable on its stream. It folds the stream (the
// manager's facts there; any other vocabulary is skipped) for the messages
// an earlier process accepted for root that nobody claimed or discarded;
// Redeliver hands them over. Root reports what it does with each message
// through the returned handle's Inbox, as a child's agent does: a claim is
// durable when Claimed returns. It needs a store (ErrPersistenceUnavailable).
func (s *Service) AttachDurable(ctx context.Context, root Agent) (*DurableRoot, error) {
	if s.store == nil {
		return nil, newError(subagents.ErrorCodePersistenceUnavailable, nil, "a durable root requires session persistence")
	}
	if err := checkPointer(root); err != nil {
		return nil, err
	}
	waiting, err := s.foldInbox(ctx, journal.Stream(root.ID()))
	if err != nil {
		return nil, err
	}
	in := &rootInbox{s: s, id: root.ID(), stream: journal.Stream(root.ID()), run: subagents.NewRunID(), pending: waiting}
	detach, err := s.attach(root, in)
	if err != nil {
		return nil, err
	}
	return &DurableRoot{s: s, agent: root, inbox: in, detach: detach}, nil
}

// Inbox is where the root reports what it did with each message.
func (r *DurableRoot) Inbox() Inbox { return r.inbox }

// Redeliver delivers the messages an earlier process accepted for the root
// and nobody claimed or discarded, in acceptance order, and returns how
// many the root took; one it refuses is discarded. Call it once, when the
// root is ready for them; a second call delivers nothing.
func (r *DurableRoot) Redeliver() int {
	s := r.s
	s.mu.Lock()
	var todo []pendingMsg
	for i, p := range r.inbox.pending {
		if !p.delivered {
			todo = append(todo, p)
			r.inbox.pending[i].delivered = true
		}
	}
	s.mu.Unlock()
	n := 0
	for _, p := range todo {
		if err := r.agent.Deliver(p.msg, p.wake); err != nil {
			r.inbox.discard(p.msg.ID, "redelivery failed: "+err.Error())
			continue
		}
		s.obs.Redelivered(r.inbox.id, p.msg.ID)
		n++
	}
	return n
}

// Detach ends the root's attachment; its waiting messages stay on its
// stream for the next AttachDurable.
func (r *DurableRoot) Detach() { r.detach() }

// A rootInbox is the Inbox of a durable root; its pending list is guarded
// by Service.mu.
type rootInbox struct {
	s       *Service
	id      jobs.SessionID
	stream  journal.Stream
	run     subagents.RunID // names this attachment in claimed facts
	pending []pendingMsg
}

// deliver writes msg's accepted fact on the root's stream, then hands it
// to the root; one the root refuses is discarded.
func (in *rootInbox) deliver(ctx context.Context, root Agent, msg subagents.Message, wake bool) error {
	s := in.s
	err := s.appendFacts(ctx, in.stream, &subagents.SubagentMessageAccepted{
		Message: msg.ID, At: s.now().UnixMilli(), Source: msg.Source, Content: msg.Content, Wake: wake,
	})
	if err != nil {
		return fmt.Errorf("subagent: accept a message for root %s: %w", in.id, err)
	}
	s.obs.MessageAccepted(in.id, msg.ID, wake)
	s.mu.Lock()
	in.pending = append(in.pending, pendingMsg{msg: msg, wake: wake, delivered: true})
	s.mu.Unlock()
	if err := root.Deliver(msg, wake); err != nil {
		in.discard(msg.ID, "delivery failed: "+err.Error())
		return err
	}
	return nil
}

// dropLocked removes message id from the pending list; s.mu held.
func (in *rootInbox) dropLocked(id subagents.MessageID) bool {
	for i, p := range in.pending {
		if p.msg.ID == id {
			in.pending = append(in.pending[:i:i], in.pending[i+1:]...)
			return true
		}
	}
	return false
}

func (in *rootInbox) Claimed(ids ...subagents.MessageID) {
	s := in.s
	var facts []subagents.Fact
	at := s.now().UnixMilli()
	s.mu.Lock()
	for _, id := range ids {
		if in.dropLocked(id) {
			facts = append(facts, &subagents.SubagentMessageClaimed{Message: id, At: at, Run: in.run})
		}
	}
	s.mu.Unlock()
	if len(facts) == 0 {
		return
	}
	ctx := context.Background()
	err := s.appendDurable(ctx, in.stream, facts...)
	if err != nil {
		s.log.Error("subagent: record claimed messages", "root", in.id, "messages", len(facts), "err", err)
	}
	for _, f := range facts {
		s.obs.MessageClaimed(in.id, f.(*subagents.SubagentMessageClaimed).Message)
	}
}

func (in *rootInbox) Discarded(id subagents.MessageID, why string) { in.discard(id, why) }

func (in *rootInbox) discard(id subagents.MessageID, why string) {
	s := in.s
	s.mu.Lock()
	ok := in.dropLocked(id)
	s.mu.Unlock()
	if !ok {
		return
	}
	err := s.appendFacts(context.Background(), in.stream, &subagents.SubagentMessageDiscarded{Message: id, At: s.now().UnixMilli(), Why: why})
	if err != nil {
		s.log.Error("subagent: record a discarded message", "root", in.id, "message", id, "err", err)
	}
	s.obs.MessageDiscarded(in.id, id, why)
}

// TurnEnded is nothing to the manager for a root: a root settles nowhere.
func (in *rootInbox) TurnEnded(subagents.StopReason, string) {}

// foldInbox reads a stream for the messages the manager accepted on it
// that were neither claimed nor discarded, in acceptance order. Records of
// other vocabularies are skipped.
func (s *Service) foldInbox(ctx context.Context, stream journal.Stream) ([]pendingMsg, error) {
	var accepted []pendingMsg
	gone := map[subagents.MessageID]bool{}
	for rec, err := range s.store.ReadStream(ctx, stream, 0) {
		if err != nil {
			return nil, s.failure(ctx, err, "read the inbox of %s", stream)
		}
		f, err := subagents.DecodeFact(rec.Payload)
		if errors.Is(err, subagents.ErrUnknownFact) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("subagent: the inbox of %s: record %d: %w", stream, rec.Seq, err)
		}
		switch f := f.(type) {
		case subagents.SubagentMessageAccepted:
			accepted = append(accepted, pendingMsg{msg: subagents.Message{ID: f.Message, Source: f.Source, Content: f.Content}, wake: f.Wake})
		case subagents.SubagentMessageClaimed:
			gone[f.Message] = true
		case subagents.SubagentMessageDiscarded:
			gone[f.Message] = true
		}
	}
	var waiting []pendingMsg
	for _, p := range accepted {
		if !gone[p.msg.ID] {
			waiting = append(waiting, p)
		}
	}
	return waiting, nil
}
