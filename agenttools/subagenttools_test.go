package agenttools_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// A subFixture is a subagent service whose children are QueueAgents whose
// turns the test scripts, with an attached root "lead" that records what
// it is sent, and the tools over both.
type subFixture struct {
	*fixture
	svc  *subagent.Service
	lead *subagent.QueueAgent

	mu       sync.Mutex
	turn     func(self *subagent.QueueAgent, msgs []subagents.Message) (string, error)
	received chan subagents.Message // what lead was delivered
	childGot chan subagents.Message // what children were delivered
}

func newSubFixture(t *testing.T, providers ...string) *subFixture {
	t.Helper()
	sf := &subFixture{received: make(chan subagents.Message, 16), childGot: make(chan subagents.Message, 16)}
	host := subagent.HostFunc(func(_ context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		var self *subagent.QueueAgent
		self = subagent.NewQueueAgent(c.ID, in, func(_ context.Context, msgs []subagents.Message) (string, error) {
			for _, m := range msgs {
				sf.childGot <- m
			}
			sf.mu.Lock()
			turn := sf.turn
			sf.mu.Unlock()
			if turn == nil {
				return "done", nil
			}
			return turn(self, msgs)
		})
		return self, nil
	})
	sf.svc = subagent.New(subagent.WithStore(subagenttest.NewMemStore()), subagent.WithHost(host))
	t.Cleanup(func() { _ = sf.svc.Close(context.Background()) })
	if len(providers) == 0 {
		providers = []string{"researcher"}
	}
	for _, p := range providers {
		if _, err := sf.svc.RegisterProvider(subagent.Continuable(p, nil)); err != nil {
			t.Fatal(err)
		}
	}
	sf.lead = subagent.NewQueueAgent("lead", nil, func(_ context.Context, msgs []subagents.Message) (string, error) {
		for _, m := range msgs {
			sf.received <- m
		}
		return "", nil
	})
	detach, err := sf.svc.Attach(sf.lead)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(detach)
	sf.fixture = newFixture(t, agenttools.WithSubagents(sf.svc))
	return sf
}

func (sf *subFixture) setTurn(turn func(self *subagent.QueueAgent, msgs []subagents.Message) (string, error)) {
	sf.mu.Lock()
	sf.turn = turn
	sf.mu.Unlock()
}

// next returns the next message from ch, or fails the test after a while.
func next(t *testing.T, ch <-chan subagents.Message) subagents.Message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message came")
		return subagents.Message{}
	}
}

func TestSubagentStartStartsAChildOfTheCaller(t *testing.T) {
	sf := newSubFixture(t)
	lead := sf.tools.ForAgent(sf.lead)
	res := decode[tools.SubagentStartResult](t, call(t, lead, "subagent_start", map[string]any{"label": "find the cause", "prompt": "why is the test flaky?"}))
	got := next(t, sf.childGot)
	if got.ID != res.MessageID || got.Content[0].Text != "why is the test flaky?" {
		t.Errorf("the child got %+v, want the prompt as message %s", got, res.MessageID)
	}
	settled := next(t, sf.received)
	if settled.Source.Kind != subagents.SourceKindSubagentSettled || settled.Source.Sender != res.ChildID {
		t.Errorf("lead got %+v, want the settlement notice of %s", settled.Source, res.ChildID)
	}
	list := decode[tools.JobListResult](t, call(t, lead, "job_list", `{}`))
	want := []tools.SubagentEntry{{ID: res.ChildID, Label: "find the cause", Provider: "researcher", Live: false}}
	if len(list.Subagents) != 1 || list.Subagents[0] != want[0] {
		t.Errorf("job_list subagents = %+v, want %+v", list.Subagents, want)
	}
}

func TestSubagentStartRefusals(t *testing.T) {
	tests := []struct {
		name      string
		providers []string
		args      map[string]any
		code      tools.ErrorCode
		message   string
	}{
		{"a provider must be named when there are several", []string{"fork", "researcher"},
			map[string]any{"label": "x", "prompt": "y"}, tools.ErrorCodeInvalidArguments, "Say which provider to use: one of fork, researcher."},
		{"an unknown provider names those there are", nil,
			map[string]any{"label": "x", "prompt": "y", "provider": "wizard"}, tools.ErrorCodeNoProvider, `There is no subagent provider "wizard". The providers are: researcher.`},
		{"an empty prompt", nil,
			map[string]any{"label": "x", "prompt": "  "}, tools.ErrorCodeInvalidArguments, "The prompt is empty"},
		{"an empty label", nil,
			map[string]any{"label": "", "prompt": "y"}, tools.ErrorCodeInvalidArguments, "The request is incomplete: a subagent needs a label and a prompt."},
		{"a missing label", nil,
			map[string]any{"prompt": "y"}, tools.ErrorCodeInvalidArguments, `subagent_start needs the argument "label".`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sf := newSubFixture(t, tt.providers...)
			e := callErr(t, sf.tools.ForAgent(sf.lead), "subagent_start", tt.args)
			if e.Code != tt.code || !strings.HasPrefix(e.Message, tt.message) {
				t.Errorf("error = %s: %q, want %s: %q", e.Code, e.Message, tt.code, tt.message)
			}
		})
	}
}

