package subagent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
)

// StartContinuable creates a durable child of spec.Parent and returns its id
// and the id of its accepted initial message as soon as the child's inbox
// accepted the prompt. It refuses, checking in this order: a cancelled
// context (ErrCancelled); no parent (ErrUnauthorized); admission under the
// parent (ErrDraining); no store (ErrPersistenceUnavailable); no host
// (ErrContinuationUnavailable); the provider (ErrNoProvider) and its
// PrepareContinuable (ErrUnsupportedCapability; the provider's Start is
// never called); no label, or a negative MaxDepth (ErrInvalidRequest); a
// live child id (ErrDuplicateChild); the depth limit (*DepthError); a
// parent being disposed (ErrActivationClosing); a parent that is not the
// exact live agent (ErrUnauthorized). Then the
// provider prepares the seed, and, under the child's lock, an id with
// history is ErrDuplicateChild and the host materializes the child; a
// parent that began to be disposed meanwhile is ErrActivationClosing. The
// created, seeded, residency-started and accepted facts are appended in
// one append. Any failure before that append leaves nothing behind and
// returns no ids.
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
	id, depth, route, err := s.placeChild(spec, parentID)
	if err != nil {
		return "", none, err
	}
	desc := continuableDescriptor(spec, route)
	cs, err := prep.PrepareContinuable(ctx, ContinuableCreateRequest{SessionID: id, ParentSession: parentID, Descriptor: desc})
	if err != nil {
		return "", none, s.failure(ctx, err, "provider %q: prepare child %s", spec.Provider, id)
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
	a := s.newActivation(id, header, desc)
	prompt := subagents.Message{ID: subagents.NewMessageID(), Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: spec.Prompt}
	err = s.openResidency(ctx, a, opening{
		verb:   "create",
		parent: spec.Parent,
		child:  Child{ID: id, Run: a.run, Header: header, Descriptor: desc, Seed: cs.Seed},
		facts:  creationFacts(a, cs.Seed, prompt, s.now().UnixMilli()),
		first:  prompt,
	})
	if err != nil {
		return "", none, err
	}
	return id, prompt.ID, nil
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
	err := s.admittingLocked(parentID)
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
		return "", nil, newError(subagents.ErrorCodeInvalidRequest, nil, "a continuable child needs a label")
	}
	if spec.MaxDepth != nil && *spec.MaxDepth < 0 {
		return "", nil, newError(subagents.ErrorCodeInvalidRequest, nil, "maxDepth must be a non-negative integer, not %d", *spec.MaxDepth)
	}
	return parentID, prep, nil
}

// placeChild picks the child's id (the requested one or a fresh one), its
// delegation depth under the parent and the parent's route, refusing an id
// that is live, a depth over the limit, a parent being disposed and a
// parent that is not the exact live agent.
func (s *Service) placeChild(spec ContinuableSpec, parentID jobs.SessionID) (jobs.SessionID, int, AgentOptions, error) {
	var route AgentOptions
	id := spec.ChildID
	if id == "" {
		id = s.newChild()
	}
	s.mu.Lock()
	parentAct, live := s.liveLocked(spec.Parent)
	depth, closing := 1, false
	if p := s.children[parentID]; p != nil {
		depth = p.header.DelegationDepth + 1
		closing = p.agent == spec.Parent && p.state == stateDisposing
	}
	if parentAct != nil {
		route = AgentOptions{Provider: parentAct.desc.AgentProvider, Model: parentAct.desc.AgentModel}
	}
	_, dupChild := s.children[id]
	_, dupRoot := s.roots[id]
	s.mu.Unlock()
	switch {
	case dupChild || dupRoot || id == parentID:
		return "", 0, route, newError(subagents.ErrorCodeDuplicateChild, nil, "child %s is live", id)
	case spec.MaxDepth != nil && depth > *spec.MaxDepth:
		return "", 0, route, &DepthError{Depth: depth, Max: *spec.MaxDepth}
	case closing:
		return "", 0, route, newError(subagents.ErrorCodeActivationClosing, nil, "starting child %s: the parent %s is being disposed", id, parentID)
	case !live:
		return "", 0, route, newError(subagents.ErrorCodeUnauthorized, nil, "starting child %s needs the exact live parent agent %s", id, parentID)
	}
	if r, ok := spec.Parent.(RoutedAgent); ok && parentAct == nil {
		route = r.Route()
	}
	return id, depth, route, nil
}

// continuableDescriptor is the descriptor a continuable child is created
// with, and resumed from: its route is the spec's AgentOptions, or else the
// parent's route, decided here once.
func continuableDescriptor(spec ContinuableSpec, parentRoute AgentOptions) subagents.Descriptor {
	route := parentRoute
	if spec.AgentOptions != nil {
		route = *spec.AgentOptions
	}
	return subagents.Descriptor{
		Version: DescriptorVersion, Mode: subagents.DescriptorModeContinuable, Provider: spec.Provider, Label: spec.Label,
		AgentProvider: route.Provider, AgentModel: route.Model, Persona: spec.Persona, ToolFilter: spec.ToolFilter,
	}
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

// creationFacts are the facts one append writes for a new child: created,
// one seeded per seed event, residency started and the prompt accepted.
func creationFacts(a *activation, seed []json.RawMessage, msg subagents.Message, at int64) []subagents.Fact {
	facts := []subagents.Fact{&subagents.SubagentCreated{Child: a.id, At: at, Header: a.header, Descriptor: a.desc}}
	for i, ev := range seed {
		facts = append(facts, &subagents.SubagentSeeded{Index: i, Event: ev})
	}
	return append(facts,
		&subagents.SubagentResidencyStarted{Run: a.run, At: at},
		&subagents.SubagentMessageAccepted{Message: msg.ID, At: at, Source: msg.Source, Content: msg.Content, Wake: true},
	)
}
