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
)

// The tests of this file hold the manager to the upstream contract where
// it had drifted.

func TestAFailedDisposeOfASettlingChildIsLoggedWithTheChild(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logOpt, log := withLog()
		f := newFixture(t, nil, logOpt)
		a := f.child("c1")
		a.DisposeErr = errors.New("the sandbox would not stop")
		f.turn("c1", subagents.StopReasonCompleted, "done")
		if end := f.lastEnd("c1"); end.StopReason != subagents.StopReasonError {
			t.Fatalf("ended %s, want error", end.StopReason)
		}
		logged := log.find("teardown")
		if len(logged) != 1 || logged[0].attrs["child"] != "c1" || !strings.Contains(logged[0].attrs["err"], "the sandbox would not stop") {
			t.Fatalf("logged %+v, want one teardown failure naming c1 and the cause", log.records)
		}
	})
}

func TestCloseEndsAChildWhosePromptNoTurnTookAsStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.child("c1") // the prompt waits: no turn ran
		if err := f.svc.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if end := f.lastEnd("c1"); end.StopReason != subagents.StopReasonAborted {
			t.Fatalf("Close ended a child that never ran %s, want aborted", end.StopReason)
		}
		notes := f.root.Delivered()
		if len(notes) != 1 || !strings.Contains(notes[0].Content[0].Text, "was stopped before it finished.") {
			t.Fatalf("root got %+v, want the notice that c1 was stopped", notes)
		}
	})
}

func TestNoticesOfADrainOrAShutdownWakeNoParent(t *testing.T) {
	t.Run("Close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, nil)
			f.child("c1")
			if err := f.svc.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(f.root.Delivered()) != 1 || len(f.root.Woken()) != 0 {
				t.Fatalf("root got %d notices, %d of them waking; want one that wakes nothing", len(f.root.Delivered()), len(f.root.Woken()))
			}
		})
	})
	t.Run("DrainDescendants", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, nil)
			pa, _ := f.nest()
			pa.EndTurn(subagents.StopReasonCompleted, "")
			synctest.Wait()
			if err := f.svc.DrainDescendants(context.Background(), []subagent.Agent{pa}); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			got := pa.Delivered()
			if len(got) != 2 || got[1].Source.Kind != subagents.SourceKindSubagentSettled || slices.Contains(pa.Woken(), got[1].ID) {
				t.Fatalf("p got %+v (woken %v), want c's notice without a wake", got, pa.Woken())
			}
			// the notice waits quietly: p, idle with no children, settles
			if f.svc.State("p") != subagent.Absent {
				t.Fatalf("p is %v: the drain's notice kept it running", f.svc.State("p"))
			}
		})
	})
	t.Run("DrainChildren wakes the parent that goes on", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, nil)
			f.child("c1")
			if err := f.svc.DrainChildren(context.Background(), f.root, []jobs.SessionID{"c1"}); err != nil {
				t.Fatal(err)
			}
			if len(f.root.Woken()) != 1 {
				t.Fatalf("root woken by %d notices, want 1", len(f.root.Woken()))
			}
		})
	})
}

func TestStartingAChildUnderAParentBeingDisposedIsActivationClosing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		pa := f.child("p")
		pa.IgnoreCancel = true
		pa.BeginTurn() // a turn that outlives its cancellation
		drained := make(chan error)
		go func() { drained <- f.svc.DrainChildren(context.Background(), f.root, []jobs.SessionID{"p"}) }()
		synctest.Wait()
		_, _, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c", Parent: pa, Prompt: text("x")})
		if !errors.Is(err, subagent.ErrActivationClosing) {
			t.Errorf("start under a parent being disposed: %v, want ErrActivationClosing", err)
		}
		pa.EndTurn(subagents.StopReasonAborted, "")
		if err := <-drained; err != nil {
			t.Fatal(err)
		}
	})
}

func TestAReportThatItsChildParentRefusesIsParentUnavailable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		pa, ca := f.nest()
		refusal := errors.New("inbox full")
		pa.DeliverErr = refusal
		_, err := f.svc.ReportFrom(context.Background(), ca, text("halfway"), subagent.ReportOptions{})
		if !errors.Is(err, subagent.ErrParentUnavailable) || !errors.Is(err, refusal) {
			t.Fatalf("report the parent refused: %v, want ErrParentUnavailable wrapping the cause", err)
		}
		f.root.DeliverErr = refusal
		pa.DeliverErr = nil
		_, err = f.svc.ReportFrom(context.Background(), pa, text("halfway"), subagent.ReportOptions{})
		if !errors.Is(err, subagent.ErrParentUnavailable) || !errors.Is(err, refusal) {
			t.Fatalf("report the root refused: %v, want ErrParentUnavailable wrapping the cause", err)
		}
		f.root.DeliverErr = nil
	})
}

func TestInterruptByNoAncestorSaysSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		f.child("c1")
		err := f.svc.Interrupt("c1", subagent.ByAncestor(nil))
		if !errors.Is(err, subagent.ErrUnauthorized) || !strings.Contains(err.Error(), "no ancestor agent") {
			t.Fatalf("ByAncestor(nil): %v, want ErrUnauthorized saying no ancestor agent was given", err)
		}
		if err := f.svc.Interrupt("c1", subagent.Interrupter{}); !errors.Is(err, subagent.ErrUnauthorized) || strings.Contains(err.Error(), "another parent") {
			t.Fatalf("the zero Interrupter: %v, want ErrUnauthorized that does not blame a parent session", err)
		}
	})
}
