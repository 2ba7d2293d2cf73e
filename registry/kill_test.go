package registry_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func TestKillCancelsFirstThenStops(t *testing.T) {
	r, p, snap := runningBash(t, "s")
	var statusDuringCancel jobs.JobStatus
	p.onCancel = func(string) { statusDuringCancel = mustGet(t, r, "s", snap.ID).Status }
	sig := watch(r)

	res, err := r.Kill("s", snap.ID, "user asked")
	if err != nil || res != registry.KillRequested {
		t.Fatalf("Kill = %v, %v; want requested", res, err)
	}
	if got := p.cancelReasons(); !slices.Equal(got, []string{"user asked"}) {
		t.Fatalf("Cancel got %v; want the reason", got)
	}
	if statusDuringCancel != jobs.JobStatusRunning {
		t.Fatalf("during Cancel the job was %s; want running (Cancel comes first)", statusDuringCancel)
	}
	if got := mustGet(t, r, "s", snap.ID).Status; got != jobs.JobStatusStopping {
		t.Fatalf("after Kill the job is %s; want stopping", got)
	}
	if n := sig.changed.Load(); n != 1 {
		t.Fatalf("%d jobs-changed signals; want one for stopping", n)
	}
	// A second kill asks again but moves nothing.
	if res, err := r.Kill("s", snap.ID, "again"); err != nil || res != registry.KillRequested || sig.changed.Load() != 1 {
		t.Fatalf("second Kill = %v, %v with %d signals", res, err, sig.changed.Load())
	}
}

func TestKillMergesReasonIntoKilledSettlement(t *testing.T) {
	for _, tt := range []struct {
		name           string
		progress       string
		outcome        jobs.JobOutcome
		status         jobs.JobStatus
		detail         string
		producerReport bool
	}{
		{"killed keeps progress line", "step 3", jobs.JobOutcome{Status: jobs.JobStatusKilled}, jobs.JobStatusKilled, "step 3; user asked", true},
		{"killed with detail", "step 3", jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: "interrupted"}, jobs.JobStatusKilled, "interrupted; user asked", true},
		{"killed without any detail", "", jobs.JobOutcome{Status: jobs.JobStatusKilled}, jobs.JobStatusKilled, "user asked", true},
		{"failure after kill is the kill", "", jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "exit 137"}, jobs.JobStatusKilled, "exit 137; user asked", true},
		{"completion wins the race", "", jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "exit 0"}, jobs.JobStatusCompleted, "exit 0", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, rec := recordedRegistry()
			p, face, snap := recordingBash(t, r, "s")
			if tt.progress != "" {
				face.UpdateDetail(tt.progress)
			}
			if _, err := r.Kill("s", snap.ID, "user asked"); err != nil {
				t.Fatal(err)
			}
			p.results <- doneResult{out: tt.outcome}
			got := waitSettled(t, r, "s", snap.ID)
			if got.Status != tt.status || got.Detail != tt.detail || got.ProducerReported != tt.producerReport {
				t.Fatalf("settled %s %q reported=%v; want %s %q %v", got.Status, got.Detail, got.ProducerReported,
					tt.status, tt.detail, tt.producerReport)
			}
			if f := rec.all()[1].(jobs.JobSettled); f.Status != tt.status || f.Detail != tt.detail {
				t.Fatalf("settled fact %s %q disagrees", f.Status, f.Detail)
			}
		})
	}
}

func TestKillFailingCancelLeavesJobRunning(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	p := newProducer()
	cancelErr := errors.New("permission denied")
	p.cancelErr = cancelErr
	snap := mustStart(t, r, plainStart("s", "bash", p))
	sig := watch(r)

	res, err := r.Kill("s", snap.ID, "stop")
	if !errors.Is(err, cancelErr) || res != 0 {
		t.Fatalf("Kill = %v, %v; want the cancel error", res, err)
	}
	if got := mustGet(t, r, "s", snap.ID); got.Status != jobs.JobStatusRunning {
		t.Fatalf("job is %s; want running, untouched", got.Status)
	}
	if sig.changed.Load() != 0 {
		t.Fatal("a failed kill fired jobs-changed")
	}
	if _, err := r.Start(t.Context(), plainStart("s", "bash", newProducer())); !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("the running job lost its slot: Start = %v", err)
	}
	// The failed kill left no stop behind: a later failure is not a kill.
	p.finish(jobs.JobStatusFailed, "exit 1", "")
	if got := waitSettled(t, r, "s", snap.ID); got.Status != jobs.JobStatusFailed || got.Detail != "exit 1" {
		t.Fatalf("settled %s %q; want failed \"exit 1\"", got.Status, got.Detail)
	}
}

