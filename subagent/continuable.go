package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// StartContinuable creates a durable child of spec.Parent and returns its id
// and the id of its accepted initial message as soon as the child's inbox
// accepted the prompt. Checks run in this order: admission (ErrDraining),
// persistence (ErrPersistenceUnavailable), a host (ErrContinuationUnavailable),
// the provider (ErrNoProvider) and its PrepareContinuable
// (ErrUnsupportedCapability; the provider's Start is never called), the
// depth limit (*DepthError), a free child id (ErrDuplicateChild: live, or
// with history), the exact live parent (ErrUnauthorized), then the
// provider's seed, the host's materialization and the parent's ownership
// (ErrActivationClosing when the parent is being disposed). The created,
// seeded, residency-started and accepted facts are appended in one append.
// Any failure before acceptance rolls back fully and returns no ids.
func (s *Service) StartContinuable(ctx context.Context, spec ContinuableSpec) (jobs.SessionID, subagents.MessageID, error) {
	id, msg, err := s.startContinuable(ctx, spec)
	if err != nil {
		return "", subagents.MessageID{}, err
	}
	return id, msg, nil
}

func (s *Service) startContinuable(ctx context.Context, spec ContinuableSpec) (jobs.SessionID, subagents.MessageID, error) {
	var none subagents.MessageID
	parentID, prep, err := s.checkContinuable(ctx, spec)
	if err != nil {
		return "", none, err
	}
	id, depth, err := s.placeChild(spec, parentID)
	if err != nil {
		return "", none, err
	}
	desc := continuableDescriptor(spec)
	cs, err := prep.PrepareContinuable(ctx, ContinuableCreateRequest{SessionID: id, ParentSession: parentID, Descriptor: desc})
	if err != nil {
		if c := cancelled(ctx, "prepare child "+string(id)); c != nil {
			return "", none, c
		}
		return "", none, fmt.Errorf("subagent: provider %q: prepare child %s: %w", spec.Provider, id, err)
	}
	unlock, err := s.lockChild(ctx, id)
	if err != nil {
		return "", none, err
	}
	defer unlock()
	if err := s.refuseHistory(ctx, id); err != nil {
		return "", none, err
	}
	header := subagents.ChildHeader{ParentSession: parentID, Origin: subagents.OriginSubagent, DelegationDepth: depth, SeedLength: len(cs.Seed)}
	a := s.newResidency(id, header, desc)
	if err := s.install(ctx, a, spec.Parent); err != nil {
		return "", none, err
	}
	defer s.inflight.Done()
	agent, err := s.materialize(ctx, a, Child{ID: id, Run: a.run, Header: header, Descriptor: desc, Seed: cs.Seed}, "materialize")
	if err != nil {
		return "", none, err
	}
	msg := subagents.Message{ID: subagents.NewMessageID(), Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: spec.Prompt}
	if err := s.admit(ctx, a, agent, spec.Parent, msg); err != nil {
		s.rollback(a, agent, nil)
		return "", none, err
	}
	facts := creationFacts(a, cs.Seed, msg, s.now().UnixMilli())
	if err := s.recordResidency(ctx, a, agent, facts, "record child "+string(id), "record child "+string(id)); err != nil {
		return "", none, err
	}
	s.beginSession(a)
	if err := s.announce(a, agent, msg); err != nil {
		return "", none, err
	}
	return id, msg.ID, nil
}

// checkContinuable runs the checks that need neither a child id nor the
// tree: admission, persistence, a host, a provider that can prepare a
// continuable child, a label and a sane depth limit. It returns the
// parent's id and the provider's preparer.
func (s *Service) checkContinuable(ctx context.Context, spec ContinuableSpec) (jobs.SessionID, ContinuablePreparer, error) {
	if err := cancelled(ctx, "start a continuable child"); err != nil {
		return "", nil, err
	}
	if spec.Parent == nil {
		return "", nil, newError(subagents.ErrorCodeUnauthorized, nil, "a continuable child needs the exact live parent agent")
	}
	parentID := spec.Parent.ID()
	s.mu.Lock()
	err := s.admitting(parentID)
	s.mu.Unlock()
	if err != nil {
		return "", nil, err
	}
	if s.store == nil {
		return "", nil, newError(subagents.ErrorCodePersistenceUnavailable, nil, "continuable children require session persistence")
	}
	if s.host == nil {
		return "", nil, newError(subagents.ErrorCodeContinuationUnavailable, nil, "continuation is unavailable: no agent host")
	}
	p, err := s.provider(spec.Provider)
	if err != nil {
		return "", nil, err
	}
	prep, ok := p.(ContinuablePreparer)
	if !ok {
		return "", nil, newError(subagents.ErrorCodeUnsupportedCapability, nil,
			"provider %q does not support continuable children (no PrepareContinuable capability)", spec.Provider)
	}
	if spec.Label == "" {
		return "", nil, fmt.Errorf("subagent: a continuable child needs a label")
	}
	if spec.MaxDepth != nil && *spec.MaxDepth < 0 {
		return "", nil, fmt.Errorf("subagent: maxDepth must be a non-negative integer, not %d", *spec.MaxDepth)
	}
	return parentID, prep, nil
}

