package subagenttest

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/subagent"
)

// A Host is a scripted subagent.Host. Its agents do nothing on their own:
// the test starts and ends their turns (BeginTurn, EndTurn, FailTurn). It
// records every materialization and disposal in order.
type Host struct {
	// Fail, when set, is asked before each materialization; an error fails it.
	Fail func(child subagent.Child) error
	// OnDispose, when set, is called as an agent is disposed, before it is
	// marked so.
	OnDispose func(a *Agent)

	mu       sync.Mutex
	agents   []*Agent
	current  map[jobs.SessionID]*Agent
	disposed []jobs.SessionID
}

// NewHost returns a Host with no agents.
func NewHost() *Host { return &Host{current: map[jobs.SessionID]*Agent{}} }

// Materialize makes a scripted agent for child.
func (h *Host) Materialize(ctx context.Context, child subagent.Child, inbox subagent.Inbox) (subagent.Agent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if h.Fail != nil {
		if err := h.Fail(child); err != nil {
			return nil, err
		}
	}
	a := NewAgent(child.ID)
	a.Child, a.inbox, a.host = child, inbox, h
	h.mu.Lock()
	h.agents = append(h.agents, a)
	h.current[child.ID] = a
	h.mu.Unlock()
	return a, nil
}

// Agent returns the latest agent materialized for id, or nil.
func (h *Host) Agent(id jobs.SessionID) *Agent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.current[id]
}

// Agents returns every agent materialized, in order.
func (h *Host) Agents() []*Agent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*Agent(nil), h.agents...)
}

// Disposed returns the ids of the disposed agents, in disposal order.
func (h *Host) Disposed() []jobs.SessionID {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]jobs.SessionID(nil), h.disposed...)
}

// An Agent is a scripted agent. Its zero value is not usable; NewAgent
// makes one that can also stand for a root session attached with
// Service.Attach.
//
// It keeps the Agent contract as a real agent would, with the test in the
// part of the model: a waking delivery makes it busy (Idle open) until a
// turn takes the message (BeginTurn, then EndTurn) or fails before taking
// it (FailTurn); a cancelled turn ends at once unless IgnoreCancel is set,
// and a cancellation that kept the inbox leaves its waking messages held
// for the next turn without starting one.
type Agent struct {
	id jobs.SessionID
	// Child is what the host was given; zero for a root agent.
	Child subagent.Child
	// DisposeErr, when set, is what Dispose returns.
	DisposeErr error
	// IgnoreCancel makes Cancel leave a running turn running (it still
	// drops the queue without keepInbox), like a model call that does not
	// stop at once.
	IgnoreCancel bool
	// DeliverErr, when set, is what Deliver returns (taking nothing).
	DeliverErr error

	inbox subagent.Inbox
	host  *Host

	mu        sync.Mutex
	queue     []queued
	inTurn    bool
	wantTurn  bool // a waking delivery waits for its turn
	idle      chan struct{}
	delivered []subagents.Message
	woken     []subagents.MessageID
	claimed   []subagents.MessageID
	cancels   int
	disposed  bool
	done      chan struct{}
}

type queued struct {
	msg  subagents.Message
	wake bool
	held bool // kept by a cancellation: waits for a turn, starts none
}

// NewAgent returns an idle agent for id that reports to nobody.
func NewAgent(id jobs.SessionID) *Agent {
	idle := make(chan struct{})
	close(idle)
	return &Agent{id: id, idle: idle, done: make(chan struct{})}
}

// ID returns the agent's session.
func (a *Agent) ID() jobs.SessionID { return a.id }

// ErrDisposed is what Deliver returns after Dispose.
var ErrDisposed = errors.New("subagenttest: agent disposed")

