package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/examples/mcpjobs/generated/shelltools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

// The example's agents: each MCP session is a root agent of a subagent
// service, so it may start continuable children (subagent_start), send
// them messages (send_message), and be told what they report. The
// children run no model: the agent kit's QueueAgent runs a scripted turn
// that reports back through the child's own report tool.

// A root is the agent of one MCP session: the manager delivers its
// children's reports and settlement notices to it, and the notices tool
// hands them to the client, each once.
type root struct {
	id jobs.SessionID

	mu      sync.Mutex
	notices []string
}

func (r *root) ID() jobs.SessionID { return r.id }

// Deliver keeps the message as the notice a model would be told.
func (r *root) Deliver(msg subagents.Message, _ bool) error {
	r.mu.Lock()
	r.notices = append(r.notices, agenttools.SubagentNotice(msg, tools.DefaultNoticeBytes))
	r.mu.Unlock()
	return nil
}

func (r *root) Cancel(error, bool) {}

var idle = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (r *root) Idle() <-chan struct{}         { return idle }
func (r *root) Dispose(context.Context) error { return nil }

// take returns the notices not handed out yet.
func (r *root) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.notices
	r.notices = nil
	return out
}

// agents is the subagent service and the roots of the sessions.
type agents struct {
	svc   *subagent.Service
	tools func() *agenttools.Tools // set once the tools exist; a child's turn calls report through them

	mu    sync.Mutex
	roots map[jobs.SessionID]*root
}

// newAgents returns the service over store, with one provider,
// "researcher", whose children answer each message with a report.
func newAgents(store journal.Store) (*agents, error) {
	a := &agents{roots: map[jobs.SessionID]*root{}}
	host := subagent.HostFunc(func(_ context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		var self *subagent.QueueAgent
		self = subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			return a.turn(ctx, self, msgs)
		})
		return self, nil
	})
	a.svc = subagent.New(subagent.WithStore(store), subagent.WithHost(host))
	if _, err := a.svc.RegisterProvider(subagent.Continuable("researcher", nil)); err != nil {
		return nil, err
	}
	return a, nil
}

// turn is a child's scripted turn: it reports what it was asked, through
// its own report tool, as a model's turn would, and closes.
func (a *agents) turn(ctx context.Context, self *subagent.QueueAgent, msgs []subagents.Message) (string, error) {
	var asked []string
	for _, m := range msgs {
		for _, c := range m.Content {
			if c.Kind == subagents.ContentKindText {
				asked = append(asked, c.Text)
			}
		}
	}
	report, _ := json.Marshal(map[string]string{"message": fmt.Sprintf("I looked into %q: nothing is wrong there.", strings.Join(asked, "; "))})
	if _, err := a.tools().ForAgent(self).Call(ctx, "report", report); err != nil {
		return "", err
	}
	return "Reported.", nil
}

// rootOf returns the session's root agent, attaching it to the service the
// first time.
func (a *agents) rootOf(s jobs.SessionID) (*root, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.roots[s]; r != nil {
		return r, nil
	}
	r := &root{id: s}
	if _, err := a.svc.Attach(r); err != nil {
		return nil, err
	}
	a.roots[s] = r
	return r, nil
}

// noticesTool is the runtime's tool that hands a session the notices its
// subagents sent it: how this runtime tells its client what a model
// runtime would put in the model's next turn. What it says of itself is
// spec/shelltools.yaml's.
func (a *agents) noticesTool() (agenttools.StartTool, error) {
	return agenttools.NewStartTool(shelltools.NoticesTool(), func(_ context.Context, c agenttools.Caller, _ shelltools.Notices) (shelltools.NoticesResult, error) {
		r, err := a.rootOf(c.Session)
		if err != nil {
			return shelltools.NoticesResult{}, err
		}
		return shelltools.NoticesResult{Notices: r.take()}, nil
	})
}
