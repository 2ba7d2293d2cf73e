package registry_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// An eventObserver writes each metric event as a line.
type eventObserver struct {
	mu     sync.Mutex
	events []string
}

func (o *eventObserver) add(format string, args ...any) {
	o.mu.Lock()
	o.events = append(o.events, fmt.Sprintf(format, args...))
	o.mu.Unlock()
}

func (o *eventObserver) JobStarted(kind string) { o.add("started %s", kind) }
func (o *eventObserver) JobSettled(kind string, status jobs.JobStatus, cause jobs.SettlementCause) {
	o.add("settled %s %s %s", kind, status, cause)
}
func (o *eventObserver) FactRecordFailed(factType string) { o.add("record failed %s", factType) }

func (o *eventObserver) get() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.events)
}

func TestObserverHearsStartsAndSettlementsByKindStatusAndCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &eventObserver{}
		r := registry.New(registry.WithObserver(obs))
		done := newProducer()
		a := mustStart(t, r, plainStart("s", "bash", done))
		killed := newProducer().killOnCancel()
		b := mustStart(t, r, plainStart("s", "grep", killed))
		timed := newProducer().killOnCancel()
		c := mustStart(t, r, timedStart(timed, time.Second))

		done.finish(jobs.JobStatusCompleted, "", "")
		waitSettled(t, r, "s", a.ID)
		if _, err := r.Kill("s", b.ID, "enough"); err != nil {
			t.Fatal(err)
		}
		waitSettled(t, r, "s", b.ID)
		time.Sleep(time.Second)
		waitSettled(t, r, "s", c.ID)

		want := []string{
			"started bash", "started grep", "started build",
			"settled bash completed producer",
			"settled grep killed kill",
			"settled build killed timeout",
		}
		if got := obs.get(); !slices.Equal(got, want) {
			t.Fatalf("events\n%q\nwant\n%q", got, want)
		}
	})
}

func TestObserverHearsFactsTheRecorderRefused(t *testing.T) {
	obs := &eventObserver{}
	r := registry.New(registry.WithObserver(obs), registry.WithRecorder(&memRecorder{err: errors.New("disk full")}))
	var face jobs.RunningJob
	start := jobs.PlainJobStart{
		JobStartCommon: common("s", "bash"),
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			face = job
			return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
		},
	}
	mustStart(t, r, start)
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusFailed}, nil)
	want := []string{"record failed job/registered", "started bash", "record failed job/settled", "settled bash failed producer"}
	if got := obs.get(); !slices.Equal(got, want) {
		t.Fatalf("events %q; want %q", got, want)
	}
}

func TestLoadCountsRunningStoppingAndWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 2}))
		defer closeRegistry(t, r)
		check := func(when string, want registry.Load) {
			t.Helper()
			synctest.Wait()
			if got := r.Load(); got != want {
				t.Fatalf("%s: Load = %+v; want %+v", when, got, want)
			}
		}
		check("empty", registry.Load{})
		p1, p2 := newProducer().killOnCancel(), newProducer()
		a := mustStart(t, r, plainStart("s", "bash", p1))
		b := mustStart(t, r, plainStart("s", "bash", p2))
		check("two started", registry.Load{Running: 2})
		q := startWaiting(t, t.Context(), r, "s", "queued")
		check("one waiting", registry.Load{Running: 2, Waiting: 1})

		p2.onCancel = func(string) {} // b stops but does not end yet
		if _, err := r.Kill("s", b.ID, "stop"); err != nil {
			t.Fatal(err)
		}
		check("one stopping", registry.Load{Running: 1, Stopping: 1, Waiting: 1})
		p2.finish(jobs.JobStatusKilled, "", "")
		waitSettled(t, r, "s", b.ID)
		<-q.done
		check("the stopped job settled; the waiter took its slot", registry.Load{Running: 2})
		if _, err := r.Kill("s", a.ID, "stop"); err != nil {
			t.Fatal(err)
		}
		waitSettled(t, r, "s", a.ID)
		check("killed", registry.Load{Running: 1})
	})
}
