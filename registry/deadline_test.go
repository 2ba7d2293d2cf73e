package registry_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// timedStart is a plain start for owner "s" with a deadline.
func timedStart(p *producer, timeout time.Duration) jobs.PlainJobStart {
	start := plainStart("s", "build", p)
	start.Timeout = timeout
	return start
}

const deadlineReason = "timeout: the job's deadline of 5s passed"

func TestDeadlineKillsTheJobWithCauseTimeout(t *testing.T) {
	for _, tt := range []struct {
		name    string
		outcome jobs.JobOutcome // what the producer reports once cancelled
		status  jobs.JobStatus
		detail  string
	}{
		{"a failure after the stop is the kill", jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "exit 137"}, jobs.JobStatusKilled, "exit 137; " + deadlineReason},
		{"killed", jobs.JobOutcome{Status: jobs.JobStatusKilled}, jobs.JobStatusKilled, deadlineReason},
		{"completion wins the race", jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "exit 0"}, jobs.JobStatusCompleted, "exit 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, rec := recordedRegistry()
				p := newProducer()
				p.onCancel = func(string) { p.results <- doneResult{out: tt.outcome} }
				snap := mustStart(t, r, timedStart(p, 5*time.Second))

				time.Sleep(5*time.Second - time.Millisecond)
				synctest.Wait()
				if got := mustGet(t, r, "s", snap.ID).Status; got != jobs.JobStatusRunning || len(p.cancelReasons()) != 0 {
					t.Fatalf("just before the deadline the job is %s with cancels %q; want running, none", got, p.cancelReasons())
				}
				time.Sleep(time.Millisecond)
				synctest.Wait()

				if got := p.cancelReasons(); !slices.Equal(got, []string{deadlineReason}) {
					t.Fatalf("Cancel got %q; want the deadline's reason once", got)
				}
				got := mustGet(t, r, "s", snap.ID)
				if got.Status != tt.status || got.Detail != tt.detail || !got.ProducerReported {
					t.Fatalf("settled %s %q producerReported=%v; want %s %q true", got.Status, got.Detail, got.ProducerReported, tt.status, tt.detail)
				}
				if got.Reported {
					t.Fatal("the deadline marked the job reported; nobody has its end in hand")
				}
				f := rec.all()[1].(jobs.JobSettled)
				if f.Cause != jobs.SettlementCauseTimeout || f.Status != tt.status || f.Detail != tt.detail {
					t.Fatalf("settled fact %s %q cause %q; want cause timeout", f.Status, f.Detail, f.Cause)
				}
			})
		})
	}
}

func TestDeadlineMovesTheJobToStoppingUntilItsProducerEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
		p := newProducer()
		snap := mustStart(t, r, timedStart(p, 5*time.Second))
		sig := watch(r)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := mustGet(t, r, "s", snap.ID).Status; got != jobs.JobStatusStopping || sig.changed.Load() != 1 {
			t.Fatalf("after the deadline the job is %s with %d signals; want stopping, one", got, sig.changed.Load())
		}
		if _, err := r.Start(t.Context(), plainStart("s", "build", newProducer())); !errors.Is(err, registry.ErrTooManyJobs) {
			t.Fatalf("a start while the timed-out job stops = %v; want ErrTooManyJobs (it holds its slot)", err)
		}
		p.finish(jobs.JobStatusKilled, "", "")
		if got := waitSettled(t, r, "s", snap.ID); got.Status != jobs.JobStatusKilled {
			t.Fatalf("settled %s; want killed", got.Status)
		}
	})
}

func TestDeadlineWithFailingCancelForceSettlesFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, rec := recordedRegistry()
		p := newProducer()
		p.cancelErr = errors.New("no such process")
		snap := mustStart(t, r, timedStart(p, 5*time.Second))
		time.Sleep(5 * time.Second)
		synctest.Wait()

		got := mustGet(t, r, "s", snap.ID)
		want := deadlineReason + " and cancel failed; work may be orphaned: no such process"
		if got.Status != jobs.JobStatusFailed || got.ProducerReported || got.Detail != want {
			t.Fatalf("settled %s %q producerReported=%v; want failed %q false", got.Status, got.Detail, got.ProducerReported, want)
		}
		if f := rec.all()[1].(jobs.JobSettled); f.Cause != jobs.SettlementCauseTimeout {
			t.Fatalf("settled fact's cause %q; want timeout", f.Cause)
		}
		p.finish(jobs.JobStatusCompleted, "", "") // the producer's late word changes nothing
		synctest.Wait()
		if got := mustGet(t, r, "s", snap.ID); got.Status != jobs.JobStatusFailed {
			t.Fatalf("a late outcome moved the job to %s", got.Status)
		}
	})
}

func TestDeadlineDoesNothingOnceTheJobSettled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		p := newProducer()
		snap := mustStart(t, r, timedStart(p, 5*time.Second))
		time.Sleep(time.Second)
		p.finish(jobs.JobStatusCompleted, "done", "")
		waitSettled(t, r, "s", snap.ID)
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := p.cancelReasons(); len(got) != 0 {
			t.Fatalf("Cancel called with %q after the job settled", got)
		}
	})
}

func TestDeadlineLeavesAJobBeingKilledToTheKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, rec := recordedRegistry()
		p := newProducer()
		snap := mustStart(t, r, timedStart(p, 5*time.Second))
		time.Sleep(time.Second)
		if _, err := r.Kill("s", snap.ID, "user asked"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		p.finish(jobs.JobStatusKilled, "", "")
		got := waitSettled(t, r, "s", snap.ID)
		if reasons := p.cancelReasons(); !slices.Equal(reasons, []string{"user asked"}) {
			t.Fatalf("Cancel got %q; want only the kill's", reasons)
		}
		if f := rec.all()[1].(jobs.JobSettled); f.Cause != jobs.SettlementCauseKill || got.Detail != "user asked" {
			t.Fatalf("settled %q with cause %q; want the kill's", got.Detail, f.Cause)
		}
	})
}

func TestDeadlineCountsFromRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		p := newProducer()
		p.killOnCancel()
		start := timedStart(p, 5*time.Second)
		run := start.Run
		start.Run = func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			time.Sleep(3 * time.Second) // a slow starter does not eat into the deadline
			return run(ctx, job)
		}
		snap := mustStart(t, r, start)
		time.Sleep(5*time.Second - time.Millisecond)
		synctest.Wait()
		if got := mustGet(t, r, "s", snap.ID).Status; got != jobs.JobStatusRunning {
			t.Fatalf("%s before its deadline; want running", got)
		}
		time.Sleep(time.Millisecond)
		if got := waitSettled(t, r, "s", snap.ID); got.Status != jobs.JobStatusKilled {
			t.Fatalf("settled %s; want killed at the deadline", got.Status)
		}
	})
}

func TestNegativeTimeoutIsAnInvalidStart(t *testing.T) {
	r := registry.New()
	_, err := r.Start(t.Context(), timedStart(newProducer(), -time.Second))
	if !errors.Is(err, registry.ErrInvalidStart) || !strings.Contains(err.Error(), "timeout -1s is negative") {
		t.Fatalf("Start = %v; want ErrInvalidStart naming the timeout", err)
	}
}
