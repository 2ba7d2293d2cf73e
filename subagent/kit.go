package subagent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// A TurnFunc runs one turn of an agent over the messages the turn took, in
// order, and returns the turn's closing message (empty when it has none).
// ctx ends when the turn is cancelled (Agent.Cancel, a drain, Close) or
// the agent disposed; context.Cause says why. An error ends the turn with
// stop reason error, or with the reason of a Stop wrapped in it; a turn
// whose ctx ended ends aborted.
type TurnFunc func(ctx context.Context, messages []subagents.Message) (closing string, err error)

// Stop returns an error that ends a turn with reason (max tokens, a
// refusal …) and why; a TurnFunc returns it.
func Stop(reason subagents.StopReason, why error) error { return &stopError{reason, why} }

type stopError struct {
	reason subagents.StopReason
	err    error
}

func (e *stopError) Error() string {
	if e.err == nil {
		return "subagent: turn stopped: " + string(e.reason)
	}
	return fmt.Sprintf("subagent: turn stopped (%s): %v", e.reason, e.err)
}

func (e *stopError) Unwrap() error { return e.err }

// A QueueAgent is the Agent side of the seam, ready made: it keeps the
// inbox and its bookkeeping, and runs turns through the runtime's TurnFunc.
// A waking delivery starts a turn on a goroutine of its own, which claims
// every message waiting (one Claimed call), calls the TurnFunc with them
// and reports the end (TurnEnded); while waking messages keep arriving it
// runs another turn for them, until none waits. A message delivered while
// a turn runs waits for the next one. Cancel ends the running turn (its
// ctx); Dispose ends it and waits for it.
//
// Return one from a Host's Materialize, or embed it (as a pointer) in the
// runtime's own agent type; a root agent can be one too, with a nil Inbox
// or a DurableRoot's. Its methods are safe for concurrent use.
type QueueAgent struct {
	id    jobs.SessionID
	inbox Inbox
	turn  TurnFunc

	mu       sync.Mutex
	queue    []queuedMsg
	running  bool
	idle     chan struct{}
	cancel   context.CancelCauseFunc // the running turn's
	stopped  bool                    // Cancel ended the running turn: run no more
	disposed bool
	done     chan struct{} // closed when the running turn's goroutine returns
}

type queuedMsg struct {
	msg  subagents.Message
	wake bool
}

// ErrAgentDisposed is what a disposed QueueAgent's Deliver returns.
var ErrAgentDisposed = errors.New("subagent: agent disposed")

// NewQueueAgent returns an idle agent for session id that reports to inbox
// (nil for a root that reports nothing) and runs its turns with turn.
func NewQueueAgent(id jobs.SessionID, inbox Inbox, turn TurnFunc) *QueueAgent {
	idle := make(chan struct{})
	close(idle)
	return &QueueAgent{id: id, inbox: inbox, turn: turn, idle: idle}
}

// ID returns the agent's session.
func (q *QueueAgent) ID() jobs.SessionID { return q.id }

// Deliver queues msg; with wake it starts a turn unless one runs.
func (q *QueueAgent) Deliver(msg subagents.Message, wake bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.disposed {
		return ErrAgentDisposed
	}
	q.queue = append(q.queue, queuedMsg{msg, wake})
	if wake && q.running {
		q.stopped = false // a cancelled turn is followed by one for this message
	}
	if wake && !q.running {
		q.running, q.stopped = true, false
		q.idle = make(chan struct{})
		q.done = make(chan struct{})
		go q.loop(q.done)
	}
	return nil
}

// loop runs turns while waking messages wait.
func (q *QueueAgent) loop(done chan struct{}) {
	defer close(done)
	for {
		q.mu.Lock()
		if q.stopped || q.disposed || !q.wakingLocked() {
			q.running = false
			close(q.idle)
			q.mu.Unlock()
			return
		}
		msgs := make([]subagents.Message, len(q.queue))
		for i, m := range q.queue {
			msgs[i] = m.msg
		}
		q.queue = nil
		ctx, cancel := context.WithCancelCause(context.Background())
		q.cancel = cancel
		q.mu.Unlock()
		q.runTurn(ctx, msgs)
		cancel(nil)
	}
}

// runTurn claims msgs, runs the turn and reports its end.
func (q *QueueAgent) runTurn(ctx context.Context, msgs []subagents.Message) {
	if q.inbox != nil {
		ids := make([]subagents.MessageID, len(msgs))
		for i, m := range msgs {
			ids[i] = m.ID
		}
		q.inbox.Claimed(ids...)
	}
	closing, err := q.turn(ctx, msgs)
	reason := subagents.StopReasonCompleted
	var stop *stopError
	switch {
	case errors.As(err, &stop):
		reason = stop.reason
	case ctx.Err() != nil:
		reason = subagents.StopReasonAborted
	case err != nil:
		reason = subagents.StopReasonError
	}
	if q.inbox != nil {
		q.inbox.TurnEnded(reason, closing)
	}
}

// wakingLocked reports whether a waking message waits; q.mu held.
func (q *QueueAgent) wakingLocked() bool {
	for _, m := range q.queue {
		if m.wake {
			return true
		}
	}
	return false
}

// Cancel ends the running turn with cause; with keepInbox the waiting
// messages stay for a later turn, without they are dropped and reported
// discarded.
func (q *QueueAgent) Cancel(cause error, keepInbox bool) {
	q.mu.Lock()
	var dropped []queuedMsg
	if !keepInbox {
		dropped, q.queue = q.queue, nil
	}
	if q.running {
		q.stopped = true
		if q.cancel != nil {
			q.cancel(cause)
		}
	}
	q.mu.Unlock()
	if q.inbox != nil {
		for _, m := range dropped {
			q.inbox.Discarded(m.msg.ID, "cancelled")
		}
	}
}

// Idle returns a channel closed while no turn runs.
func (q *QueueAgent) Idle() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.idle
}

// Dispose ends the running turn, if any, and waits for it or ctx; after it
// the agent takes no message and makes no Inbox call.
func (q *QueueAgent) Dispose(ctx context.Context) error {
	q.mu.Lock()
	q.disposed = true
	done := q.done
	if q.running && q.cancel != nil {
		q.cancel(ErrAgentDisposed)
	}
	q.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("subagent: dispose %s: the turn did not end: %w", q.id, context.Cause(ctx))
	}
}

// HostFunc adapts a function to a Host.
type HostFunc func(ctx context.Context, child Child, inbox Inbox) (Agent, error)

// Materialize calls f.
func (f HostFunc) Materialize(ctx context.Context, child Child, inbox Inbox) (Agent, error) {
	return f(ctx, child, inbox)
}
