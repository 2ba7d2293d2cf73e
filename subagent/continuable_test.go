package subagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

const (
	created    = subagents.SubagentCreatedType
	seeded     = subagents.SubagentSeededType
	started    = subagents.SubagentResidencyStartedType
	ended      = subagents.SubagentResidencyEndedType
	accepted   = subagents.SubagentMessageAcceptedType
	claimed    = subagents.SubagentMessageClaimedType
	discarded  = subagents.SubagentMessageDiscardedType
	checkpoint = subagents.SubagentCheckpointType
)

func TestStartContinuableReturnsAtAcceptanceWithTheCreationFactsWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.prov.Seed = func(subagent.ContinuableCreateRequest) (subagent.ContinuableCreateSpec, error) {
			return subagent.ContinuableCreateSpec{Seed: []json.RawMessage{json.RawMessage(`{"turn":1}`)}}, nil
		}
		msg := f.start("c1", f.root, "hello")
		a := f.host.Agent("c1")
		if got := ids(a.Delivered()); !slices.Equal(got, []subagents.MessageID{msg}) {
			t.Fatalf("delivered %v, want the prompt %v", got, msg)
		}
		if got, want := f.types("c1"), []string{created, seeded, started, accepted}; !slices.Equal(got, want) {
			t.Fatalf("stream %v, want %v", got, want)
		}
		c := f.facts("c1")[0].(subagents.SubagentCreated)
		if c.Header.ParentSession != "root" || c.Header.DelegationDepth != 1 || c.Header.SeedLength != 1 || c.Descriptor.Mode != subagents.DescriptorModeContinuable || c.Descriptor.Version != 2 {
			t.Fatalf("created fact %+v", c)
		}
		if got := f.svc.State("c1"); got != subagent.Running {
			t.Fatalf("state %v with an unclaimed prompt, want running", got)
		}
		if len(f.prov.Started()) != 0 {
			t.Fatal("a continuable child called the provider's Start")
		}
	})
}

func TestAChildThatGoesIdleSettlesAndItsParentIsNoticed(t *testing.T) {
	for _, c := range []struct {
		reason subagents.StopReason
		last   string
		want   string
	}{
		{subagents.StopReasonCompleted, "done: 42", "finished and will do no further work unless you send it more.\nIts closing message:\ndone: 42"},
		{subagents.StopReasonAborted, "", "was stopped before it finished.\nIt left no closing message."},
		{subagents.StopReasonMaxTokens, "", "ran out of room before it finished."},
		{subagents.StopReasonRefusal, "", "declined the task."},
		{subagents.StopReasonError, "", "failed before it finished."},
	} {
		t.Run(string(c.reason), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, nil)
				f.start("c1", f.root, "work")
				f.turn("c1", c.reason, c.last)
				if f.svc.State("c1") != subagent.Absent || f.host.Agent("c1") != nil {
					t.Fatalf("child still resident after going idle: %v", f.svc.State("c1"))
				}
				if got, want := f.types("c1"), []string{created, started, accepted, claimed, ended, checkpoint}; !slices.Equal(got, want) {
					t.Fatalf("stream %v, want %v", got, want)
				}
				end := f.facts("c1")[4].(subagents.SubagentResidencyEnded)
				if end.StopReason != c.reason || end.LastMessage != c.last {
					t.Fatalf("ended %+v, want %s %q", end, c.reason, c.last)
				}
				notes := f.root.Delivered()
				if len(notes) != 1 || notes[0].Source.Kind != subagents.SourceKindSubagentSettled || notes[0].Source.Sender != "c1" {
					t.Fatalf("root got %+v, want one settlement notice from c1", notes)
				}
				if got := notes[0].Content[0].Text; !strings.HasPrefix(got, "Background subagent c1 ") || !strings.Contains(got, c.want) {
					t.Fatalf("notice %q, want it to say %q", got, c.want)
				}
			})
		})
	}
}

