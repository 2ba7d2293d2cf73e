package subagent_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/subagent"
)

// A recordingObserver writes each event as a line.
type recordingObserver struct {
	mu     sync.Mutex
	events []string
}

func (o *recordingObserver) add(format string, args ...any) {
	o.mu.Lock()
	o.events = append(o.events, fmt.Sprintf(format, args...))
	o.mu.Unlock()
}

func (o *recordingObserver) ResidencyStarted(c jobs.SessionID, _ subagents.RunID, resumed bool) {
	o.add("started %s resumed=%v", c, resumed)
}
func (o *recordingObserver) ResidencyEnded(c jobs.SessionID, _ subagents.RunID, r subagents.StopReason) {
	o.add("ended %s %s", c, r)
}
func (o *recordingObserver) MessageAccepted(c jobs.SessionID, _ subagents.MessageID, wake bool) {
	o.add("accepted %s wake=%v", c, wake)
}
func (o *recordingObserver) MessageClaimed(c jobs.SessionID, _ subagents.MessageID) {
	o.add("claimed %s", c)
}
func (o *recordingObserver) MessageDiscarded(c jobs.SessionID, _ subagents.MessageID, why string) {
	o.add("discarded %s %s", c, why)
}
func (o *recordingObserver) Resumed(c jobs.SessionID, latency time.Duration, facts int) {
	o.add("resumed %s facts=%d", c, facts)
}
func (o *recordingObserver) Redelivered(c jobs.SessionID, _ subagents.MessageID) {
	o.add("redelivered %s", c)
}

func TestTheObserverSeesTheLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &recordingObserver{}
		f := newFixture(t, nil, subagent.WithObserver(obs))
		f.child("c1")
		f.turn("c1", subagents.StopReasonCompleted, "")
		a := f.child("c2")
		a.BeginTurn()
		if _, err := f.svc.Followup(context.Background(), f.root, "c2", text("later"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		first := []string{
			"started c1 resumed=false", "accepted c1 wake=true", "claimed c1", "ended c1 completed",
			"started c2 resumed=false", "accepted c2 wake=true", "claimed c2", "accepted c2 wake=true",
		}
		if !slices.Equal(obs.events, first) {
			t.Fatalf("events\n%q\nwant\n%q", obs.events, first)
		}
		f.store.Flush(context.Background())
		g := f.restart()
		g.svc = subagent.New(subagent.WithStore(g.store), subagent.WithHost(g.host), subagent.WithObserver(obs))
		g.svc.Attach(g.root)
		obs.events = nil
		if _, err := g.svc.Followup(context.Background(), g.root, "c2", text("again"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		g.svc.DrainChildren(context.Background(), g.root, []jobs.SessionID{"c2"})
		g.svc.Close(context.Background())
		want := []string{
			"started c2 resumed=true", "accepted c2 wake=true", "redelivered c2",
			"resumed c2 facts=5",
			"discarded c2 cancelled", "discarded c2 cancelled",
			"ended c2 aborted",
		}
		if !slices.Equal(obs.events, want) {
			t.Fatalf("events\n%q\nwant\n%q", obs.events, want)
		}
	})
}

func TestTheNopObserverAllocatesNothing(t *testing.T) {
	var o subagent.Observer = subagent.NopObserver{}
	child, msg, run := jobs.SessionID("c1"), subagents.NewMessageID(), subagents.NewRunID()
	if n := testing.AllocsPerRun(100, func() {
		o.ResidencyStarted(child, run, true)
		o.MessageAccepted(child, msg, true)
		o.MessageClaimed(child, msg)
		o.MessageDiscarded(child, msg, "drained")
		o.Redelivered(child, msg)
		o.Resumed(child, time.Millisecond, 10)
		o.ResidencyEnded(child, run, subagents.StopReasonCompleted)
	}); n != 0 {
		t.Fatalf("%v allocations a round of events, want 0", n)
	}
}
