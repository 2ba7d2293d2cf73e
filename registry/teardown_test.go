package registry_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func TestDisposeOwnerTearsDownOnlyThatOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		mine, theirs, unowned := newProducer(), newProducer(), newProducer()
		// The producer ends 2 s after it is asked to stop.
		mine.onCancel = func(string) {
			go func() { time.Sleep(2 * time.Second); mine.finish(jobs.JobStatusKilled, "", "") }()
		}
		a := mustStart(t, r, plainStart("a", "bash", mine))
		b := mustStart(t, r, plainStart("b", "bash", theirs))
		u := mustStart(t, r, plainStart("", "bash", unowned))
		var settledA latest[jobs.JobSnapshot]
		r.OnJobDone(func(s jobs.JobSnapshot) {
			if s.ID == a.ID {
				settledA.set(s)
			}
		})
		var changes atomic.Int64
		r.OnJobsChanged(func() { changes.Add(1) })

		begin := time.Now()
		if err := r.DisposeOwner(t.Context(), "a"); err != nil {
			t.Fatalf("DisposeOwner: %v", err)
		}
		if waited := time.Since(begin); waited != 2*time.Second {
			t.Fatalf("DisposeOwner returned after %v; want it to wait the producer's 2s", waited)
		}
		synctest.Wait() // the settlement's listeners run after its waiters are released
		if got := mine.cancelReasons(); !slices.Equal(got, []string{"session disposed"}) {
			t.Fatalf("Cancel got %v", got)
		}
		if s := settledA.get(); s.Status != jobs.JobStatusKilled || s.Detail != "session disposed" || !s.Reported || !s.ProducerReported {
			t.Fatalf("settled %+v; want killed by the disposal, reported, producer-reported", s)
		}
		// stopping, settlement, removal
		if n := changes.Load(); n != 3 {
			t.Fatalf("%d jobs-changed signals; want 3 (stopping, settlement, removal)", n)
		}
		if _, err := r.Get("a", a.ID); !errors.Is(err, registry.ErrUnknownJob) {
			t.Fatalf("Get of a disposed job = %v; want ErrUnknownJob", err)
		}
		for _, other := range []struct {
			caller jobs.SessionID
			snap   jobs.JobSnapshot
			p      *producer
		}{{"b", b, theirs}, {"", u, unowned}} {
			if got := mustGet(t, r, other.caller, other.snap.ID); got.Status != jobs.JobStatusRunning || got.Reported || len(other.p.cancelReasons()) != 0 {
				t.Fatalf("another owner's job was touched: %+v", got)
			}
		}
		if err := r.DisposeOwner(t.Context(), ""); err == nil {
			t.Fatal("DisposeOwner of the empty session succeeded; unowned jobs end with Close")
		}
		theirs.finish(jobs.JobStatusCompleted, "", "")
		unowned.finish(jobs.JobStatusCompleted, "", "")
	})
}

func TestTeardownCancelFailureForceSettlesWithoutWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, rec := recordedRegistry()
		p := newProducer()
		p.cancelErr = errors.New("boom")
		mustStart(t, r, plainStart("a", "bash", p))
		var settled latest[jobs.JobSnapshot]
		r.OnJobDone(settled.set)

		begin := time.Now()
		err := r.DisposeOwner(t.Context(), "a")
		if err == nil || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("DisposeOwner = %v; want the cancel failure", err)
		}
		if time.Since(begin) != 0 {
			t.Fatalf("DisposeOwner waited %v for a producer whose Cancel failed", time.Since(begin))
		}
		synctest.Wait()
		done := settled.get()
		want := "cancel failed during teardown; work may be orphaned: boom"
		if done.Status != jobs.JobStatusFailed || done.ProducerReported || done.Detail != want {
			t.Fatalf("settled %s reported=%v %q; want failed, false, %q", done.Status, done.ProducerReported, done.Detail, want)
		}
		if f := rec.all()[1].(jobs.JobSettled); f.ProducerReported || f.Detail != want {
			t.Fatalf("settled fact %+v", f)
		}
		p.finish(jobs.JobStatusCompleted, "", "") // the producer's late word is ignored
		synctest.Wait()
		if n := len(rec.all()); n != 2 {
			t.Fatalf("%d facts; want registered and one settled", n)
		}
	})
}

