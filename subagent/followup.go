package subagent

import (
	"context"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// Followup sends content to child on behalf of parent, which must be the
// exact live direct parent, and returns the accepted message's id. A running
// child gets it at its next step, a waiting one is woken, an absent one is
// resumed cold from its stream; a child being disposed is awaited, then
// resumed. A cold resume authorizes against the parent the stream names,
// folds the created fact's descriptor (not continuable: ErrNotResumable, do
// not retry), ends residencies a crash left open, redelivers every accepted
// message nobody claimed or discarded, in acceptance order, then the
// follow-up. No provider takes part. The resume reads the child's last
// checkpoint and only what follows it, so it costs the same however long
// the child's history grew.
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
	err := s.admittingLocked(parent.ID())
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
		if err := s.admittingLocked(parent.ID()); err != nil {
			s.mu.Unlock()
			return none, err
		}
		err := a.reserveLocked(msg, true)
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
	if _, ok := s.liveLocked(parent); !ok {
		return newError(subagents.ErrorCodeUnauthorized, nil, "child %s accepts follow-ups only from the exact live parent agent %s", child, stored)
	}
	return nil
}

// resume opens a residency of an absent child from its stream, with msg
// as its first message; the caller holds the child lock.
func (s *Service) resume(ctx context.Context, parent Agent, child jobs.SessionID, msg subagents.Message) (subagents.MessageID, error) {
	var none subagents.MessageID
	began := s.now()
	h, header, desc, err := s.resumable(ctx, parent, child)
	if err != nil {
		return none, err
	}
	a := s.newActivation(child, header, desc)
	a.cp = h.cp
	err = s.openResidency(ctx, a, opening{
		verb:      "resume",
		parent:    parent,
		child:     Child{ID: child, Run: a.run, Header: header, Descriptor: desc, Seed: h.seed, Resumed: true, store: s.store},
		facts:     resumeFacts(a, h.open, msg, s.now().UnixMilli()),
		redeliver: h.pending(),
		first:     msg,
	})
	if err != nil {
		return none, err
	}
	s.obs.Resumed(child, s.now().Sub(began), h.read)
	return msg.ID, nil
}

// resumable reads child's history and authorizes parent against the parent
// session it names. It returns the history with the header (its delegation
// depth raised to sit under the parent) and the descriptor to resume with.
func (s *Service) resumable(ctx context.Context, parent Agent, child jobs.SessionID) (*history, subagents.ChildHeader, subagents.Descriptor, error) {
	var header subagents.ChildHeader
	var desc subagents.Descriptor
	if s.store == nil {
		return nil, header, desc, newError(subagents.ErrorCodePersistenceUnavailable, nil, "resuming child %s requires session persistence", child)
	}
	if s.host == nil {
		return nil, header, desc, newError(subagents.ErrorCodeContinuationUnavailable, nil, "continuation is unavailable: no agent host")
	}
	h, err := s.readHistory(ctx, child)
	if err != nil {
		return nil, header, desc, err
	}
	s.mu.Lock()
	err = s.authorizeLocked(parent, child, h.header.ParentSession)
	parentAct, _ := s.liveLocked(parent)
	s.mu.Unlock()
	if err != nil {
		return nil, header, desc, err
	}
	desc, err = foldDescriptor(child, h.desc)
	if err != nil {
		return nil, header, desc, err
	}
	header = h.header
	if parentAct != nil && parentAct.header.DelegationDepth+1 > header.DelegationDepth {
		header.DelegationDepth = parentAct.header.DelegationDepth + 1
	}
	return h, header, desc, nil
}

// resumeFacts are the facts one append writes for a resume: an aborted end
// for every residency a crash left open, the new residency's start and the
// follow-up accepted.
func resumeFacts(a *activation, open []subagents.RunID, msg subagents.Message, at int64) []subagents.Fact {
	var facts []subagents.Fact
	for _, run := range open {
		facts = append(facts, &subagents.SubagentResidencyEnded{Run: run, At: at, StopReason: subagents.StopReasonAborted})
	}
	return append(facts,
		&subagents.SubagentResidencyStarted{Run: a.run, At: at, Resumed: true},
		&subagents.SubagentMessageAccepted{Message: msg.ID, At: at, Source: msg.Source, Content: msg.Content, Wake: true},
	)
}
