package subagent

import (
	"context"
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
	if err := cancelled(ctx, "start a continuable child"); err != nil {
		return "", none, err
	}
	if spec.Parent == nil {
		return "", none, newError(subagents.ErrorCodeUnauthorized, nil, "a continuable child needs the exact live parent agent")
	}
	parentID := spec.Parent.ID()
	s.mu.Lock()
	err := s.admitting(parentID)
	s.mu.Unlock()
	if err != nil {
		return "", none, err
	}
	if s.store == nil {
		return "", none, newError(subagents.ErrorCodePersistenceUnavailable, nil, "continuable children require session persistence")
	}
	if s.host == nil {
		return "", none, newError(subagents.ErrorCodeContinuationUnavailable, nil, "continuation is unavailable: no agent host")
	}
	p, err := s.provider(spec.Provider)
	if err != nil {
		return "", none, err
	}
	prep, ok := p.(ContinuablePreparer)
	if !ok {
		return "", none, newError(subagents.ErrorCodeUnsupportedCapability, nil,
			"provider %q does not support continuable children (no PrepareContinuable capability)", spec.Provider)
	}
	if spec.Label == "" {
		return "", none, fmt.Errorf("subagent: a continuable child needs a label")
	}
	if spec.MaxDepth != nil && *spec.MaxDepth < 0 {
		return "", none, fmt.Errorf("subagent: maxDepth must be a non-negative integer, not %d", *spec.MaxDepth)
	}
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
		return "", none, newError(subagents.ErrorCodeDuplicateChild, nil, "child %s is live", id)
	}
	if !live {
		return "", none, newError(subagents.ErrorCodeUnauthorized, nil, "starting child %s needs the exact live parent agent %s", id, parentID)
	}
	if spec.MaxDepth != nil && depth > *spec.MaxDepth {
		return "", none, &DepthError{Depth: depth, Max: *spec.MaxDepth}
	}
	desc := subagents.Descriptor{
		Version: 2, Mode: subagents.DescriptorModeContinuable, Provider: spec.Provider, Label: spec.Label,
		Persona: spec.Persona, ToolFilter: spec.ToolFilter,
	}
	if o := spec.AgentOptions; o != nil {
		desc.AgentProvider, desc.AgentModel = o.Provider, o.Model
	}
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
	for _, err := range s.store.ReadStream(ctx, journal.Stream(id), 0) {
		if err != nil {
			if c := cancelled(ctx, "start child "+string(id)); c != nil {
				return "", none, c
			}
			return "", none, fmt.Errorf("subagent: look for the history of child %s: %w", id, err)
		}
		return "", none, newError(subagents.ErrorCodeDuplicateChild, nil, "child %s already has history", id)
	}
	header := subagents.ChildHeader{ParentSession: parentID, Origin: subagents.OriginSubagent, DelegationDepth: depth, SeedLength: len(cs.Seed)}
	a := newActivation(id, header, desc)
	a.run = subagents.NewRunID()
	a.inbox = &inbox{s: s, a: a, run: a.run}
	if err := s.install(ctx, a, spec.Parent); err != nil {
		return "", none, err
	}
	defer s.inflight.Done()
	agent, err := s.host.Materialize(ctx, Child{ID: id, Run: a.run, Header: header, Descriptor: desc, Seed: cs.Seed}, a.inbox)
	if err == nil {
		err = checkPointer(agent)
	}
	if err != nil {
		s.rollback(a, agent, nil)
		if c := cancelled(ctx, "materialize child "+string(id)); c != nil {
			return "", none, c
		}
		return "", none, fmt.Errorf("subagent: materialize child %s: %w", id, err)
	}
	msg := subagents.Message{ID: subagents.NewMessageID(), Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: spec.Prompt}
	if err := s.admit(ctx, a, agent, spec.Parent, msg); err != nil {
		s.rollback(a, agent, nil)
		return "", none, err
	}
	at := s.now().UnixMilli()
	facts := []factEntry{{"created", &subagents.SubagentCreated{Child: id, At: at, Header: header, Descriptor: desc}}}
	for i, ev := range cs.Seed {
		facts = append(facts, factEntry{fmt.Sprintf("seed/%d", i), &subagents.SubagentSeeded{Index: i, Event: ev}})
	}
	facts = append(facts,
		factEntry{"started/" + a.run.String(), &subagents.SubagentResidencyStarted{Run: a.run, At: at}},
		factEntry{"accepted/" + msg.ID.String(), &subagents.SubagentMessageAccepted{Message: msg.ID, At: at, Source: msg.Source, Content: msg.Content, Wake: true}},
	)
	if err := s.appendFacts(ctx, a.stream, facts...); err != nil {
		a.accepts.Done()
		s.rollback(a, agent, nil)
		if c := cancelled(ctx, "record child "+string(id)); c != nil {
			return "", none, c
		}
		return "", none, fmt.Errorf("subagent: record child %s: %w", id, err)
	}
	s.beginSession(a)
	if err := agent.Deliver(msg, true); err != nil {
		a.accepts.Done()
		s.rollback(a, agent, &msg)
		return "", none, fmt.Errorf("subagent: deliver the prompt to child %s: %w", id, err)
	}
	s.mu.Lock()
	a.announced = true
	s.mu.Unlock()
	a.accepts.Done()
	s.watchers.Add(1)
	go s.watch(a, agent)
	return id, msg.ID, nil
}