// placeChild picks the child's id (the requested one or a fresh one) and
// its delegation depth under the parent, refusing an id that is live, a
// parent that is not the exact live agent and a depth over the limit.
func (s *Service) placeChild(spec ContinuableSpec, parentID jobs.SessionID) (jobs.SessionID, int, error) {
	id := spec.ChildID
	if id == "" {
		id = s.newChild()
	}
	s.mu.Lock()
	parentAct, live := s.live(spec.Parent)
	depth := 1
	if parentAct != nil {
		depth = parentAct.header.DelegationDepth + 1
	}
	_, dupChild := s.children[id]
	_, dupRoot := s.roots[id]
	s.mu.Unlock()
	if dupChild || dupRoot || id == parentID {
		return "", 0, newError(subagents.ErrorCodeDuplicateChild, nil, "child %s is live", id)
	}
	if !live {
		return "", 0, newError(subagents.ErrorCodeUnauthorized, nil, "starting child %s needs the exact live parent agent %s", id, parentID)
	}
	if spec.MaxDepth != nil && depth > *spec.MaxDepth {
		return "", 0, &DepthError{Depth: depth, Max: *spec.MaxDepth}
	}
	return id, depth, nil
}

// continuableDescriptor is the descriptor a continuable child is created
// with, and resumed from.
func continuableDescriptor(spec ContinuableSpec) subagents.Descriptor {
	desc := subagents.Descriptor{
		Version: 2, Mode: subagents.DescriptorModeContinuable, Provider: spec.Provider, Label: spec.Label,
		Persona: spec.Persona, ToolFilter: spec.ToolFilter,
	}
	if o := spec.AgentOptions; o != nil {
		desc.AgentProvider, desc.AgentModel = o.Provider, o.Model
	}
	return desc
}

// refuseHistory refuses a child id whose stream already holds records; the
// caller holds the child lock.
func (s *Service) refuseHistory(ctx context.Context, id jobs.SessionID) error {
	for _, err := range s.store.ReadStream(ctx, journal.Stream(id), 0) {
		if err != nil {
			if c := cancelled(ctx, "start child "+string(id)); c != nil {
				return c
			}
			return fmt.Errorf("subagent: look for the history of child %s: %w", id, err)
		}
		return newError(subagents.ErrorCodeDuplicateChild, nil, "child %s already has history", id)
	}
	return nil
}

// newResidency is a fresh activation of child id with a new run and an
// open inbox for it.
func (s *Service) newResidency(id jobs.SessionID, header subagents.ChildHeader, desc subagents.Descriptor) *activation {
	a := newActivation(id, header, desc)
	a.run = subagents.NewRunID()
	a.inbox = &inbox{s: s, a: a, run: a.run}
	return a
}

// materialize asks the host for the installed activation's agent. On
// failure the activation is rolled back and the error names what was being
// done (verb "materialize" or "resume").
func (s *Service) materialize(ctx context.Context, a *activation, child Child, verb string) (Agent, error) {
	agent, err := s.host.Materialize(ctx, child, a.inbox)
	if err == nil {
		err = checkPointer(agent)
	}
	if err != nil {
		s.rollback(a, agent, nil)
		if c := cancelled(ctx, verb+" child "+string(a.id)); c != nil {
			return nil, c
		}
		return nil, fmt.Errorf("subagent: %s child %s: %w", verb, a.id, err)
	}
	return agent, nil
}

// creationFacts are the facts one append writes for a new child: created,
// one seeded per seed event, residency started and the prompt accepted.
func creationFacts(a *activation, seed []json.RawMessage, msg subagents.Message, at int64) []factEntry {
	facts := []factEntry{{"created", &subagents.SubagentCreated{Child: a.id, At: at, Header: a.header, Descriptor: a.desc}}}
	for i, ev := range seed {
		facts = append(facts, factEntry{fmt.Sprintf("seed/%d", i), &subagents.SubagentSeeded{Index: i, Event: ev}})
	}
	return append(facts,
		factEntry{"started/" + a.run.String(), &subagents.SubagentResidencyStarted{Run: a.run, At: at}},
		factEntry{"accepted/" + msg.ID.String(), &subagents.SubagentMessageAccepted{Message: msg.ID, At: at, Source: msg.Source, Content: msg.Content, Wake: true}},
	)
}

