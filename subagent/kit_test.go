package subagent_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// A kitRuntime is a Service whose children are QueueAgents running turn.
type kitRuntime struct {
	svc   *subagent.Service
	store *subagenttest.MemStore
	root  *subagenttest.Agent

	mu     sync.Mutex
	agents map[jobs.SessionID]*subagent.QueueAgent
}

func newKitRuntime(t *testing.T, turn subagent.TurnFunc) *kitRuntime {
	k := &kitRuntime{store: subagenttest.NewMemStore(), root: subagenttest.NewAgent("root"), agents: map[jobs.SessionID]*subagent.QueueAgent{}}
	host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		a := subagent.NewQueueAgent(c.ID, in, turn)
		k.mu.Lock()
		k.agents[c.ID] = a
		k.mu.Unlock()
		return a, nil
	})
	k.svc = subagent.New(subagent.WithStore(k.store), subagent.WithHost(host))
	t.Cleanup(func() { k.svc.Close(context.Background()) })
	if _, err := k.svc.RegisterProvider(subagent.Continuable("fork", nil)); err != nil {
		t.Fatal(err)
	}
	k.svc.Attach(k.root)
	return k
}

func (k *kitRuntime) start(t *testing.T, id jobs.SessionID, prompt string) {
	t.Helper()
	if _, _, err := k.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: id, Parent: k.root, Prompt: text(prompt)}); err != nil {
		t.Fatal(err)
	}
}

func (k *kitRuntime) end(t *testing.T, id jobs.SessionID) subagents.SubagentResidencyEnded {
	t.Helper()
	f := &fixture{t: t, store: k.store}
	return f.lastEnd(id)
}

func TestAQueueAgentRunsATurnPerWakingDeliveryAndSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var turns [][]string
		release := make(chan struct{})
		k := newKitRuntime(t, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			var got []string
			for _, m := range msgs {
				got = append(got, m.Content[0].Text)
			}
			turns = append(turns, got)
			if len(turns) == 1 {
				<-release // the first turn is still running when the follow-ups come
			}
			return "read " + got[len(got)-1], nil
		})
		k.start(t, "c1", "one")
		synctest.Wait()
		for _, s := range []string{"two", "three"} {
			if _, err := k.svc.Followup(context.Background(), k.root, "c1", text(s), subagent.FollowupOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		close(release)
		synctest.Wait()
		if want := [][]string{{"one"}, {"two", "three"}}; !slices.EqualFunc(turns, want, slices.Equal) {
			t.Fatalf("turns %q, want %q: messages that arrive during a turn wait for the next", turns, want)
		}
		if k.svc.State("c1") != subagent.Absent {
			t.Fatal("the child did not settle")
		}
		if end := k.end(t, "c1"); end.StopReason != subagents.StopReasonCompleted || end.LastMessage != "read three" {
			t.Fatalf("ended %+v", end)
		}
		if slices.Contains(typesOf(k.store, "c1"), discarded) {
			t.Fatal("a message was discarded")
		}
	})
}

func TestAQueueAgentMapsTheTurnsEndToItsStopReason(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want subagents.StopReason
	}{
		{"nil", nil, subagents.StopReasonCompleted},
		{"an error", errors.New("model unavailable"), subagents.StopReasonError},
		{"Stop", subagent.Stop(subagents.StopReasonMaxTokens, errors.New("context full")), subagents.StopReasonMaxTokens},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := newKitRuntime(t, func(context.Context, []subagents.Message) (string, error) { return "", c.err })
				k.start(t, "c1", "go")
				synctest.Wait()
				if end := k.end(t, "c1"); end.StopReason != c.want {
					t.Fatalf("ended %s, want %s", end.StopReason, c.want)
				}
			})
		})
	}
}

func TestAnInterruptedQueueAgentKeepsItsInboxForTheNextTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var turns [][]string
		k := newKitRuntime(t, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			var got []string
			for _, m := range msgs {
				got = append(got, m.Content[0].Text)
			}
			turns = append(turns, got)
			if got[0] == "long" {
				<-ctx.Done()
				return "", context.Cause(ctx)
			}
			return "", nil
		})
		k.start(t, "c1", "long")
		synctest.Wait()
		if _, err := k.svc.Followup(context.Background(), k.root, "c1", text("queued"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := k.svc.Interrupt("c1", subagent.ByUser("root")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if k.svc.State("c1") != subagent.Running || len(turns) != 1 {
			t.Fatalf("after the interrupt: %v, %d turns; want it resident holding the queued message", k.svc.State("c1"), len(turns))
		}
		if _, err := k.svc.Followup(context.Background(), k.root, "c1", text("go on"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if want := [][]string{{"long"}, {"queued", "go on"}}; !slices.EqualFunc(turns, want, slices.Equal) {
			t.Fatalf("turns %q, want %q", turns, want)
		}
	})
}

func TestAProviderMayOnlyPrepareContinuableChildren(t *testing.T) {
	svc := subagent.New()
	if _, err := svc.RegisterProvider(subagent.Continuable("fork", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Start(context.Background(), "fork", subagent.StartRequest{}); !errors.Is(err, subagent.ErrUnsupportedCapability) {
		t.Fatalf("a one-shot run of a continuable-only provider: %v, want ErrUnsupportedCapability", err)
	}
	if _, err := svc.RegisterProvider(bareProvider{}); !errors.Is(err, subagent.ErrUnsupportedCapability) {
		t.Fatalf("a provider that can make nothing: %v, want ErrUnsupportedCapability", err)
	}
}

type bareProvider struct{}

func (bareProvider) Name() string { return "bare" }
