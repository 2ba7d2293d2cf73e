package jobhttp_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

// An agentTree is a scripted tree of continuable children on a journal:
// under root alice, a planner that starts a researcher (which reports and
// settles) and a coder (whose turn runs until the test releases it), so the
// planner waits; under root bob, one child of his own.
type agentTree struct {
	svc     *subagent.Service
	store   journal.Store
	tree    *jobhttp.JournalSubagents
	release chan struct{} // closing it ends the coder's turn
}

func say(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

func newAgentTree(t *testing.T) *agentTree {
	t.Helper()
	ctx := context.Background()
	store, err := journal.Open(filepath.Join(t.TempDir(), "agents.journal"))
	if err != nil {
		t.Fatal(err)
	}
	at := &agentTree{store: store, release: make(chan struct{})}
	host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		var self *subagent.QueueAgent
		self = subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			return at.turn(ctx, self, c, msgs)
		})
		return self, nil
	})
	at.svc = subagent.New(subagent.WithStore(store), subagent.WithHost(host))
	at.svc.RegisterProvider(subagent.Continuable("planner", nil))
	at.svc.RegisterProvider(subagent.Continuable("researcher", nil))
	at.svc.RegisterProvider(subagent.Continuable("coder", nil))
	at.tree = jobhttp.NewJournalSubagents(store, at.svc)
	t.Cleanup(func() {
		select {
		case <-at.release:
		default:
			close(at.release)
		}
		at.svc.Close(ctx)
		store.Close(ctx)
	})
	for _, root := range []struct {
		id       jobs.SessionID
		child    jobs.SessionID
		provider string
	}{{"alice", "planner", "planner"}, {"bob", "bobs-helper", "researcher"}} {
		lead := subagent.NewQueueAgent(root.id, nil, func(context.Context, []subagents.Message) (string, error) { return "", nil })
		if _, err := at.svc.Attach(lead); err != nil {
			t.Fatal(err)
		}
		if _, _, err := at.svc.StartContinuable(ctx, subagent.ContinuableSpec{
			Provider: root.provider, Label: "plan the release of " + string(root.id), ChildID: root.child, Parent: lead, Prompt: say("plan it"),
		}); err != nil {
			t.Fatal(err)
		}
	}
	return at
}

// turn is every child's model: the planner delegates, the researcher
// reports and finishes, the coder works until released.
func (at *agentTree) turn(ctx context.Context, self *subagent.QueueAgent, c subagent.Child, msgs []subagents.Message) (string, error) {
	switch c.Descriptor.Provider {
	case "planner":
		if msgs[0].Source.Kind != subagents.SourceKindUser {
			return "noted", nil
		}
		for _, p := range []string{"researcher", "coder"} {
			if _, _, err := at.svc.StartContinuable(ctx, subagent.ContinuableSpec{
				Provider: p, Label: p + " for the release", ChildID: c.ID + "-" + jobs.SessionID(p), Parent: self, Prompt: say("go, " + p),
			}); err != nil {
				return "", err
			}
		}
		return "delegated", nil
	case "coder":
		select {
		case <-at.release:
		case <-ctx.Done():
		}
		return "coded", nil
	default:
		if _, err := at.svc.ReportFrom(ctx, self, say("found \x1b[1mthree\x1b[0m flaky tests"), subagent.ReportOptions{Delivery: subagents.DeliveryQuiet}); err != nil {
			return "", err
		}
		return "researched", nil
	}
}

// waitFor polls the tree of session until ok holds, or fails the test.
func (at *agentTree) waitFor(t *testing.T, session jobs.SessionID, ok func(map[jobs.SessionID]wire.SubagentNode) bool) []wire.SubagentNode {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		nodes, err := at.tree.Tree(context.Background(), session)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[jobs.SessionID]wire.SubagentNode{}
		for _, n := range nodes {
			byID[n.ID] = n
		}
		if ok(byID) {
			return nodes
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree of %s never got there: %+v", session, nodes)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settledTree waits for alice's tree as the script leaves it: the
// researcher settled, the coder running, the planner waiting.
func (at *agentTree) settledTree(t *testing.T) []wire.SubagentNode {
	t.Helper()
	return at.waitFor(t, "alice", func(m map[jobs.SessionID]wire.SubagentNode) bool {
		return m["planner-researcher"].State == wire.SubagentStateSettled &&
			m["planner-coder"].State == wire.SubagentStateRunning &&
			m["planner"].State == wire.SubagentStateWaiting
	})
}
