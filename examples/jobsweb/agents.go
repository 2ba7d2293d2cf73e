package main

import (
	"context"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

// The demo's subagents: a scripted tree of continuable children under the
// demo session, on the same journal as the jobs, so the page's subagent
// tree has something to show. A planner delegates to a researcher, which
// reports back and settles, and to a coder, which works for a while and
// then settles; the planner waits for it, then settles too. The "model" of
// each is a function of a few lines: subagent.QueueAgent runs the turns.

// agentPace is how long the scripted children take over their turns.
type agentPace struct {
	research, code time.Duration
}

// startAgents starts the demo's subagent manager and its tree under
// session; the manager's Close ends every child.
func startAgents(ctx context.Context, store journal.Store, session jobs.SessionID, pace agentPace) (*subagent.Service, error) {
	var svc *subagent.Service
	host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		var self *subagent.QueueAgent
		self = subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			return scriptedTurn(ctx, svc, self, c, msgs, pace)
		})
		return self, nil
	})
	svc = subagent.New(subagent.WithStore(store), subagent.WithHost(host))
	for _, p := range []string{"planner", "researcher", "coder"} {
		if _, err := svc.RegisterProvider(subagent.Continuable(p, nil)); err != nil {
			return nil, err
		}
	}
	root := subagent.NewQueueAgent(session, nil, func(context.Context, []subagents.Message) (string, error) { return "", nil })
	if _, err := svc.Attach(root); err != nil {
		return nil, err
	}
	if _, _, err := svc.StartContinuable(ctx, subagent.ContinuableSpec{
		Provider: "planner", Label: "plan the v1.2 release", ChildID: "planner", Parent: root,
		Prompt: text("Plan the v1.2 release: find what is flaky, fix it, and tell me when it is done."),
	}); err != nil {
		return nil, err
	}
	return svc, nil
}

// scriptedTurn is every child's model: the planner delegates on its prompt
// and notes what comes back; the researcher reports halfway and finishes;
// the coder works until its time is up.
func scriptedTurn(ctx context.Context, svc *subagent.Service, self *subagent.QueueAgent, c subagent.Child, msgs []subagents.Message, pace agentPace) (string, error) {
	switch c.Descriptor.Provider {
	case "planner":
		if msgs[0].Source.Kind != subagents.SourceKindUser {
			return "noted: " + msgs[0].Source.Summary, nil
		}
		for _, child := range []struct{ provider, label, prompt string }{
			{"researcher", "find the flaky tests", "Which tests failed more than once this week?"},
			{"coder", "fix TestCheckout", "Make TestCheckout deterministic."},
		} {
			if _, _, err := svc.StartContinuable(ctx, subagent.ContinuableSpec{
				Provider: child.provider, Label: child.label, ChildID: c.ID + "-" + jobs.SessionID(child.provider), Parent: self, Prompt: text(child.prompt),
			}); err != nil {
				return "", err
			}
		}
		return "delegated to a researcher and a coder", nil
	case "researcher":
		if err := sleep(ctx, pace.research/2); err != nil {
			return "", err
		}
		if _, err := svc.ReportFrom(ctx, self, text("halfway: \x1b[1m3\x1b[0m flaky tests, \x1b[31mTestCheckout\x1b[0m the worst"), subagent.ReportOptions{Delivery: subagents.DeliveryQuiet}); err != nil {
			return "", err
		}
		return "found 3 flaky tests", sleep(ctx, pace.research/2)
	default:
		return "TestCheckout now waits for its server", sleep(ctx, pace.code)
	}
}

func text(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

// sleep waits d, or fails when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