// recordResidency appends the facts that open an admitted residency. On
// failure it releases the admission's accept, rolls the activation back and
// returns the cancellation (named cancelOp) or the append's error (named
// what).
func (s *Service) recordResidency(ctx context.Context, a *activation, agent Agent, facts []factEntry, cancelOp, what string) error {
	if err := s.appendFacts(ctx, a.stream, facts...); err != nil {
		a.accepts.Done()
		s.rollback(a, agent, nil)
		if c := cancelled(ctx, cancelOp); c != nil {
			return c
		}
		return fmt.Errorf("subagent: %s: %w", what, err)
	}
	return nil
}

// announce delivers a new child's prompt, after which the child is
// announced and watched. A prompt the agent does not take rolls the child
// back, closing its recorded residency.
func (s *Service) announce(a *activation, agent Agent, msg subagents.Message) error {
	if err := agent.Deliver(msg, true); err != nil {
		a.accepts.Done()
		s.rollback(a, agent, &msg)
		return fmt.Errorf("subagent: deliver the prompt to child %s: %w", a.id, err)
	}
	s.mu.Lock()
	a.announced = true
	s.mu.Unlock()
	a.accepts.Done()
	s.watchers.Add(1)
	go s.watch(a, agent)
	return nil
}

// install enters a materializing activation in the tree, so that its id is
// taken and Close waits for it. The caller calls s.inflight.Done once the
// materialization is over.
func (s *Service) install(ctx context.Context, a *activation, parent Agent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.goingOn(ctx, a, parent); err != nil {
		return err
	}
	if _, dup := s.children[a.id]; dup {
		return newError(subagents.ErrorCodeDuplicateChild, nil, "child %s is live", a.id)
	}
	if _, ok := s.live(parent); !ok {
		return newError(subagents.ErrorCodeUnauthorized, nil, "child %s needs the exact live parent agent %s", a.id, parent.ID())
	}
	s.children[a.id] = a
	s.inflight.Add(1)
	return nil
}

// admit makes a materialized activation resident under the exact live
// parent and reserves msg in its inbox, in one critical section.
func (s *Service) admit(ctx context.Context, a *activation, agent Agent, parent Agent, msg subagents.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.goingOn(ctx, a, parent); err != nil {
		return err
	}
	parentAct, live := s.live(parent)
	if !live || a.header.ParentSession != parent.ID() {
		if parentAct != nil && parentAct.state == stateDisposing {
			return newError(subagents.ErrorCodeActivationClosing, nil, "the parent %s of child %s is being disposed", parent.ID(), a.id)
		}
		return newError(subagents.ErrorCodeUnauthorized, nil, "child %s needs the exact live parent agent %s", a.id, a.header.ParentSession)
	}
	a.parent = parentAct
	a.agent = agent
	a.state = stateResident
	if parentAct != nil {
		parentAct.owned[a.id] = a
	}
	return a.reserve(msg, true)
}

// goingOn refuses to go on with a's start or resume once ctx ended or
// parent's subtree stopped admitting. s.mu must be held.
func (s *Service) goingOn(ctx context.Context, a *activation, parent Agent) error {
	if err := cancelled(ctx, "start child "+string(a.id)); err != nil {
		return err
	}
	return s.admitting(parent.ID())
}

// rollback undoes a creation or resume that failed before acceptance: the
// activation leaves the tree and its agent, if any, is disposed. When
// unaccepted is set its accepted fact was written, so a discarded and an
// ended fact close the residency on the stream.
func (s *Service) rollback(a *activation, agent Agent, unaccepted *subagents.Message) {
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
	began := a.unregister != nil
	s.mu.Unlock()
	if agent != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.bound)
		agent.Cancel(errors.New("subagent: creation rolled back"), false)
		if err := agent.Dispose(ctx); err != nil {
			s.log.Warn("subagent: dispose a rolled-back child", "child", a.id, "err", err)
		}
		cancel()
	}
	if unaccepted != nil {
		err := s.appendFacts(context.Background(), a.stream,
			factEntry{"discarded/" + unaccepted.ID.String(), &subagents.SubagentMessageDiscarded{Message: unaccepted.ID, At: s.now().UnixMilli(), Why: "rolled back: the agent did not take it"}},
			factEntry{"ended/" + a.run.String(), &subagents.SubagentResidencyEnded{Run: a.run, At: s.now().UnixMilli(), StopReason: subagents.StopReasonError}})
		if err != nil {
			s.log.Warn("subagent: record a rolled-back child", "child", a.id, "err", err)
		}
	}
	if began {
		s.finalFlush(context.Background(), a)
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
