package subagent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/subagent"
)

// The tests of this file hold the manager to what a runtime needs of it
// (issue 23 §2).

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
		d, ok := fs[len(fs)-2].(subagents.SubagentMessageDiscarded)
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
