package subagent

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// A Host is the runtime's side of the seam: it makes live agents. The
// manager calls Materialize once per residency of a child — at creation with
// the provider's seed, and at each cold resume with the child's seed and
// its stream (Child.History) — and never runs a model itself.
type Host interface {
	// Materialize returns a live agent for child that reports to inbox. The
	// agent has no turn running and holds no message yet: the manager delivers
	// the initial prompt, or at a cold resume first every accepted message
	// nobody claimed, then the follow-up, through Agent.Deliver. An error
	// leaves nothing behind: the manager writes no fact and hands out no id.
	// The Agent must be a pointer: the manager authorizes callers by
	// comparing it with ==, so a copy of it is never the live agent.
	Materialize(ctx context.Context, child Child, inbox Inbox) (Agent, error)
}

// A Child is what the host needs to materialize one residency of a child.
type Child struct {
	// ID is the child's session; its stream is journal.Stream(ID).
	ID jobs.SessionID
	// Run identifies this residency.
	Run subagents.RunID
	// Header names the direct parent and the delegation depth.
	Header subagents.ChildHeader
	// Descriptor says how the child was created: route, persona, tool filter.
	Descriptor subagents.Descriptor
	// Seed is the provider's seed (a parent's completed-turn prefix), in order.
	Seed []json.RawMessage
	// Resumed reports a cold resume from the child's stream.
	Resumed bool

	store journal.Store
}

// History yields every record on the child's stream — the manager's facts
// and whatever the runtime appended — in seq order, read from the store as
// the host iterates: the manager itself reads only what follows the last
// checkpoint, and a host that folds its own facts from the stream asks for
// the whole of it here. At creation it yields nothing.
func (c Child) History(ctx context.Context) iter.Seq2[journal.Record, error] {
	if c.store == nil || !c.Resumed {
		return func(func(journal.Record, error) bool) {}
	}
	return c.store.ReadStream(ctx, journal.Stream(c.ID), 0)
}

// An Agent is one residency of one child, as the host runs it.
//
// Its methods may be called from any goroutine. After Dispose returns, the
// agent calls no Inbox method again and every call it made has returned.
//
// A waking delivery obliges the agent to run a turn for it: from the moment
// Deliver returns until a turn that takes the message ends, Idle returns an
// open channel. An agent that goes idle still holding waking messages no
// turn took — its turn failed before taking its input — has them discarded
// by the manager (with a discarded fact, "no turn took it"), and the
// residency then settles aborted; messages the agent discarded itself
// (Inbox.Discarded) are left alone, and so are the waking messages an
// Interrupt kept, which wait for the next turn a delivery starts.
type Agent interface {
	// ID returns the session the agent runs.
	ID() jobs.SessionID
	// Deliver puts msg in the agent's inbox. With wake the agent starts a turn
	// (or steers the running one) to take it; without, it waits for the next
	// turn. The manager wrote the message's accepted fact first; an error
	// means the agent did not take it.
	Deliver(msg subagents.Message, wake bool) error
	// Cancel stops the running turn, if any, with cause. With keepInbox the
	// messages not yet taken stay for the next turn and start none; without,
	// the agent drops them and calls Inbox.Discarded for each.
	Cancel(cause error, keepInbox bool)
	// Idle returns a channel that is closed while the agent has no turn
	// running or owed; while one runs it returns an open channel that is
	// closed when the turn ends. An agent claims messages only inside a turn
	// and starts one only for a waking delivery.
	Idle() <-chan struct{}
	// Dispose releases the agent. The manager calls it once, when the child
	// settles or is torn down, after the agent is idle or ctx ended.
	Dispose(ctx context.Context) error
}

// A RoutedAgent is an Agent that knows the model route it runs on. A child
// created without AgentOptions takes its parent's route into its
// descriptor, once, at creation: a child parent's from its own descriptor,
// an attached root's from Route when the root is a RoutedAgent (otherwise
// the child's descriptor names none and the runtime's default applies).
type RoutedAgent interface {
	Agent
	Route() AgentOptions
}

// An Inbox is the manager's ears: what the agent did with each message it
// was delivered. Each call writes a fact on the child's stream before it
// returns; calls about a message the manager does not hold (never delivered,
// already claimed or discarded) are ignored.
type Inbox interface {
	// Claimed says the agent took the messages into a turn. Their claimed
	// facts are durable when it returns (one append and a flush of the
	// store, shared with concurrent claims), so a claimed message is never
	// delivered again, not even after a crash. Claim every message a turn
	// takes in one call; only if the store fails (the failure is logged) may
	// a claimed message be delivered again after a restart.
	Claimed(ids ...subagents.MessageID)
	// Discarded says the agent dropped the message unread, and why.
	Discarded(id subagents.MessageID, why string)
	// TurnEnded says a turn ended, how, and with what closing message (empty
	// when there was none). The last one before disposal is the residency's
	// stop reason and the settlement notice's text.
	TurnEnded(reason subagents.StopReason, lastMessage string)
}
