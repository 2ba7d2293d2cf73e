package subagent

import (
	"context"
	"errors"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// ReportFrom sends content from child, which must be the exact resident
// agent of a child, exactly one edge up: to its direct parent, which must
// be live. It refuses, in this order: a draining scope (ErrDraining), a
// caller that is not the exact resident child (ErrUnauthorized), a child
// being disposed (ErrActivationClosing), a parent that is not live
// (ErrParentUnavailable: the report was not delivered), and a parent that
// does not take it (ErrParentUnavailable wrapping why). With nextStep the
// report wakes the parent; quiet waits for its next turn. A parent that is
// itself a child gets the report as a fact on its stream.
func (s *Service) ReportFrom(ctx context.Context, child Agent, content []subagents.ContentBlock, opts ReportOptions) (subagents.MessageID, error) {
	var none subagents.MessageID
	if err := cancelled(ctx, "report"); err != nil {
		return none, err
	}
	if child == nil {
		return none, newError(subagents.ErrorCodeUnauthorized, nil, "report: only the exact resident child may report")
	}
	wake := opts.Delivery != subagents.DeliveryQuiet
	id := child.ID()
	msg := subagents.Message{
		ID:      subagents.NewMessageID(),
		Source:  subagents.MessageSource{Kind: subagents.SourceKindSubagentReport, Sender: id},
		Content: reportContent(id, content),
	}
	s.mu.Lock()
	if err := s.admittingLocked(id); err != nil {
		s.mu.Unlock()
		return none, err
	}
	a := s.children[id]
	if a == nil || a.agent != child {
		s.mu.Unlock()
		return none, newError(subagents.ErrorCodeUnauthorized, nil, "report from %s: only the exact resident child may report", id)
	}
	if a.state != stateResident {
		s.mu.Unlock()
		return none, newError(subagents.ErrorCodeActivationClosing, nil, "report from %s: the child is being disposed", id)
	}
	if p := a.parent; p != nil {
		if p.state != stateResident {
			s.mu.Unlock()
			return none, newError(subagents.ErrorCodeParentUnavailable, nil, "report from %s: direct parent is not live; report was not delivered", id)
		}
		err := p.reserveLocked(msg, wake)
		s.mu.Unlock()
		if err != nil {
			return none, err
		}
		if err := s.deliver(ctx, p, msg, wake); err != nil {
			return none, newError(subagents.ErrorCodeParentUnavailable, err, "report from %s: the parent did not take it", id)
		}
		return msg.ID, nil
	}
	root, ok := s.roots[a.header.ParentSession]
	s.mu.Unlock()
	if !ok {
		return none, newError(subagents.ErrorCodeParentUnavailable, nil, "report from %s: direct parent is not live; report was not delivered", id)
	}
	if err := root.deliver(ctx, msg, wake); err != nil {
		return none, newError(subagents.ErrorCodeParentUnavailable, err, "report from %s: the parent did not take it", id)
	}
	return msg.ID, nil
}

// reportContent is a report as the parent receives it: the header line
// "Background subagent <id> reported:" and the report's text, joined by a
// newline in one text block; blocks after the first text block (an image)
// follow it.
func reportContent(id jobs.SessionID, content []subagents.ContentBlock) []subagents.ContentBlock {
	header := "Background subagent " + string(id) + " reported:"
	if len(content) > 0 && content[0].Kind == subagents.ContentKindText {
		first := content[0]
		first.Text = header + "\n" + first.Text
		return append([]subagents.ContentBlock{first}, content[1:]...)
	}
	return append([]subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: header}}, content...)
}

// An Interrupter says who interrupts a child: a user acting for the child's
// parent session (ByUser), or a live ancestor agent (ByAncestor). The zero
// Interrupter is nobody and is refused.
type Interrupter struct {
	kind     interrupterKind
	user     jobs.SessionID
	ancestor Agent
}

type interrupterKind int

const (
	nobody interrupterKind = iota
	byUser
	byAncestor
)

// ByUser is a user interrupting a child of parentSession.
func ByUser(parentSession jobs.SessionID) Interrupter {
	return Interrupter{kind: byUser, user: parentSession}
}

// ByAncestor is the exact live agent of an ancestor of the child.
func ByAncestor(a Agent) Interrupter { return Interrupter{kind: byAncestor, ancestor: a} }

// Interrupt cancels target's current turn and keeps its inbox, residency and
// descendants. A target that is absent or being disposed is left alone. An
// ancestor must be the exact live agent of a strict ancestor
// (ErrUnauthorized: "cannot interrupt itself", "not a live descendant");
// a user's parent session must be the target's direct parent.
func (s *Service) Interrupt(target jobs.SessionID, by Interrupter) error {
	switch {
	case by.kind == nobody:
		return newError(subagents.ErrorCodeUnauthorized, nil, "interrupt %s: no interrupter given (ByUser or ByAncestor)", target)
	case by.kind == byAncestor && by.ancestor == nil:
		return newError(subagents.ErrorCodeUnauthorized, nil, "interrupt %s: no ancestor agent given", target)
	}
	s.mu.Lock()
	a := s.children[target]
	if by.ancestor != nil {
		if by.ancestor.ID() == target {
			s.mu.Unlock()
			return newError(subagents.ErrorCodeUnauthorized, nil, "interrupt %s: an agent cannot interrupt itself", target)
		}
		if _, ok := s.liveLocked(by.ancestor); !ok {
			s.mu.Unlock()
			return newError(subagents.ErrorCodeUnauthorized, nil, "interrupt %s: needs the exact live ancestor agent", target)
		}
	}
	if a == nil || a.state != stateResident {
		s.mu.Unlock()
		return nil
	}
	if by.ancestor != nil {
		anc := by.ancestor.ID()
		found := false
		for x := a; x != nil && !found; x = x.parent {
			found = x.header.ParentSession == anc
		}
		if !found {
			s.mu.Unlock()
			return newError(subagents.ErrorCodeUnauthorized, nil, "interrupt %s: not a live descendant of %s", target, anc)
		}
	} else if by.user != a.header.ParentSession {
		s.mu.Unlock()
		return newError(subagents.ErrorCodeUnauthorized, nil, "interrupt %s: child belongs to another parent session", target)
	}
	for i := range a.pending {
		a.pending[i].kept = a.pending[i].kept || a.pending[i].wake
	}
	agent := a.agent
	s.mu.Unlock()
	agent.Cancel(errors.New("subagent: interrupted"), true)
	return nil
}
