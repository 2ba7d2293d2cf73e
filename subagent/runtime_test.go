package subagent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// The tests of this file hold the manager to what a runtime needs of it.

func TestAWakingMessageNoTurnTookIsDiscardedAndTheChildStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		a := f.child("c1")
		a.FailTurn(subagents.StopReasonError) // the model call failed before the turn took the prompt
		synctest.Wait()
		if f.svc.State("c1") != subagent.Absent {
			t.Fatalf("child %v after a turn that took nothing, want settled", f.svc.State("c1"))
		}
		fs := f.facts("c1")
		d, ok := fs[len(fs)-3].(subagents.SubagentMessageDiscarded)
		if !ok || d.Why != "no turn took it" {
			t.Fatalf("stream %v, want the prompt discarded before the end", f.types("c1"))
		}
		if end := f.lastEnd("c1"); end.StopReason != subagents.StopReasonAborted {
			t.Fatalf("ended %s, want aborted", end.StopReason)
		}
		if notes := f.root.Delivered(); len(notes) != 1 || !strings.Contains(notes[0].Content[0].Text, "was stopped before it finished") {
			t.Fatalf("root got %+v, want the notice that c1 was stopped", notes)
		}
	})
}

func TestAWakingMessageTheAgentDiscardedItselfIsNotDiscardedTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		a := f.child("c1")
		a.Cancel(errors.New("model down"), false) // the agent drops its queue, reporting each
		synctest.Wait()
		if f.svc.State("c1") != subagent.Absent {
			t.Fatalf("child %v, want settled", f.svc.State("c1"))
		}
		if n := strings.Count(strings.Join(f.types("c1"), " "), discarded); n != 1 {
			t.Fatalf("stream %v: %d discarded facts, want one, the agent's", f.types("c1"), n)
		}
	})
}

func TestAnInterruptedChildKeepsItsWakingMessagesForItsNextTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		a := f.child("c1")
		if err := f.svc.Interrupt("c1", subagent.ByUser("root")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if f.svc.State("c1") != subagent.Running || slices.Contains(f.types("c1"), discarded) {
			t.Fatalf("interrupted child %v, stream %v: want it running with its prompt kept", f.svc.State("c1"), f.types("c1"))
		}
		if got := f.turn("c1", subagents.StopReasonCompleted, ""); len(got) != 1 {
			t.Fatalf("the next turn claimed %d messages, want the kept prompt", len(got))
		}
		_ = a
	})
}

func TestTheClosingMessageIsTheLastNonEmptyOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		a := f.child("c1")
		a.BeginTurn()
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("and then?"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		a.EndTurn(subagents.StopReasonCompleted, "found it: the timer")
		synctest.Wait()
		f.turn("c1", subagents.StopReasonCompleted, "") // a last turn with nothing to say
		if end := f.lastEnd("c1"); end.LastMessage != "found it: the timer" {
			t.Fatalf("closing message %q, want the last non-empty one", end.LastMessage)
		}
		if notes := f.root.Delivered(); len(notes) != 1 || !strings.HasSuffix(notes[0].Content[0].Text, "Its closing message:\nfound it: the timer") {
			t.Fatalf("notice %+v", notes)
		}
	})
}

func TestAReportIsOneTextBlockHeaderFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		pa, ca := f.nest()
		if _, err := f.svc.ReportFrom(context.Background(), ca, text("halfway: the pump"), subagent.ReportOptions{}); err != nil {
			t.Fatal(err)
		}
		q := pa.Queued()
		want := []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: "Background subagent c reported:\nhalfway: the pump"}}
		if len(q) != 1 || !slices.Equal(q[0].Content, want) {
			t.Fatalf("parent got %+v, want %+v", q, want)
		}
	})
}

// routedRoot is a root that knows its model route.
type routedRoot struct {
	*subagenttest.Agent
	route subagent.AgentOptions
}

func (r *routedRoot) Route() subagent.AgentOptions { return r.route }

func TestTheRouteIsDecidedOnceAtCreation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := subagenttest.NewMemStore()
		f := newFixtureWithRoot(t, store, &routedRoot{Agent: subagenttest.NewAgent("root"), route: subagent.AgentOptions{Provider: "anthropic", Model: "m1"}})
		f.start("c1", f.rootAgent, "x")
		ca := f.host.Agent("c1")
		ca.BeginTurn()
		if _, _, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{
			Provider: "fork", Label: "g", ChildID: "g", Parent: ca, Prompt: text("x"),
		}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{
			Provider: "fork", Label: "own", ChildID: "own", Parent: f.rootAgent, Prompt: text("x"),
			AgentOptions: &subagent.AgentOptions{Provider: "openai", Model: "o9"},
		}); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string][2]string{"c1": {"anthropic", "m1"}, "g": {"anthropic", "m1"}, "own": {"openai", "o9"}} {
			d := f.facts(jobs.SessionID(id))[0].(subagents.SubagentCreated).Descriptor
			if d.AgentProvider != want[0] || d.AgentModel != want[1] {
				t.Errorf("%s was created with route %s/%s, want %s/%s", id, d.AgentProvider, d.AgentModel, want[0], want[1])
			}
		}
		// the root moved to another model: the child keeps the one it was created with
		ca.EndTurn(subagents.StopReasonCompleted, "")
		f.turn("g", subagents.StopReasonCompleted, "")
		f.turn("c1", subagents.StopReasonCompleted, "")
		f.rootAgent.(*routedRoot).route.Model = "m2"
		if _, err := f.svc.Followup(context.Background(), f.rootAgent, "c1", text("more"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		if d := f.host.Agent("c1").Child.Descriptor; d.AgentModel != "m1" {
			t.Fatalf("resumed with model %q, want m1, the creation's", d.AgentModel)
		}
	})
}