func TestFollowupToAResidentChildIsDeliveredAndWakesIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.start("c1", f.root, "one")
		a := f.host.Agent("c1")
		a.BeginTurn()
		id, err := f.svc.Followup(context.Background(), f.root, "c1", text("two"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if f.host.Agent("c1") != a {
			t.Fatal("a follow-up to a resident child made a new agent")
		}
		if got := ids(a.Queued()); !slices.Equal(got, []subagents.MessageID{id}) {
			t.Fatalf("queued %v, want the follow-up", got)
		}
		a.EndTurn(subagents.StopReasonCompleted, "")
		synctest.Wait()
		if f.svc.State("c1") != subagent.Running {
			t.Fatal("the child settled with a waking follow-up unclaimed")
		}
		if got := f.turn("c1", subagents.StopReasonCompleted, ""); !slices.Equal(ids(got), []subagents.MessageID{id}) {
			t.Fatalf("claimed %v", ids(got))
		}
		if f.svc.State("c1") != subagent.Absent {
			t.Fatal("the child did not settle once idle")
		}
	})
}

func TestFollowupResumesAnAbsentChildColdFromItsStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.start("c1", f.root, "one")
		f.turn("c1", subagents.StopReasonCompleted, "first")
		id, err := f.svc.Followup(context.Background(), f.root, "c1", text("two"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := f.host.Agent("c1")
		if a == nil || !a.Child.Resumed || a.Child.Descriptor.Label != "child c1" {
			t.Fatalf("resumed agent %+v", a)
		}
		var history []string
		for rec, err := range a.Child.History(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			f, _ := subagents.DecodeFact(rec.Payload)
			history = append(history, f.FactType())
		}
		if want := []string{created, started, accepted, claimed, ended, checkpoint}; len(history) < len(want) || !slices.Equal(history[:len(want)], want) {
			t.Fatalf("the host's History %v, want the whole stream from %v", history, want)
		}
		if got := ids(a.Delivered()); !slices.Equal(got, []subagents.MessageID{id}) {
			t.Fatalf("delivered %v, want only the follow-up (the prompt was claimed)", got)
		}
		st := f.facts("c1")[6].(subagents.SubagentResidencyStarted)
		if !st.Resumed {
			t.Fatal("residency-started of a cold resume does not say resumed")
		}
	})
}

func TestColdResumeNeedsNoProvider(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := subagenttest.NewMemStore()
		f := newFixture(t, store)
		f.start("c1", f.root, "one")
		f.turn("c1", subagents.StopReasonCompleted, "")
		svc := subagent.New(subagent.WithStore(store), subagent.WithHost(f.host))
		defer svc.Close(context.Background())
		root := subagenttest.NewAgent("root")
		if _, err := svc.Attach(root); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Followup(context.Background(), root, "c1", text("two"), subagent.FollowupOptions{}); err != nil {
			t.Fatalf("resume with no provider registered: %v", err)
		}
	})
}

