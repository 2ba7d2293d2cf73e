package agenttools

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/subagent"
)

// children remembers the subagents each parent session started through
// subagent_start, so that job_list can name them after they settled (the
// manager lists only live children) and a notice cut short can point there.
// A parent's list ends with its session (Registry.DisposeOwner); a
// restarted process starts it empty.
type children struct {
	mu sync.Mutex
	m  map[jobs.SessionID][]childEntry
}

type childEntry struct {
	id              jobs.SessionID
	label, provider string
}

func (cs *children) add(parent jobs.SessionID, c childEntry) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[jobs.SessionID][]childEntry{}
	}
	cs.m[parent] = append(cs.m[parent], c)
}

// drop forgets the subagents of parent, whose session ended.
func (cs *children) drop(parent jobs.SessionID) {
	cs.mu.Lock()
	delete(cs.m, parent)
	cs.mu.Unlock()
}

func (cs *children) of(parent jobs.SessionID) []childEntry {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return slices.Clone(cs.m[parent])
}

// subagentEntries lists the subagents of the caller: those it started here,
// oldest first, then live children started otherwise.
func (s *Toolset) subagentEntries() []tools.SubagentEntry {
	if s.t.svc == nil || s.caller.Agent == nil {
		return nil
	}
	live := s.t.svc.Children(s.caller.Session)
	var out []tools.SubagentEntry
	known := map[jobs.SessionID]bool{}
	for _, c := range s.t.children.of(s.caller.Session) {
		known[c.id] = true
		out = append(out, tools.SubagentEntry{ID: c.id, Label: c.label, Provider: c.provider, Live: slices.Contains(live, c.id)})
	}
	for _, id := range live {
		if !known[id] {
			out = append(out, tools.SubagentEntry{ID: id, Live: true})
		}
	}
	return out
}

// knowsChild reports whether child is one the caller started here or a
// live child of the caller.
func (s *Toolset) knowsChild(child jobs.SessionID) bool {
	for _, c := range s.t.children.of(s.caller.Session) {
		if c.id == child {
			return true
		}
	}
	return slices.Contains(s.t.svc.Children(s.caller.Session), child)
}

// text is a model's message as content.
func text(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

// subErr maps an error of the manager about child; what is not the
// manager's is internal, logged.
func (s *Toolset) subErr(tool string, err error, child jobs.SessionID) *Error {
	if e, ok := subagentError(err, tool, child); ok {
		return e
	}
	s.t.log.Error("agenttools: subagent tool failed", "tool", tool, "child", child, "session", s.caller.Session, "err", err)
	return internal()
}

// sendMessage is send_message: a follow-up from the calling agent to a
// child it started, relayed as a coordinator's message.
func (s *Toolset) sendMessage(ctx context.Context, in tools.SendMessage) (tools.SendMessageResult, error) {
	if strings.TrimSpace(in.Message) == "" {
		return tools.SendMessageResult{}, fail(tools.ErrorCodeInvalidArguments, "The message is empty; say what the subagent should do.")
	}
	src := subagents.MessageSource{Kind: subagents.SourceKindCoordinator, Sender: s.caller.Session}
	id, err := s.t.svc.Followup(ctx, s.caller.Agent, in.To, text(in.Message), subagent.FollowupOptions{Source: src})
	if errors.Is(err, subagent.ErrNotResumable) && !s.knowsChild(in.To) {
		// A child with no history and another parent's child read the
		// same, so that a model cannot probe for other sessions' children.
		err = subagent.ErrUnauthorized
	}
	if err != nil {
		return tools.SendMessageResult{}, s.subErr("send_message", err, in.To)
	}
	return tools.SendMessageResult{To: in.To, MessageID: id}, nil
}

// report is report: a message from the calling agent to its direct parent.
func (s *Toolset) report(ctx context.Context, in tools.Report) (tools.ReportResult, error) {
	if strings.TrimSpace(in.Message) == "" {
		return tools.ReportResult{}, fail(tools.ErrorCodeInvalidArguments, "The report is empty; say what you found.")
	}
	id, err := s.t.svc.ReportFrom(ctx, s.caller.Agent, text(in.Message), subagent.ReportOptions{Delivery: in.Delivery})
	if err != nil {
		return tools.ReportResult{}, s.subErr("report", err, "")
	}
	return tools.ReportResult{MessageID: id}, nil
}

// subagentStart is subagent_start: a continuable child of the calling
// agent, remembered for job_list.
func (s *Toolset) subagentStart(ctx context.Context, in tools.SubagentStart) (tools.SubagentStartResult, error) {
	provider := in.Provider
	if providers := s.t.svc.Providers(); provider == "" {
		if len(providers) != 1 {
			return tools.SubagentStartResult{}, fail(tools.ErrorCodeInvalidArguments, "Say which provider to use: one of %s.", listOrNone(providers))
		}
		provider = providers[0]
	} else if !slices.Contains(providers, provider) {
		return tools.SubagentStartResult{}, fail(tools.ErrorCodeNoProvider, "There is no subagent provider %q. The providers are: %s.", cutUTF8(provider, 64), listOrNone(providers))
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tools.SubagentStartResult{}, fail(tools.ErrorCodeInvalidArguments, "The prompt is empty; say what the subagent should do.")
	}
	child, msg, err := s.t.svc.StartContinuable(ctx, subagent.ContinuableSpec{
		Provider: provider,
		Label:    in.Label,
		Parent:   s.caller.Agent,
		Prompt:   text(in.Prompt),
		Persona:  in.Persona,
	})
	if err != nil {
		return tools.SubagentStartResult{}, s.subErr("subagent_start", err, "")
	}
	s.t.children.add(s.caller.Session, childEntry{id: child, label: in.Label, provider: provider})
	return tools.SubagentStartResult{ChildID: child, MessageID: msg}, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none (this runtime offers no subagents)"
	}
	return strings.Join(names, ", ")
}