func TestSendMessageReachesTheCallersChildOnly(t *testing.T) {
	sf := newSubFixture(t)
	lead := sf.tools.ForAgent(sf.lead)
	child := decode[tools.SubagentStartResult](t, call(t, lead, "subagent_start", map[string]any{"label": "l", "prompt": "p"})).ChildID
	next(t, sf.childGot)
	next(t, sf.received) // it settled

	res := decode[tools.SendMessageResult](t, call(t, lead, "send_message", map[string]any{"to": child, "message": "now fix it"}))
	got := next(t, sf.childGot) // resumed cold to read it
	if res.To != child || got.ID != res.MessageID || got.Content[0].Text != "now fix it" {
		t.Errorf("send_message = %+v and the child got %+v", res, got)
	}
	if got.Source != (subagents.MessageSource{Kind: subagents.SourceKindCoordinator, Sender: "lead"}) {
		t.Errorf("source = %+v, want a coordinator relay from lead", got.Source)
	}

	other := subagent.NewQueueAgent("other", nil, func(context.Context, []subagents.Message) (string, error) { return "", nil })
	detach, err := sf.svc.Attach(other)
	if err != nil {
		t.Fatal(err)
	}
	defer detach()
	foreign := callErr(t, sf.tools.ForAgent(other), "send_message", map[string]any{"to": child, "message": "hi"})
	unknown := callErr(t, sf.tools.ForAgent(other), "send_message", map[string]any{"to": "nobody", "message": "hi"})
	if foreign.Code != tools.ErrorCodeUnauthorized || unknown.Code != tools.ErrorCodeUnauthorized {
		t.Errorf("codes = %s, %s, want unauthorized for another's child and for none", foreign.Code, unknown.Code)
	}
	if strings.ReplaceAll(foreign.Message, string(child), "X") != strings.ReplaceAll(unknown.Message, "nobody", "X") {
		t.Errorf("another's child reads %q, no child %q: they must say the same", foreign.Message, unknown.Message)
	}
	if e := callErr(t, lead, "send_message", map[string]any{"to": child, "message": ""}); e.Code != tools.ErrorCodeInvalidArguments {
		t.Errorf("an empty message: %v, want invalidArguments", e)
	}
}

func TestReportGoesOneEdgeUp(t *testing.T) {
	sf := newSubFixture(t)
	results := make(chan string, 4)
	sf.setTurn(func(self *subagent.QueueAgent, _ []subagents.Message) (string, error) {
		out, err := sf.tools.ForAgent(self).Call(context.Background(), "report", argsJSON(t, map[string]any{"message": "found it", "delivery": "quiet"}))
		if err != nil {
			results <- "error: " + err.Error()
		} else {
			results <- string(out)
		}
		return "done", nil
	})
	lead := sf.tools.ForAgent(sf.lead)
	child := decode[tools.SubagentStartResult](t, call(t, lead, "subagent_start", map[string]any{"label": "l", "prompt": "p"})).ChildID
	r := <-results
	if !strings.HasPrefix(r, `{"messageId":"`) {
		t.Fatalf("report = %s, want a message id", r)
	}
	got := next(t, sf.received)
	if got.Source.Kind != subagents.SourceKindSubagentReport || got.Source.Sender != child || !strings.HasSuffix(got.Content[0].Text, "found it") {
		t.Errorf("lead got %+v, want the report of %s", got, child)
	}

	if e := callErr(t, lead, "report", map[string]any{"message": "hello"}); e.Code != tools.ErrorCodeUnauthorized || !strings.Contains(e.Message, "report is for subagents") {
		t.Errorf("a root's report: %v, want unauthorized, for subagents", e)
	}
	if e := callErr(t, lead, "report", map[string]any{"message": "x", "delivery": "loud"}); e.Code != tools.ErrorCodeInvalidArguments || e.Message != `The argument "delivery" of report must be one of quiet, nextStep.` {
		t.Errorf("a bad delivery: %v", e)
	}
}

func TestSubagentToolsAreOfferedOnlyToAnAgentOfAService(t *testing.T) {
	sf := newSubFixture(t)
	names := func(s *agenttools.Toolset) (out []string) {
		for _, tool := range s.Tools() {
			out = append(out, tool.Name)
		}
		return out
	}
	all := "job_list job_output job_wait job_kill subagent_start send_message report"
	if got := strings.Join(names(sf.tools.ForAgent(sf.lead)), " "); got != all {
		t.Errorf("an agent's tools = %s, want %s", got, all)
	}
	if got := strings.Join(names(sf.tools.For("lead")), " "); got != "job_list job_output job_wait job_kill" {
		t.Errorf("a session's tools = %s, want the job tools", got)
	}
	plain := newFixture(t)
	if got := strings.Join(names(plain.tools.ForAgent(sf.lead)), " "); got != "job_list job_output job_wait job_kill" {
		t.Errorf("without a service, an agent's tools = %s, want the job tools", got)
	}
	if e := callErr(t, sf.tools.For("lead"), "send_message", map[string]any{"to": "x", "message": "y"}); e.Code != tools.ErrorCodeUnknownTool {
		t.Errorf("send_message without an agent: %v, want unknownTool", e)
	}
	if snap := sf.tools.ForAgent(sf.lead).Caller(); snap.Session != jobs.SessionID("lead") {
		t.Errorf("an agent's session = %q, want its id", snap.Session)
	}
}