func TestRestartRedeliversFlushedUnclaimedMessagesOnceInAcceptanceOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		prompt := f.start("c1", f.root, "one")
		m2, err := f.svc.Followup(context.Background(), f.root, "c1", text("two"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.store.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("lost: never flushed"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		// crash: the process ends with three messages accepted, none claimed
		g := f.restart()
		m4, err := g.svc.Followup(context.Background(), g.root, "c1", text("four"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := g.host.Agent("c1")
		if got, want := ids(a.Delivered()), []subagents.MessageID{prompt, m2, m4}; !slices.Equal(got, want) {
			t.Fatalf("delivered after restart %v, want %v", got, want)
		}
		if got := ids(g.turn("c1", subagents.StopReasonCompleted, "")); !slices.Equal(got, []subagents.MessageID{prompt, m2, m4}) {
			t.Fatalf("claimed %v", got)
		}
		// the crashed residency was ended at the resume; one end per start
		starts, ends := 0, 0
		for _, x := range g.facts("c1") {
			switch x.(type) {
			case subagents.SubagentResidencyStarted:
				starts++
			case subagents.SubagentResidencyEnded:
				ends++
			}
		}
		if starts != 2 || ends != 2 {
			t.Fatalf("%d residencies started, %d ended; want 2 and 2", starts, ends)
		}
		// and a second resume delivers nothing already claimed
		if _, err := g.svc.Followup(context.Background(), g.root, "c1", text("five"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := g.host.Agent("c1").Delivered(); len(got) != 1 {
			t.Fatalf("third residency got %d messages, want only the new one", len(got))
		}
	})
}

func TestQuietMessagesLeftAtSettlementWaitForTheNextResidency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		pa, ca := f.nest()
		quiet, err := f.svc.ReportFrom(context.Background(), ca, text("fyi"), subagent.ReportOptions{Delivery: subagents.DeliveryQuiet})
		if err != nil {
			t.Fatal(err)
		}
		f.turn("c", subagents.StopReasonCompleted, "")
		pa.EndTurn(subagents.StopReasonCompleted, "")
		synctest.Wait()
		// the settlement notice woke p: it is still running
		notice := f.turn("p", subagents.StopReasonCompleted, "")
		if len(notice) != 2 || notice[0].ID != quiet || notice[1].Source.Kind != subagents.SourceKindSubagentSettled {
			t.Fatalf("p claimed %+v, want the quiet report then the notice", notice)
		}
	})
}

func TestOnlyTheExactLiveDirectParentIsAuthorized(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.start("c1", f.root, "one")
		other := subagenttest.NewAgent("other")
		if _, err := f.svc.Attach(other); err != nil {
			t.Fatal(err)
		}
		copyOfRoot := subagenttest.NewAgent("root") // same id, not the attached value
		for name, parent := range map[string]subagent.Agent{"a copy of the parent": copyOfRoot, "another parent": other} {
			_, err := f.svc.Followup(context.Background(), parent, "c1", text("x"), subagent.FollowupOptions{})
			if !errors.Is(err, subagent.ErrUnauthorized) {
				t.Errorf("%s: %v, want ErrUnauthorized", name, err)
			}
		}
		f.turn("c1", subagents.StopReasonCompleted, "")
		_, err := f.svc.Followup(context.Background(), copyOfRoot, "c1", text("x"), subagent.FollowupOptions{})
		if !errors.Is(err, subagent.ErrUnauthorized) {
			t.Fatalf("a copy of the parent resumed the child: %v", err)
		}
		if f.host.Agent("c1") != nil {
			t.Fatal("an unauthorized resume materialized the child")
		}
		_, err = f.svc.Followup(context.Background(), other, "c1", text("x"), subagent.FollowupOptions{})
		if err == nil || !strings.Contains(err.Error(), "belongs to another parent session") {
			t.Fatalf("cold resume by another parent: %v", err)
		}
	})
}

func TestProviderRegistrationAndCapabilities(t *testing.T) {
	f := newFixture(t, nil)
	if _, err := f.svc.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"}); !errors.Is(err, subagent.ErrDuplicateProvider) {
		t.Fatalf("duplicate provider: %v", err)
	}
	plain := &plainProvider{name: "plain"}
	remove, err := f.svc.RegisterProvider(plain)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "plain", Label: "x", Parent: f.root, Prompt: text("x")})
	if !errors.Is(err, subagent.ErrUnsupportedCapability) || !strings.Contains(err.Error(), "no PrepareContinuable capability") {
		t.Fatalf("provider without PrepareContinuable: %v", err)
	}
	if plain.starts != 0 {
		t.Fatal("the provider's Start was called for a continuable child")
	}
	remove()
	if got := f.svc.Providers(); !slices.Equal(got, []string{"fork"}) {
		t.Fatalf("providers after removal %v", got)
	}
	_, _, err = f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "plain", Label: "x", Parent: f.root, Prompt: text("x")})
	if !errors.Is(err, subagent.ErrNoProvider) {
		t.Fatalf("removed provider: %v", err)
	}
}

type plainProvider struct {
	name   string
	starts int
}

func (p *plainProvider) Name() string                        { return p.name }
func (p *plainProvider) Capabilities() subagent.Capabilities { return subagent.Capabilities{} }
func (p *plainProvider) Start(context.Context, subagent.ResolvedStartRequest) (subagent.Run, error) {
	p.starts++
	return nil, errors.New("not here")
}

func TestAFailedCreationRollsBackAndLeavesNoTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.host.Fail = func(subagent.Child) error { return errors.New("no capacity") }
		id, msg, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c1", Parent: f.root, Prompt: text("x")})
		if err == nil || id != "" || !msg.IsZero() {
			t.Fatalf("failed create returned %q %v %v", id, msg, err)
		}
		if f.store.Len(journal.Stream("c1")) != 0 || f.svc.State("c1") != subagent.Absent {
			t.Fatal("a rolled-back create left facts or an activation")
		}
		f.host.Fail = nil
		f.start("c1", f.root, "again") // the id is free
	})
}

func TestStartContinuableRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.start("c1", f.root, "x")
		zero := 0
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, c := range []struct {
			name string
			ctx  context.Context
			spec subagent.ContinuableSpec
			want error
		}{
			{"live id", context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c1", Parent: f.root}, subagent.ErrDuplicateChild},
			{"a copy of the parent", context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c2", Parent: subagenttest.NewAgent("root")}, subagent.ErrUnauthorized},
			{"cancelled", ctx, subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c3", Parent: f.root}, context.Canceled},
			{"cancelled code", ctx, subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c3", Parent: f.root}, subagent.ErrCancelled},
			{"no provider", context.Background(), subagent.ContinuableSpec{Provider: "nope", Label: "x", Parent: f.root}, subagent.ErrNoProvider},
		} {
			_, _, err := f.svc.StartContinuable(c.ctx, c.spec)
			if !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
		_, _, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c4", Parent: f.root, MaxDepth: &zero})
		var depth *subagent.DepthError
		if !errors.As(err, &depth) || err.Error() != "subagent depth 1 exceeds maxDepth 0" {
			t.Fatalf("depth: %v", err)
		}
		bare := subagent.New(subagent.WithHost(f.host))
		r := subagenttest.NewAgent("r")
		bare.Attach(r)
		bare.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"})
		if _, _, err := bare.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", Parent: r}); !errors.Is(err, subagent.ErrPersistenceUnavailable) {
			t.Fatalf("no store: %v", err)
		}
	})
}

func TestAChildWithHistoryIsADuplicateAfterARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.start("c1", f.root, "x")
		f.store.Flush(context.Background())
		g := f.restart()
		_, _, err := g.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c1", Parent: g.root})
		if !errors.Is(err, subagent.ErrDuplicateChild) {
			t.Fatalf("reusing an id with history: %v", err)
		}
	})
}

func TestANonContinuableStreamIsNotResumableDoNotRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		for id, desc := range map[jobs.SessionID]subagents.Descriptor{
			"oneshot": {Version: 2, Mode: subagents.DescriptorModeOneShot, Provider: "fork"},
			"v1":      {Version: 1, Mode: subagents.DescriptorModeContinuable, Provider: "fork"},
		} {
			payload, _ := subagents.EncodeFact(&subagents.SubagentCreated{Child: id, Header: subagents.ChildHeader{ParentSession: "root", Origin: subagents.OriginSubagent, DelegationDepth: 1}, Descriptor: desc})
			f.store.Append(context.Background(), journal.Stream(id), journal.Entry{Payload: payload})
			_, err := f.svc.Followup(context.Background(), f.root, id, text("x"), subagent.FollowupOptions{})
			if !errors.Is(err, subagent.ErrNotResumable) || !strings.Contains(err.Error(), "do not retry") {
				t.Errorf("%s: %v, want ErrNotResumable saying do not retry", id, err)
			}
		}
		if _, err := f.svc.Followup(context.Background(), f.root, "never", text("x"), subagent.FollowupOptions{}); !errors.Is(err, subagent.ErrNotResumable) {
			t.Errorf("unknown child: %v", err)
		}
	})
}

func TestReportFromGoesExactlyOneEdgeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		pa, ca := f.nest()
		id, err := f.svc.ReportFrom(context.Background(), ca, text("halfway"), subagent.ReportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		q := pa.Queued()
		if len(q) != 1 || q[0].ID != id || q[0].Source.Kind != subagents.SourceKindSubagentReport || q[0].Source.Sender != "c" || q[0].Content[0].Text != "Background subagent c reported:\nhalfway" {
			t.Fatalf("parent queue %+v", q)
		}
		if len(f.root.Delivered()) != 0 {
			t.Fatal("a report reached the grandparent")
		}
		if got := f.types("p"); got[len(got)-1] != accepted {
			t.Fatalf("the report is not a fact on the parent's stream: %v", got)
		}
		if _, err := f.svc.ReportFrom(context.Background(), subagenttest.NewAgent("c"), text("x"), subagent.ReportOptions{}); !errors.Is(err, subagent.ErrUnauthorized) {
			t.Fatalf("report from a copy: %v", err)
		}
		// the root is the direct parent of p; detached, it is not live
		detachable := subagenttest.NewAgent("r2")
		detach, _ := f.svc.Attach(detachable)
		f.start("d", detachable, "x")
		detach()
		if _, err := f.svc.ReportFrom(context.Background(), f.host.Agent("d"), text("x"), subagent.ReportOptions{}); !errors.Is(err, subagent.ErrParentUnavailable) {
			t.Fatalf("report to a detached parent: %v", err)
		}
	})
}