// A parentRunFake is a one-shot run with a local agent, ended by the test.
type parentRunFake struct {
	agent    *subagenttest.Agent
	ended    chan struct{}
	disposed bool
}

func (r *parentRunFake) ID() jobs.SessionID    { return r.agent.ID() }
func (r *parentRunFake) Agent() subagent.Agent { return r.agent }
func (r *parentRunFake) Result(ctx context.Context) (subagent.Result, error) {
	<-r.ended
	return subagent.Result{StopReason: subagents.StopReasonCompleted, Output: "done"}, nil
}
func (r *parentRunFake) Dispose(context.Context) error { r.disposed = true; return nil }

func TestAOneShotRunsAgentParentsChildrenThatEndWithTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		fake := &parentRunFake{agent: subagenttest.NewAgent("oneshot"), ended: make(chan struct{})}
		f.prov.StartFunc = func(context.Context, subagent.ResolvedStartRequest) (subagent.Run, error) { return fake, nil }
		run, err := f.svc.Start(context.Background(), "fork", subagent.StartRequest{Label: "look"})
		if err != nil {
			t.Fatal(err)
		}
		// no Attach: the run's agent is a live parent while it runs
		f.start("c1", run.Agent(), "help me")
		if f.svc.State("c1") != subagent.Running {
			t.Fatalf("child of a one-shot run %v, want running", f.svc.State("c1"))
		}
		close(fake.ended)
		if _, err := run.Result(context.Background()); err != nil {
			t.Fatal(err)
		}
		if f.svc.State("c1") != subagent.Absent || !slices.Contains(f.types("c1"), discarded) {
			t.Fatalf("child %v after the run ended, stream %v: want it drained", f.svc.State("c1"), f.types("c1"))
		}
		if err := run.Dispose(context.Background()); err != nil || !fake.disposed {
			t.Fatalf("dispose: %v, disposed %v", err, fake.disposed)
		}
		_, _, err = f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c2", Parent: run.Agent(), Prompt: text("x")})
		if !errors.Is(err, subagent.ErrUnauthorized) {
			t.Fatalf("start under an ended run's agent: %v, want ErrUnauthorized", err)
		}
	})
}

func TestMessagesToADurableRootAreRedeliveredOnceAfterARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := subagenttest.NewMemStore()
		svc := subagent.New(subagent.WithStore(store), subagent.WithHost(subagenttest.NewHost()))
		defer svc.Close(context.Background())
		svc.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"})
		root := subagenttest.NewAgent("root")
		durable, err := svc.AttachDurable(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []jobs.SessionID{"c1", "c2"} {
			if _, _, err := svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: id, Parent: root, Prompt: text("x")}); err != nil {
				t.Fatal(err)
			}
		}
		svc.DrainChildren(context.Background(), root, []jobs.SessionID{"c1", "c2"}) // two notices
		notices := root.Delivered()
		if len(notices) != 2 {
			t.Fatalf("root got %d notices, want 2", len(notices))
		}
		durable.Inbox().Claimed(notices[0].ID) // the root's turn took the first
		// crash: the next process finds the second notice waiting on the root's stream
		next := store.Crash()
		svc2 := subagent.New(subagent.WithStore(next), subagent.WithHost(subagenttest.NewHost()))
		defer svc2.Close(context.Background())
		root2 := subagenttest.NewAgent("root")
		durable2, err := svc2.AttachDurable(context.Background(), root2)
		if err != nil {
			t.Fatal(err)
		}
		if n := durable2.Redeliver(); n != 1 || !slices.Equal(ids(root2.Delivered()), ids(notices[1:])) {
			t.Fatalf("redelivered %d: %v, want only the unclaimed notice %v", n, ids(root2.Delivered()), ids(notices[1:]))
		}
		if durable2.Redeliver() != 0 {
			t.Fatal("a second Redeliver delivered again")
		}
		durable2.Inbox().Claimed(notices[1].ID)
		durable2.Detach()
		// and once claimed, never again
		svc3 := subagent.New(subagent.WithStore(next.Crash()))
		durable3, err := svc3.AttachDurable(context.Background(), subagenttest.NewAgent("root"))
		if err != nil {
			t.Fatal(err)
		}
		if n := durable3.Redeliver(); n != 0 {
			t.Fatalf("redelivered %d claimed notices", n)
		}
	})
}