func TestTeardownForceSettlesAtBound(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit time.Duration
		want  time.Duration
	}{
		{"default bound", 0, jobs.DefaultTeardownBound},
		{"configured bound", 1500 * time.Millisecond, 1500 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := registry.New(registry.WithLimits(registry.Limits{TeardownBound: tt.limit}))
				stuck, polite := newProducer(), newProducer().killOnCancel()
				s1 := mustStart(t, r, plainStart("", "bash", stuck)) // ignores Cancel
				s2 := mustStart(t, r, plainStart("", "bash", polite))

				begin := time.Now()
				err := r.Close(t.Context())
				if waited := time.Since(begin); waited != tt.want {
					t.Fatalf("Close returned after %v; want exactly the bound %v", waited, tt.want)
				}
				if err == nil || !strings.Contains(err.Error(), "bash-1") || !strings.Contains(err.Error(), "force-settled") {
					t.Fatalf("Close = %v; want it to name the force-settled job", err)
				}
				got := mustGet(t, r, "", s1.ID)
				if got.Status != jobs.JobStatusFailed || got.ProducerReported || !strings.Contains(got.Detail, "teardown bound") {
					t.Fatalf("stuck job %+v; want failed at the bound, not producer-reported", got)
				}
				if got := mustGet(t, r, "", s2.ID); got.Status != jobs.JobStatusKilled || got.Detail != "registry closed" {
					t.Fatalf("polite job %+v; want killed by the close", got)
				}
				stuck.finish(jobs.JobStatusCompleted, "", "")
			})
		})
	}
}

func TestTeardownHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, p, snap := runningBash(t, "a")
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()

		begin := time.Now()
		err := r.DisposeOwner(ctx, "a")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(begin) != time.Second {
			t.Fatalf("DisposeOwner = %v after %v; want the deadline after 1s", err, time.Since(begin))
		}
		// Disposal still force-settled and removed the job.
		if _, err := r.Get("a", snap.ID); !errors.Is(err, registry.ErrUnknownJob) {
			t.Fatalf("Get = %v; want the job removed", err)
		}
		p.finish(jobs.JobStatusCompleted, "", "")
	})
}

func TestCloseStopsListenersAndRefusesStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New()
		sig := watch(r)
		p := newProducer().killOnCancel()
		var face jobs.RecordingJob
		snap := mustStart(t, r, recordingStart("", "bash", p, &face))
		before := sig.changed.Load()

		if err := r.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, r, "", snap.ID); got.Status != jobs.JobStatusKilled || !got.Reported {
			t.Fatalf("after Close the job is %+v; want killed and reported", got)
		}
		if sig.changed.Load() != before || sig.output.Load() != 0 || sig.done.Load() != 0 {
			t.Fatal("listeners fired during or after Close")
		}
		late := watch(r)
		if _, err := r.Start(t.Context(), plainStart("", "bash", newProducer())); !errors.Is(err, registry.ErrClosed) {
			t.Fatalf("Start after Close = %v; want ErrClosed", err)
		}
		if late.changed.Load() != 0 {
			t.Fatal("a listener subscribed after Close fired")
		}
		if err := r.Close(t.Context()); err != nil {
			t.Fatalf("second Close = %v", err)
		}
	})
}

// TestCloseWaitsForRegistrationInProgress closes while a start is recording
// its registered fact: Close must wait for that registration and tear the
// job down too, not return with it about to run.
func TestCloseWaitsForRegistrationInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, inRecord, release := blockingRecorder(jobs.JobRegisteredType)
		r := registry.New(registry.WithRecorder(rec))
		p := newProducer().killOnCancel()
		started := make(chan jobs.JobSnapshot, 1)
		go func() {
			snap, err := r.Start(context.Background(), plainStart("a", "bash", p))
			if err != nil {
				t.Errorf("Start: %v", err)
			}
			started <- snap
		}()
		<-inRecord

		closed := make(chan error, 1)
		go func() { closed <- r.Close(context.Background()) }()
		synctest.Wait()
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) while a registration was in progress", err)
		default:
		}
		close(release)
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		snap := <-started
		if got := mustGet(t, r, "a", snap.ID); got.Status != jobs.JobStatusKilled {
			t.Fatalf("job registered during Close is %s; want killed by it", got.Status)
		}
		if len(rec.all()) != 2 {
			t.Fatalf("%d facts; want registered then settled", len(rec.all()))
		}
		if got := p.cancelReasons(); !slices.Equal(got, []string{"registry closed"}) {
			t.Fatalf("Cancel calls %v; want exactly one", got)
		}
	})
}