func TestDrainDescendantsTearsDownChildrenFirstAndDiscardsWaitingMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		_, ca := f.nest()
		ca.BeginTurn()
		f.start("g", ca, "grandchild")
		if err := f.svc.DrainDescendants(context.Background(), []subagent.Agent{f.root}); err != nil {
			t.Fatal(err)
		}
		if got, want := f.host.Disposed(), []jobs.SessionID{"g", "c", "p"}; !slices.Equal(got, want) {
			t.Fatalf("disposal order %v, want children first %v", got, want)
		}
		if got := f.types("g"); !slices.Contains(got, discarded) || got[len(got)-2] != ended {
			t.Fatalf("grandchild's unclaimed prompt was not discarded: %v", got)
		}
		end := f.lastEnd("g")
		if end.StopReason != subagents.StopReasonAborted {
			t.Fatalf("a drained child that never ran ended %s, want aborted", end.StopReason)
		}
		for _, id := range []jobs.SessionID{"p", "c", "g"} {
			if f.svc.State(id) != subagent.Absent {
				t.Fatalf("%s still live", id)
			}
		}
	})
}

func TestCloseKeepsWaitingMessagesForTheNextResidency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		prompt := f.start("c1", f.root, "x")
		if err := f.svc.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(f.types("c1"), discarded) {
			t.Fatal("Close discarded a waiting message")
		}
		if _, _, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", Parent: f.root}); !errors.Is(err, subagent.ErrDraining) {
			t.Fatalf("start after Close: %v", err)
		}
		g := f.restart()
		if _, err := g.svc.Followup(context.Background(), g.root, "c1", text("y"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := ids(g.host.Agent("c1").Delivered()); got[0] != prompt {
			t.Fatalf("after Close and restart delivered %v, want the prompt first", got)
		}
	})
}

func TestInterruptCancelsTheTurnAndKeepsTheInbox(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		a := f.child("c1")
		if err := f.svc.Interrupt("c1", subagent.ByAncestor(a)); !errors.Is(err, subagent.ErrUnauthorized) {
			t.Fatalf("self-interrupt: %v", err)
		}
		if err := f.svc.Interrupt("c1", subagent.ByUser("someone")); !errors.Is(err, subagent.ErrUnauthorized) {
			t.Fatalf("interrupt by another session: %v", err)
		}
		if err := f.svc.Interrupt("c1", subagent.ByAncestor(f.root)); err != nil {
			t.Fatal(err)
		}
		if a.Cancels() != 1 || len(a.Queued()) != 1 {
			t.Fatalf("cancels %d queued %d: the inbox was not kept", a.Cancels(), len(a.Queued()))
		}
		if err := f.svc.Interrupt("absent", subagent.ByUser("root")); err != nil {
			t.Fatalf("interrupting an absent child: %v", err)
		}
	})
}

func TestAFollowupToADisposingChildWaitsThenResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		a := f.child("c1")
		a.IgnoreCancel = true
		a.BeginTurn() // a turn that does not stop when cancelled
		drained := make(chan error)
		go func() { drained <- f.svc.DrainChildren(context.Background(), f.root, []jobs.SessionID{"c1"}) }()
		synctest.Wait()
		if f.svc.State("c1") != subagent.Disposing {
			t.Fatalf("state %v during teardown, want disposing", f.svc.State("c1"))
		}
		type answer struct {
			id  subagents.MessageID
			err error
		}
		followed := make(chan answer)
		go func() {
			id, err := f.svc.Followup(context.Background(), f.root, "c1", text("y"), subagent.FollowupOptions{})
			followed <- answer{id, err}
		}()
		synctest.Wait()
		select {
		case <-followed:
			t.Fatal("the follow-up did not wait for the teardown")
		default:
		}
		a.EndTurn(subagents.StopReasonAborted, "")
		if err := <-drained; err != nil {
			t.Fatal(err)
		}
		got := <-followed
		if got.err != nil {
			t.Fatal(got.err)
		}
		b := f.host.Agent("c1")
		if b == a || !slices.Equal(ids(b.Delivered()), []subagents.MessageID{got.id}) {
			t.Fatal("the follow-up did not cold-resume the drained child with only its own message")
		}
	})
}