// install enters a materializing activation in the tree, so that its id is
// taken and Close waits for it. The caller calls s.inflight.Done once the
// materialization is over.
func (s *Service) install(ctx context.Context, a *activation, parent Agent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := cancelled(ctx, "start child "+string(a.id)); err != nil {
		return err
	}
	if err := s.admitting(parent.ID()); err != nil {
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
	if err := cancelled(ctx, "start child "+string(a.id)); err != nil {
		return err
	}
	if err := s.admitting(parent.ID()); err != nil {
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

// Followup sends content to child on behalf of parent, which must be the
// exact live direct parent, and returns the accepted message's id. A running
// child gets it at its next step, a waiting one is woken, an absent one is
// resumed cold from its stream; a child being disposed is awaited, then
// resumed. A cold resume authorizes against the parent the stream names,
// folds the created fact's descriptor (not continuable: ErrNotResumable, do
// not retry), ends residencies a crash left open, redelivers every accepted
// message nobody claimed or discarded, in acceptance order, then the
// follow-up. No provider takes part.
func (s *Service) Followup(ctx context.Context, parent Agent, child jobs.SessionID, content []subagents.ContentBlock, opts FollowupOptions) (subagents.MessageID, error) {
	var none subagents.MessageID
	if err := cancelled(ctx, "follow up child "+string(child)); err != nil {
		return none, err
	}
	if parent == nil {
		return none, newError(subagents.ErrorCodeUnauthorized, nil, "follow up child %s: the exact live parent agent is required", child)
	}
	if opts.Source.Kind == "" {
		opts.Source.Kind = subagents.SourceKindUser
	}
	s.mu.Lock()
	err := s.admitting(parent.ID())
	s.mu.Unlock()
	if err != nil {
		return none, err
	}
	unlock, err := s.lockChild(ctx, child)
	if err != nil {
		return none, err
	}
	defer unlock()
	msg := subagents.Message{ID: subagents.NewMessageID(), Source: opts.Source, Content: content}
	for {
		s.mu.Lock()
		a := s.children[child]
		if a == nil {
			s.mu.Unlock()
			return s.resume(ctx, parent, child, msg)
		}
		if a.state != stateResident {
			done := a.done
			s.mu.Unlock()
			select {
			case <-done:
				continue
			case <-ctx.Done():
				return none, cancelled(ctx, "wait for child "+string(child)+" to be disposed")
			}
		}
		if err := s.authorizeLocked(parent, a.id, a.header.ParentSession); err != nil {
			s.mu.Unlock()
			return none, err
		}
		if err := s.admitting(parent.ID()); err != nil {
			s.mu.Unlock()
			return none, err
		}
		err := a.reserve(msg, true)
		s.mu.Unlock()
		if err != nil {
			return none, err
		}
		if err := s.deliver(ctx, a, msg, true); err != nil {
			return none, err
		}
		return msg.ID, nil
	}
}

// authorizeLocked refuses parent unless it is the exact live agent of the
// session that child's header names as its direct parent.
func (s *Service) authorizeLocked(parent Agent, child, stored jobs.SessionID) error {
	if parent.ID() != stored {
		return newError(subagents.ErrorCodeUnauthorized, nil, "child %s belongs to another parent session", child)
	}
	if _, ok := s.live(parent); !ok {
		return newError(subagents.ErrorCodeUnauthorized, nil, "child %s accepts follow-ups only from the exact live parent agent %s", child, stored)
	}
	return nil
}

// resume materializes an absent child from its stream and delivers msg;
// the caller holds the child lock.
func (s *Service) resume(ctx context.Context, parent Agent, child jobs.SessionID, msg subagents.Message) (subagents.MessageID, error) {
	var none subagents.MessageID
	if s.store == nil {
		return none, newError(subagents.ErrorCodePersistenceUnavailable, nil, "resuming child %s requires session persistence", child)
	}
	if s.host == nil {
		return none, newError(subagents.ErrorCodeContinuationUnavailable, nil, "continuation is unavailable: no agent host")
	}
	h, err := s.readHistory(ctx, child)
	if err != nil {
		return none, err
	}
	s.mu.Lock()
	err = s.authorizeLocked(parent, child, h.created.Header.ParentSession)
	parentAct, _ := s.live(parent)
	s.mu.Unlock()
	if err != nil {
		return none, err
	}
	desc, err := foldDescriptor(child, h.created)
	if err != nil {
		return none, err
	}
	header := h.created.Header
	if parentAct != nil && parentAct.header.DelegationDepth+1 > header.DelegationDepth {
		header.DelegationDepth = parentAct.header.DelegationDepth + 1
	}
	a := newActivation(child, header, desc)
	a.run = subagents.NewRunID()
	a.inbox = &inbox{s: s, a: a, run: a.run}
	a.announced = true
	if err := s.install(ctx, a, parent); err != nil {
		return none, err
	}
	defer s.inflight.Done()
	agent, err := s.host.Materialize(ctx, Child{
		ID: child, Run: a.run, Header: header, Descriptor: desc, Seed: h.seed, Resumed: true, History: h.records,
	}, a.inbox)
	if err == nil {
		err = checkPointer(agent)
	}
	if err != nil {
		s.rollback(a, agent, nil)
		if c := cancelled(ctx, "resume child "+string(child)); c != nil {
			return none, c
		}
		return none, fmt.Errorf("subagent: resume child %s: %w", child, err)
	}
	s.mu.Lock()
	a.pending = append(a.pending, h.pending...)
	s.mu.Unlock()
	if err := s.admit(ctx, a, agent, parent, msg); err != nil {
		s.rollback(a, agent, nil)
		return none, err
	}
	at := s.now().UnixMilli()
	var facts []factEntry
	for _, run := range h.open {
		facts = append(facts, factEntry{"ended/" + run.String(), &subagents.SubagentResidencyEnded{Run: run, At: at, StopReason: subagents.StopReasonAborted}})
	}
	facts = append(facts, factEntry{"started/" + a.run.String(), &subagents.SubagentResidencyStarted{Run: a.run, At: at, Resumed: true}})
	if err := s.appendFacts(ctx, a.stream, facts...); err != nil {
		a.accepts.Done()
		s.rollback(a, agent, nil)
		if c := cancelled(ctx, "resume child "+string(child)); c != nil {
			return none, c
		}
		return none, fmt.Errorf("subagent: record the resume of child %s: %w", child, err)
	}
	s.beginSession(a)
	s.watchers.Add(1)
	go s.watch(a, agent)
	for _, p := range h.pending {
		if err := agent.Deliver(p.msg, p.wake); err != nil {
			s.discard(a, p.msg.ID, "redelivery failed: "+err.Error())
		}
	}
	if err := s.deliver(ctx, a, msg, true); err != nil {
		return none, err
	}
	return msg.ID, nil
}
