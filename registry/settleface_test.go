package registry_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// selfSettling starts a job whose producer settles through its face: its
// Hooks have no Done. The face is stored in *face.
func selfSettling(owner jobs.SessionID, face *jobs.RunningJob, cancel func(string) error) jobs.PlainJobStart {
	if cancel == nil {
		cancel = func(string) error { return nil }
	}
	return jobs.PlainJobStart{
		JobStartCommon: common(owner, "bash"),
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			*face = job
			return jobs.Hooks{Cancel: cancel}, nil
		},
	}
}

func TestSettleThroughTheFaceSettlesAtOnce(t *testing.T) {
	r, rec := recordedRegistry()
	var face jobs.RunningJob
	snap := mustStart(t, r, selfSettling("s", &face, nil))
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "exit 0", Output: "hi"}, nil)
	// Settle returns after the settlement is visible: no wait needed.
	got := mustGet(t, r, "s", snap.ID)
	if got.Status != jobs.JobStatusCompleted || got.Detail != "exit 0" || !got.ProducerReported || got.FinishedAt == 0 {
		t.Fatalf("after Settle: %+v; want completed by the producer", got)
	}
	res, err := r.Read("s", snap.ID)
	if err != nil || res.Output != "hi" {
		t.Fatalf("Read = %q, %v; want the outcome's output", res.Output, err)
	}
	facts := rec.all()
	if len(facts) != 2 {
		t.Fatalf("facts %v; want registered and settled", facts)
	}
	if s, ok := facts[1].(jobs.JobSettled); !ok || s.Cause != jobs.SettlementCauseProducer || s.Status != jobs.JobStatusCompleted {
		t.Fatalf("settled fact %+v; want completed, cause producer", facts[1])
	}
}

func TestSettleWithoutDoneStartsNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1000}))
		faces := make([]jobs.RunningJob, 100)
		for i := range faces {
			mustStart(t, r, selfSettling("", &faces[i], nil))
		}
		// Goroutines of this bubble (other tests' producers may linger
		// outside it) waiting in a producer's Done.
		buf := make([]byte, 1<<20)
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "synctest bubble") && strings.Contains(g, "awaitProducer") {
				t.Fatalf("a self-settling job holds a registry goroutine:\n%s", g)
			}
		}
		for _, f := range faces {
			f.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
		}
		for _, s := range r.List("") {
			if s.Status != jobs.JobStatusCompleted {
				t.Fatalf("%s is %s; want completed", s.Name, s.Status)
			}
		}
	})
}

func TestSettleReportsProducerFailures(t *testing.T) {
	for _, tc := range []struct {
		name       string
		out        jobs.JobOutcome
		err        error
		wantDetail string
	}{
		{"error", jobs.JobOutcome{Status: jobs.JobStatusCompleted}, errors.New("pipe closed"), "producer failed: pipe closed"},
		{"not terminal", jobs.JobOutcome{Status: jobs.JobStatusRunning}, nil, "producer failed: it reported status \"running\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := registry.New()
			var face jobs.RunningJob
			snap := mustStart(t, r, selfSettling("", &face, nil))
			face.Settle(tc.out, tc.err)
			got := mustGet(t, r, "", snap.ID)
			if got.Status != jobs.JobStatusFailed || got.ProducerReported || !strings.HasPrefix(got.Detail, tc.wantDetail) {
				t.Fatalf("got %s %q producerReported %v; want failed %q, not producer-reported", got.Status, got.Detail, got.ProducerReported, tc.wantDetail)
			}
		})
	}
}

func TestSettleOnlyTheFirstOutcomeCounts(t *testing.T) {
	log, buf := newLogger()
	r := registry.New(registry.WithLogger(log))
	var face jobs.RunningJob
	snap := mustStart(t, r, selfSettling("", &face, nil))
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "first"}, nil)
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "second"}, nil)
	if got := mustGet(t, r, "", snap.ID); got.Status != jobs.JobStatusFailed || got.Detail != "first" {
		t.Fatalf("got %s %q; want the first outcome", got.Status, got.Detail)
	}
	if !strings.Contains(buf.String(), "producer ended after its job settled") {
		t.Fatalf("the late outcome was not logged:\n%s", buf)
	}
}

