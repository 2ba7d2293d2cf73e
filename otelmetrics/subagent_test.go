package otelmetrics_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/otelmetrics"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

func TestSubagentMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reader, provider := newMeter(t)
		obs, err := otelmetrics.NewSubagentObserver(provider.Meter("test"))
		if err != nil {
			t.Fatal(err)
		}
		store := subagenttest.NewMemStore()
		host := subagenttest.NewHost()
		clock := time.Now()
		svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host), subagent.WithObserver(obs),
			subagent.WithClock(func() time.Time { clock = clock.Add(time.Millisecond); return clock }))
		defer svc.Close(context.Background())
		svc.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"})
		root := subagenttest.NewAgent("root")
		svc.Attach(root)
		ctx := context.Background()
		for _, id := range []jobs.SessionID{"c1", "c2"} {
			if _, _, err := svc.StartContinuable(ctx, subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: id, Parent: root, Prompt: []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: "x"}}}); err != nil {
				t.Fatal(err)
			}
		}
		if got := collect(t, reader).sum(t, "jobgen.subagents.resident"); got != 2 {
			t.Fatalf("resident %d, want 2", got)
		}
		// c1's prompt waits unclaimed when Close keeps it; the resume redelivers it
		if err := svc.DrainChildren(ctx, root, []jobs.SessionID{"c2"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Close(ctx); err != nil {
			t.Fatal(err)
		}
		svc2 := subagent.New(subagent.WithStore(store), subagent.WithHost(host), subagent.WithObserver(obs),
			subagent.WithClock(func() time.Time { clock = clock.Add(time.Millisecond); return clock }))
		defer svc2.Close(ctx)
		root2 := subagenttest.NewAgent("root")
		svc2.Attach(root2)
		if _, err := svc2.Followup(ctx, root2, "c1", []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: "more"}}, subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		m := collect(t, reader)
		if got := m.sum(t, "jobgen.subagents.resident"); got != 1 {
			t.Errorf("resident %d after two ends and a resume, want 1", got)
		}
		if got := m.sum(t, "jobgen.subagents.resumes"); got != 1 {
			t.Errorf("resumes %d, want 1", got)
		}
		if got := m.sum(t, "jobgen.subagents.redeliveries"); got != 1 {
			t.Errorf("redeliveries %d, want 1 (c1's prompt)", got)
		}
		if p := m.histogram(t, "jobgen.subagents.resume.duration"); p.Count != 1 || p.Sum <= 0 {
			t.Errorf("resume histogram count %d sum %g, want one resume of some time", p.Count, p.Sum)
		}
	})
}

func TestSubagentEventsAllocateNothing(t *testing.T) {
	_, provider := newMeter(t)
	obs, err := otelmetrics.NewSubagentObserver(provider.Meter("test"))
	if err != nil {
		t.Fatal(err)
	}
	child, run, msg := jobs.SessionID("c1"), subagents.NewRunID(), subagents.NewMessageID()
	round := func() {
		obs.ResidencyStarted(child, run, true)
		obs.MessageAccepted(child, msg, true)
		obs.Redelivered(child, msg)
		obs.Resumed(child, time.Millisecond, 10)
		obs.ResidencyEnded(child, run, subagents.StopReasonCompleted)
	}
	round() // the SDK makes its aggregations on first use
	if n := testing.AllocsPerRun(100, round); n != 0 {
		t.Fatalf("%v allocations a round of events, want 0", n)
	}
}