// Deliver queues msg; with wake the agent is busy until a turn takes it or
// fails.
func (a *Agent) Deliver(msg subagents.Message, wake bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.disposed {
		return ErrDisposed
	}
	if a.DeliverErr != nil {
		return a.DeliverErr
	}
	a.queue = append(a.queue, queued{msg: msg, wake: wake})
	a.delivered = append(a.delivered, msg)
	if wake {
		a.woken = append(a.woken, msg.ID)
		if !a.inTurn && !a.wantTurn {
			a.wantTurn = true
			a.idle = make(chan struct{})
		}
	}
	return nil
}

// Wanted reports whether a waking message waits for a turn: one delivered
// since the last turn, or one a cancellation kept.
func (a *Agent) Wanted() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.wantTurn {
		return true
	}
	for _, q := range a.queue {
		if q.wake && q.held {
			return true
		}
	}
	return false
}

// BeginTurn starts a turn, claiming every queued message, and returns them.
// It does nothing and returns nil when a turn runs or the agent is disposed.
func (a *Agent) BeginTurn() []subagents.Message {
	a.mu.Lock()
	if a.inTurn || a.disposed {
		a.mu.Unlock()
		return nil
	}
	a.inTurn = true
	if !a.wantTurn {
		a.idle = make(chan struct{})
	}
	a.wantTurn = false
	a.mu.Unlock()
	return a.claimAll()
}

func (a *Agent) claimAll() []subagents.Message {
	a.mu.Lock()
	q := a.queue
	a.queue = nil
	var msgs []subagents.Message
	for _, x := range q {
		msgs = append(msgs, x.msg)
		a.claimed = append(a.claimed, x.msg.ID)
	}
	a.mu.Unlock()
	if a.inbox != nil && len(msgs) > 0 {
		ids := make([]subagents.MessageID, len(msgs))
		for i, m := range msgs {
			ids[i] = m.ID
		}
		a.inbox.Claimed(ids...)
	}
	return msgs
}

// EndTurn ends the running turn with reason and closing message. A waking
// message delivered during the turn keeps the agent busy for the next one.
func (a *Agent) EndTurn(reason subagents.StopReason, last string) {
	a.endTurn(reason, last, true)
}

// FailTurn ends the running or pending turn with reason, without claiming
// what waits: a turn that failed before taking its input. The agent goes
// idle holding its queue.
func (a *Agent) FailTurn(reason subagents.StopReason) {
	a.mu.Lock()
	pending := a.wantTurn
	a.mu.Unlock()
	if pending {
		a.mu.Lock()
		a.inTurn = true
		a.wantTurn = false
		a.mu.Unlock()
	}
	a.endTurn(reason, "", false)
}

func (a *Agent) endTurn(reason subagents.StopReason, last string, more bool) {
	a.mu.Lock()
	if !a.inTurn {
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	if a.inbox != nil {
		a.inbox.TurnEnded(reason, last)
	}
	a.mu.Lock()
	a.inTurn = false
	if more && slices.ContainsFunc(a.queue, func(q queued) bool { return q.wake && !q.held }) {
		a.wantTurn = true
	} else {
		close(a.idle)
	}
	a.mu.Unlock()
}

// InTurn reports whether a turn runs.
func (a *Agent) InTurn() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inTurn
}

// Cancel aborts the running turn, or the pending one; without keepInbox it
// discards the queue, with it the waking messages are held for a later
// turn and start none.
func (a *Agent) Cancel(cause error, keepInbox bool) {
	a.mu.Lock()
	a.cancels++
	var dropped []queued
	if keepInbox {
		for i := range a.queue {
			a.queue[i].held = a.queue[i].held || a.queue[i].wake
		}
	} else {
		dropped, a.queue = a.queue, nil
	}
	pending := a.wantTurn && !a.inTurn
	a.wantTurn = false
	a.mu.Unlock()
	for _, q := range dropped {
		if a.inbox != nil {
			a.inbox.Discarded(q.msg.ID, "cancelled")
		}
	}
	if pending {
		a.mu.Lock()
		a.inTurn = true // the pending turn ends as cancelled
		a.mu.Unlock()
		a.endTurn(subagents.StopReasonAborted, "", false)
		return
	}
	if !a.IgnoreCancel {
		a.endTurn(subagents.StopReasonAborted, "", false)
	}
}