func TestSettleWithDoneFirstOutcomeWins(t *testing.T) {
	r := registry.New()
	p := newProducer()
	var face jobs.RunningJob
	snap := mustStart(t, r, jobs.PlainJobStart{
		JobStartCommon: common("", "bash"),
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			face = job
			return p.hooks(), nil
		},
	})
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "by face"}, nil)
	p.finish(jobs.JobStatusFailed, "by done", "")
	got := waitSettled(t, r, "", snap.ID)
	if got.Status != jobs.JobStatusCompleted || got.Detail != "by face" {
		t.Fatalf("got %s %q; want the face's outcome, which came first", got.Status, got.Detail)
	}
}

func TestSettleInsideStarterWaitsForTheRegistration(t *testing.T) {
	r, rec := recordedRegistry()
	sig := watch(r)
	snap, err := r.Start(t.Context(), jobs.PlainJobStart{
		JobStartCommon: common("s", "bash"),
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "quick"}, nil)
			return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != jobs.JobStatusRunning {
		t.Errorf("Start returned %s; want the registered snapshot", snap.Status)
	}
	if got := mustGet(t, r, "s", snap.ID); got.Status != jobs.JobStatusCompleted || got.Detail != "quick" {
		t.Fatalf("after Start: %s %q; want settled by the starter's Settle", got.Status, got.Detail)
	}
	facts := rec.all()
	if len(facts) != 2 || facts[0].FactType() != jobs.JobRegisteredType || facts[1].FactType() != jobs.JobSettledType {
		t.Fatalf("facts %v; want registered, then settled", facts)
	}
	if c, d := sig.changed.Load(), sig.done.Load(); c != 2 || d != 1 {
		t.Fatalf("jobs-changed %d, done %d; want 2 (registration, settlement) and 1", c, d)
	}
}

func TestSettleInsideFailingStarterIsDropped(t *testing.T) {
	r, rec := recordedRegistry()
	var face jobs.RunningJob
	_, err := r.Start(t.Context(), jobs.PlainJobStart{
		JobStartCommon: common("s", "bash"),
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			face = job
			job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
			return jobs.Hooks{}, errors.New("no such binary")
		},
	})
	if err == nil {
		t.Fatal("Start succeeded; want the starter's error")
	}
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	if facts := rec.all(); len(facts) != 0 || len(r.List("s")) != 0 {
		t.Fatalf("facts %v, jobs %d; want nothing from a start that failed", facts, len(r.List("s")))
	}
}

func TestSettleAfterKillFollowsTheStopRule(t *testing.T) {
	r := registry.New()
	var face jobs.RunningJob
	snap := mustStart(t, r, selfSettling("s", &face, nil))
	if _, err := r.Kill("s", snap.ID, "user asked"); err != nil {
		t.Fatal(err)
	}
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "signal: terminated"}, nil)
	got := mustGet(t, r, "s", snap.ID)
	if got.Status != jobs.JobStatusKilled || got.Detail != "signal: terminated; user asked" {
		t.Fatalf("got %s %q; want killed with the reason merged", got.Status, got.Detail)
	}
}

func TestSettleInsideCancelDuringKill(t *testing.T) {
	r := registry.New()
	var face jobs.RunningJob
	snap := mustStart(t, r, selfSettling("s", &face, func(string) error {
		face.Settle(jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "exit 143"}, nil)
		return nil
	}))
	res, err := r.Kill("s", snap.ID, "stop")
	if err != nil || res != registry.KillRequested {
		t.Fatalf("Kill = %v, %v", res, err)
	}
	if got := mustGet(t, r, "s", snap.ID); got.Status != jobs.JobStatusKilled || got.Detail != "exit 143; stop" {
		t.Fatalf("got %s %q; want killed with the reason merged", got.Status, got.Detail)
	}
}

func TestSettleAfterForcedTeardownChangesNothing(t *testing.T) {
	r := registry.New()
	var face jobs.RunningJob
	snap := mustStart(t, r, selfSettling("s", &face, func(string) error { return errors.New("gone") }))
	_ = r.Close(context.Background())
	before := mustGet(t, r, "s", snap.ID)
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	if got := mustGet(t, r, "s", snap.ID); !reflect.DeepEqual(got, before) || got.Status != jobs.JobStatusFailed {
		t.Fatalf("after a late Settle: %+v; want the forced settlement %+v unchanged", got, before)
	}
}
