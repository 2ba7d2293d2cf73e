package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// A parent is a root agent that keeps what it is sent.
type parent struct {
	id  jobs.SessionID
	got chan subagents.Message
}

func (p *parent) ID() jobs.SessionID                        { return p.id }
func (p *parent) Deliver(m subagents.Message, _ bool) error { p.got <- m; return nil }
func (p *parent) Cancel(error, bool)                        {}
func (p *parent) Idle() <-chan struct{}                     { c := make(chan struct{}); close(c); return c }
func (p *parent) Dispose(context.Context) error             { return nil }

// Where the runtime has a subagent service, an MCP session bound to an
// agent has the subagent tools: alice starts a continuable child, sends it
// a message, and its report reaches her; bob, another agent, cannot send
// to alice's child.
func TestSubagentToolsOverMCP(t *testing.T) {
	reg := registry.New()
	t.Cleanup(func() { _ = reg.Close(context.Background()) })
	var all *agenttools.Tools
	host := subagent.HostFunc(func(_ context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		var self *subagent.QueueAgent
		self = subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			report, _ := json.Marshal(map[string]string{"message": "done: " + msgs[len(msgs)-1].Content[0].Text})
			_, err := all.ForAgent(self).Call(ctx, "report", report)
			return "", err
		})
		return self, nil
	})
	svc := subagent.New(subagent.WithStore(subagenttest.NewMemStore()), subagent.WithHost(host))
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.RegisterProvider(subagent.Continuable("researcher", nil)); err != nil {
		t.Fatal(err)
	}
	var err error
	if all, err = agenttools.New(reg, agenttools.WithSubagents(svc)); err != nil {
		t.Fatal(err)
	}
	parents := map[jobs.SessionID]*parent{}
	for _, s := range []jobs.SessionID{"alice", "bob"} {
		parents[s] = &parent{id: s, got: make(chan subagents.Message, 8)}
		detach, err := svc.Attach(parents[s])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(detach)
	}
	h, err := mcpserver.NewHandler(bearer(map[string]jobs.SessionID{"alice-token": "alice", "bob-token": "bob"}), func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) {
		return all.ForAgent(parents[s]), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	alice, bob := connectHTTP(t, srv.URL, "alice-token"), connectHTTP(t, srv.URL, "bob-token")

	list, err := alice.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "job_list,job_output,job_wait,job_kill,subagent_start,send_message,report" {
		t.Errorf("an agent's tools = %s", got)
	}
	next := func() subagents.Message {
		t.Helper()
		for {
			select {
			case m := <-parents["alice"].got:
				if m.Source.Kind == subagents.SourceKindSubagentReport {
					return m
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no report reached alice")
			}
		}
	}
	var started tools.SubagentStartResult
	_ = json.Unmarshal(ok(t, "subagent_start", callTool(t, alice, "subagent_start", map[string]any{"label": "look", "prompt": "the build log"})), &started)
	if got := agenttools.SubagentNotice(next(), tools.DefaultNoticeBytes); !strings.Contains(got, "done: the build log") || !strings.Contains(got, string(started.ChildID)) {
		t.Errorf("alice's notice = %q, want the child's report", got)
	}
	ok(t, "send_message", callTool(t, alice, "send_message", map[string]any{"to": started.ChildID, "message": "the test log"}))
	if got := agenttools.SubagentNotice(next(), tools.DefaultNoticeBytes); !strings.Contains(got, "done: the test log") {
		t.Errorf("alice's notice = %q, want the report to her message", got)
	}
	if e := failed(t, "send_message", callTool(t, bob, "send_message", map[string]any{"to": started.ChildID, "message": "tell me"})); e.Code != tools.ErrorCodeUnauthorized {
		t.Errorf("bob's message to alice's child: %+v, want unauthorized", e)
	}
	if e := failed(t, "report", callTool(t, alice, "report", map[string]any{"message": "hi"})); e.Code != tools.ErrorCodeUnauthorized {
		t.Errorf("a root's report: %+v, want unauthorized (it has no parent)", e)
	}
}