// Idle returns a channel closed while no turn runs or waits.
func (a *Agent) Idle() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.idle
}

// Dispose marks the agent disposed and returns DisposeErr.
func (a *Agent) Dispose(ctx context.Context) error {
	a.mu.Lock()
	already := a.disposed
	a.disposed = true
	a.mu.Unlock()
	if !already {
		if a.host != nil && a.host.OnDispose != nil {
			a.host.OnDispose(a)
		}
		if a.host != nil {
			a.host.mu.Lock()
			a.host.disposed = append(a.host.disposed, a.id)
			if a.host.current[a.id] == a {
				delete(a.host.current, a.id)
			}
			a.host.mu.Unlock()
		}
		close(a.done)
	}
	return a.DisposeErr
}

// Done is closed once the agent is disposed.
func (a *Agent) Done() <-chan struct{} { return a.done }

// Disposed reports whether the agent was disposed.
func (a *Agent) Disposed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.disposed
}

// Delivered returns every message delivered, in order.
func (a *Agent) Delivered() []subagents.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]subagents.Message(nil), a.delivered...)
}

// Woken returns the ids of the messages delivered with wake, in order.
func (a *Agent) Woken() []subagents.MessageID {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]subagents.MessageID(nil), a.woken...)
}

// Claimed returns the ids of every message claimed, in order.
func (a *Agent) Claimed() []subagents.MessageID {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]subagents.MessageID(nil), a.claimed...)
}

// Queued returns the messages delivered and not yet claimed or dropped.
func (a *Agent) Queued() []subagents.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	var m []subagents.Message
	for _, q := range a.queue {
		m = append(m, q.msg)
	}
	return m
}

// Cancels counts Cancel calls.
func (a *Agent) Cancels() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cancels
}

// A Provider is a scripted provider of continuable children. Its Start
// runs nothing: StartFunc decides, and without one it fails.
type Provider struct {
	// ProviderName is the registered name.
	ProviderName string
	// Caps are the one-shot capabilities.
	Caps subagent.Capabilities
	// Seed is what PrepareContinuable returns.
	Seed func(req subagent.ContinuableCreateRequest) (subagent.ContinuableCreateSpec, error)
	// StartFunc runs a one-shot start.
	StartFunc func(ctx context.Context, req subagent.ResolvedStartRequest) (subagent.Run, error)

	mu       sync.Mutex
	prepared []subagent.ContinuableCreateRequest
	started  []subagent.ResolvedStartRequest
}

// Name returns ProviderName.
func (p *Provider) Name() string { return p.ProviderName }

// Capabilities returns Caps.
func (p *Provider) Capabilities() subagent.Capabilities { return p.Caps }

// Start records req and calls StartFunc.
func (p *Provider) Start(ctx context.Context, req subagent.ResolvedStartRequest) (subagent.Run, error) {
	p.mu.Lock()
	p.started = append(p.started, req)
	p.mu.Unlock()
	if p.StartFunc == nil {
		return nil, errors.New("subagenttest: provider has no StartFunc")
	}
	return p.StartFunc(ctx, req)
}

// PrepareContinuable records req and returns Seed's answer (no seed without one).
func (p *Provider) PrepareContinuable(ctx context.Context, req subagent.ContinuableCreateRequest) (subagent.ContinuableCreateSpec, error) {
	p.mu.Lock()
	p.prepared = append(p.prepared, req)
	p.mu.Unlock()
	if p.Seed == nil {
		return subagent.ContinuableCreateSpec{}, ctx.Err()
	}
	return p.Seed(req)
}

// Prepared returns every PrepareContinuable request, in order.
func (p *Provider) Prepared() []subagent.ContinuableCreateRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]subagent.ContinuableCreateRequest(nil), p.prepared...)
}

// Started returns every Start request, in order.
func (p *Provider) Started() []subagent.ResolvedStartRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]subagent.ResolvedStartRequest(nil), p.started...)
}