func TestKillPanickingCancelIsAnError(t *testing.T) {
	r := registry.New()
	p := newProducer()
	p.onCancel = func(string) { panic("cancel bug") }
	snap := mustStart(t, r, plainStart("", "bash", p))
	if _, err := r.Kill("", snap.ID, "stop"); err == nil {
		t.Fatal("a panicking Cancel reported success")
	}
	if got := mustGet(t, r, "", snap.ID).Status; got != jobs.JobStatusRunning {
		t.Fatalf("job is %s; want running", got)
	}
}

func TestKillAlreadyFinished(t *testing.T) {
	r, p, snap := runningBash(t, "")
	p.finish(jobs.JobStatusCompleted, "", "")
	waitSettled(t, r, "", snap.ID)
	res, err := r.Kill("", snap.ID, "too late")
	if err != nil || res != registry.KillAlreadyFinished {
		t.Fatalf("Kill = %v, %v; want already-finished", res, err)
	}
	if len(p.cancelReasons()) != 0 {
		t.Fatal("Kill of a settled job called Cancel")
	}
	if res.String() != "already-finished" || registry.KillRequested.String() != "requested" {
		t.Fatalf("KillResult strings %q, %q", res, registry.KillRequested)
	}
}

// TestKillDuringSettlementWaitsAndFindsItFinished kills a job whose
// settlement is deciding (its fact is being recorded): Kill must not cancel
// it, and must answer only once the settlement is visible.
func TestKillDuringSettlementWaitsAndFindsItFinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, inRecord, release := blockingRecorder(jobs.JobSettledType)
		r := registry.New(registry.WithRecorder(rec))
		p := newProducer()
		snap := mustStart(t, r, plainStart("s", "bash", p))
		p.finish(jobs.JobStatusCompleted, "", "")
		<-inRecord

		type result struct {
			res registry.KillResult
			err error
		}
		killed := make(chan result, 1)
		go func() {
			res, err := r.Kill("s", snap.ID, "stop")
			killed <- result{res, err}
		}()
		synctest.Wait()
		select {
		case got := <-killed:
			t.Fatalf("Kill answered %v, %v before the settlement was visible", got.res, got.err)
		default:
		}
		close(release)
		got := <-killed
		if got.err != nil || got.res != registry.KillAlreadyFinished || len(p.cancelReasons()) != 0 {
			t.Fatalf("Kill = %v, %v with cancels %v; want already-finished without Cancel", got.res, got.err, p.cancelReasons())
		}
		if s := mustGet(t, r, "s", snap.ID); s.Status != jobs.JobStatusCompleted {
			t.Fatalf("job is %s; want completed", s.Status)
		}
	})
}

// TestKillProducerReportingInsideCancelSettlesKilled: a kill asks the
// producer to stop when it calls Cancel, so a producer that reports failed
// while its Cancel is still running (it signals its process, which exits,
// and waits a moment before returning) is the kill's doing: it settles
// killed with the reason merged, caused by the kill. Found by
// proptest.TestRegistryMachine.
func TestKillProducerReportingInsideCancelSettlesKilled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, rec := recordedRegistry()
		p := newProducer()
		p.onCancel = func(string) {
			p.finish(jobs.JobStatusFailed, "exit 137", "")
			time.Sleep(time.Millisecond) // the job settles before Cancel returns
		}
		snap := mustStart(t, r, plainStart("s", "bash", p))
		if res, err := r.Kill("s", snap.ID, "user asked"); err != nil || res != registry.KillRequested {
			t.Fatalf("Kill = %v, %v; want requested", res, err)
		}
		got := mustGet(t, r, "s", snap.ID)
		if got.Status != jobs.JobStatusKilled || got.Detail != "exit 137; user asked" {
			t.Fatalf("settled %s %q; want killed \"exit 137; user asked\"", got.Status, got.Detail)
		}
		if f := rec.all()[1].(jobs.JobSettled); f.Status != jobs.JobStatusKilled || f.Cause != jobs.SettlementCauseKill {
			t.Fatalf("settled fact %s caused by %s; want killed by the kill", f.Status, f.Cause)
		}
	})
}