func TestTheFinalFlushGoesThroughTheSessionBarrier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sessions := journal.NewSessionStore[jobs.SessionID]()
		f := newFixture(t, nil, subagent.WithSessions(sessions))
		a := f.child("c1")
		if !sessions.Live("c1") {
			t.Fatal("a resident child is not a live session")
		}
		// the runtime's own data of the child takes part in its flushes
		runtimeFlushes := 0
		if _, err := sessions.OnFlush("c1", func(context.Context) error { runtimeFlushes++; return nil }); err != nil {
			t.Fatal(err)
		}
		a.BeginTurn()
		before := runtimeFlushes
		a.EndTurn(subagents.StopReasonCompleted, "")
		synctest.Wait()
		if runtimeFlushes != before+1 || sessions.Live("c1") {
			t.Fatalf("the runtime's listener ran %d times at teardown, live %v: want one final flush through the barrier and the session ended", runtimeFlushes-before, sessions.Live("c1"))
		}
		// the residency's end is durable
		if got := f.restart().types("c1"); got[len(got)-2] != ended {
			t.Fatalf("after the final flush the stream ends %v", got)
		}
	})
}

func TestAFailedFinalFlushIsOnlyLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := subagenttest.NewMemStore()
		store := &flushFailing{MemStore: mem}
		logOpt, log := withLog()
		f := newFixture(t, mem, subagent.WithStore(store), logOpt)
		f.child("c1")
		store.failFlushes(errors.New("fsync: disk gone"))
		// appends still succeed: only the flush fails
		if err := f.svc.DrainChildren(context.Background(), f.root, []jobs.SessionID{"c1"}); err != nil {
			t.Fatalf("drain whose final flush failed: %v, want nil (the failure is only logged)", err)
		}
		if got := f.types("c1"); got[len(got)-2] != ended {
			t.Fatalf("stream ends %v, want the residency's end recorded", got)
		}
		logged := log.find("final flush")
		if len(logged) != 1 || logged[0].attrs["child"] != "c1" || !strings.Contains(logged[0].attrs["err"], "disk gone") {
			t.Fatalf("logged %+v, want one final-flush failure naming c1 and the cause", logged)
		}
	})
}

func TestADrainAdmitsNothingUnderItsParentsWhileItRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		a := f.child("c1")
		a.IgnoreCancel = true
		a.BeginTurn()
		drained := make(chan error)
		go func() { drained <- f.svc.DrainDescendants(context.Background(), []subagent.Agent{f.root}) }()
		synctest.Wait()
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("late"), subagent.FollowupOptions{}); !errors.Is(err, subagent.ErrDraining) {
			t.Errorf("follow-up during the drain: %v, want ErrDraining", err)
		}
		if _, _, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c2", Parent: f.root}); !errors.Is(err, subagent.ErrDraining) {
			t.Errorf("start during the drain: %v, want ErrDraining", err)
		}
		if _, err := f.svc.ReportFrom(context.Background(), a, text("late"), subagent.ReportOptions{}); !errors.Is(err, subagent.ErrDraining) {
			t.Errorf("report during the drain: %v, want ErrDraining", err)
		}
		a.EndTurn(subagents.StopReasonAborted, "")
		if err := <-drained; err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(f.facts("c1"), func(x subagents.Fact) bool {
			acc, ok := x.(subagents.SubagentMessageAccepted)
			return ok && acc.Content[0].Text == "late"
		}) {
			t.Fatal("a message was accepted after the drain's cutoff")
		}
		// once the drain is over the scope admits again
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("after"), subagent.FollowupOptions{}); err != nil {
			t.Fatalf("follow-up after the drain: %v", err)
		}
	})
}

// valueAgent is an Agent by value: copies of it are equal, so it cannot be
// authorized by identity.
type valueAgent struct{ id jobs.SessionID }

func (v valueAgent) ID() jobs.SessionID                  { return v.id }
func (valueAgent) Deliver(subagents.Message, bool) error { return nil }
func (valueAgent) Cancel(error, bool)                    {}
func (valueAgent) Idle() <-chan struct{}                 { return nil }
func (valueAgent) Dispose(context.Context) error         { return nil }

func TestAgentsMustBePointersSoCopiesAreNeverAuthorized(t *testing.T) {
	svc := subagent.New()
	if _, err := svc.Attach(valueAgent{id: "root"}); err == nil || !strings.Contains(err.Error(), "must be a pointer") {
		t.Fatalf("Attach of a value agent: %v", err)
	}
	// nor may a host hand out one: the child is rolled back
	store := subagenttest.NewMemStore()
	byValue := subagent.HostFunc(func(_ context.Context, c subagent.Child, _ subagent.Inbox) (subagent.Agent, error) {
		return valueAgent{id: c.ID}, nil
	})
	svc = subagent.New(subagent.WithStore(store), subagent.WithHost(byValue))
	svc.RegisterProvider(subagent.Continuable("fork", nil))
	root := subagenttest.NewAgent("root")
	svc.Attach(root)
	_, _, err := svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c1", Parent: root, Prompt: text("x")})
	if err == nil || !strings.Contains(err.Error(), "must be a pointer") || store.Len("c1") != 0 {
		t.Fatalf("a host's value agent: %v, %d facts; want a refusal that leaves nothing", err, store.Len("c1"))
	}
}

// TestStartContinuableChecksInTheDocumentedOrder gives StartContinuable
// requests that fail one check and every check documented after it, and
// expects the earliest: the order the method's doc lists.
func TestStartContinuableChecksInTheDocumentedOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.child("live")
		plain := &plainProvider{name: "plain"}
		if _, err := f.svc.RegisterProvider(plain); err != nil {
			t.Fatal(err)
		}
		closed := subagent.New()
		closed.Close(context.Background())
		noHost := subagent.New(subagent.WithStore(f.store))
		zero, negative := 0, -1
		copyOfRoot := subagenttest.NewAgent("root")
		cancelledCtx, cancel := context.WithCancel(context.Background())
		cancel()
		bad := func(provider, label, id string, maxDepth *int, parent subagent.Agent) subagent.ContinuableSpec {
			return subagent.ContinuableSpec{Provider: provider, Label: label, ChildID: jobs.SessionID(id), MaxDepth: maxDepth, Parent: parent}
		}
		var depthErr *subagent.DepthError
		for _, c := range []struct {
			name string
			svc  *subagent.Service
			ctx  context.Context
			spec subagent.ContinuableSpec
			want error
		}{
			{"cancelled before all", f.svc, cancelledCtx, bad("nope", "", "live", &negative, nil), subagent.ErrCancelled},
			{"no parent before draining", closed, context.Background(), bad("nope", "", "live", &negative, nil), subagent.ErrUnauthorized},
			{"draining before persistence", closed, context.Background(), bad("nope", "", "live", &negative, copyOfRoot), subagent.ErrDraining},
			{"persistence before a host", subagent.New(), context.Background(), bad("nope", "", "live", &negative, copyOfRoot), subagent.ErrPersistenceUnavailable},
			{"a host before the provider", noHost, context.Background(), bad("nope", "", "live", &negative, copyOfRoot), subagent.ErrContinuationUnavailable},
			{"the provider before the label", f.svc, context.Background(), bad("nope", "", "live", &negative, copyOfRoot), subagent.ErrNoProvider},
			{"the capability before the label", f.svc, context.Background(), bad("plain", "", "live", &negative, copyOfRoot), subagent.ErrUnsupportedCapability},
			{"the label before a live id", f.svc, context.Background(), bad("fork", "", "live", &negative, copyOfRoot), subagent.ErrInvalidRequest},
			{"a negative maxDepth before a live id", f.svc, context.Background(), bad("fork", "x", "live", &negative, copyOfRoot), subagent.ErrInvalidRequest},
			{"a live id before the depth", f.svc, context.Background(), bad("fork", "x", "live", &zero, copyOfRoot), subagent.ErrDuplicateChild},
			{"the depth before the exact parent", f.svc, context.Background(), bad("fork", "x", "new", &zero, copyOfRoot), depthErr},
			{"the exact parent", f.svc, context.Background(), bad("fork", "x", "new", nil, copyOfRoot), subagent.ErrUnauthorized},
		} {
			_, _, err := c.svc.StartContinuable(c.ctx, c.spec)
			if c.want == error(depthErr) {
				if !errors.As(err, &depthErr) {
					t.Errorf("%s: %v, want a *DepthError", c.name, err)
				}
				continue
			}
			if !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
	})
}