// TestKillFailingCancelWithdrawsTheStop: a kill whose Cancel fails leaves
// no stop behind, unless another kill's Cancel succeeded meanwhile: the
// request stands while any kill's Cancel is in flight, and only a Cancel
// that fails last withdraws it.
func TestKillFailingCancelWithdrawsTheStop(t *testing.T) {
	for _, tt := range []struct {
		name   string
		second error // the second kill's Cancel, made while the first one's runs
		want   jobs.JobStatus
	}{
		{"both fail", errors.New("busy"), jobs.JobStatusFailed},
		{"the second succeeds", nil, jobs.JobStatusKilled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := registry.New()
				p := newProducer()
				firstAnswer := make(chan error)
				var calls atomic.Int32
				start := plainStart("s", "bash", p)
				start.Run = func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
					return jobs.Hooks{Done: p.hooks().Done, Cancel: func(string) error {
						if calls.Add(1) == 1 {
							return <-firstAnswer
						}
						return tt.second
					}}, nil
				}
				snap := mustStart(t, r, start)
				first := make(chan error, 1)
				go func() {
					_, err := r.Kill("s", snap.ID, "first")
					first <- err
				}()
				synctest.Wait()
				if _, err := r.Kill("s", snap.ID, "second"); (err == nil) != (tt.second == nil) {
					t.Fatalf("second Kill = %v; want its Cancel's answer %v", err, tt.second)
				}
				firstAnswer <- errors.New("permission denied")
				if err := <-first; err == nil {
					t.Fatal("the first kill hid its Cancel failure")
				}
				p.finish(jobs.JobStatusFailed, "exit 1", "")
				if got := waitSettled(t, r, "s", snap.ID); got.Status != tt.want {
					t.Fatalf("settled %s %q; want %s", got.Status, got.Detail, tt.want)
				}
			})
		})
	}
}

// A kill hands the job's end to its caller, so the job is reported from the
// kill on (registry/doc.go, "Lifecycle"), and stays so once it settles; a
// kill whose Cancel fails withdraws that with its request.
func TestKillMarksTheJobReported(t *testing.T) {
	r, p, snap := runningBash(t, "s")
	if _, err := r.Kill("s", snap.ID, "user asked"); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, r, "s", snap.ID); got.Status != jobs.JobStatusStopping || !got.Reported {
		t.Fatalf("after Kill: %s reported=%v; want stopping and reported", got.Status, got.Reported)
	}
	done := settledSignal(t, r, snap.ID)
	p.finish(jobs.JobStatusKilled, "", "")
	done()
	if got := mustGet(t, r, "s", snap.ID); got.Status != jobs.JobStatusKilled || !got.Reported {
		t.Fatalf("settled: %s reported=%v; want killed and reported", got.Status, got.Reported)
	}
}

func TestKillWhoseCancelFailsDoesNotMarkReported(t *testing.T) {
	r := registry.New()
	p := newProducer()
	p.cancelErr = errors.New("no such process")
	snap := mustStart(t, r, plainStart("s", "bash", p))
	if _, err := r.Kill("s", snap.ID, "user asked"); err == nil {
		t.Fatal("Kill succeeded; want the Cancel's error")
	}
	if got := mustGet(t, r, "s", snap.ID); got.Reported {
		t.Fatal("a kill whose Cancel failed marked the job reported")
	}
}

func TestKillOfAProducerSettlingInsideCancelMarksReported(t *testing.T) {
	r := registry.New()
	p := newProducer().killOnCancel()
	snap := mustStart(t, r, plainStart("s", "bash", p))
	done := settledSignal(t, r, snap.ID)
	if _, err := r.Kill("s", snap.ID, "user asked"); err != nil {
		t.Fatal(err)
	}
	done() // not Wait, which would mark the job reported itself
	if got := mustGet(t, r, "s", snap.ID); got.Status != jobs.JobStatusKilled || !got.Reported {
		t.Fatalf("%s reported=%v; want killed and reported", got.Status, got.Reported)
	}
}
