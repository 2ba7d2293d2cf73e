package registry_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A queuedStart is one StartWait running on a goroutine of its own.
type queuedStart struct {
	p    *producer
	done chan struct{}
	snap jobs.JobSnapshot
	err  error
}

// startWaiting calls StartWait for owner on a new goroutine and returns once
// it is blocked (queued or admitted): the bubble's goroutines run in the
// order this is called, which is the queue's order.
func startWaiting(t *testing.T, ctx context.Context, r *registry.Registry, owner jobs.SessionID, kind string) *queuedStart {
	t.Helper()
	q := &queuedStart{p: newProducer().killOnCancel(), done: make(chan struct{})}
	go func() {
		defer close(q.done)
		q.snap, q.err = r.StartWait(ctx, plainStart(owner, kind, q.p))
	}()
	synctest.Wait()
	return q
}

func (q *queuedStart) returned() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

func TestStartWaitWaitsForAFreedSlotInsteadOfFailing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, first := oneSlotTaken(t)
		if _, err := r.Start(t.Context(), plainStart("s", "bash", newProducer().killOnCancel())); !errors.Is(err, registry.ErrTooManyJobs) {
			t.Fatalf("Start with every slot taken = %v; want ErrTooManyJobs", err)
		}

		q := startWaiting(t, t.Context(), r, "s", "bash")
		time.Sleep(time.Hour)
		synctest.Wait()
		if q.returned() {
			t.Fatalf("StartWait returned %v while the slot was taken", q.err)
		}
		first.finish(jobs.JobStatusCompleted, "", "")
		<-q.done
		if q.err != nil || q.snap.Status != jobs.JobStatusRunning || q.snap.Ordinal != 2 {
			t.Fatalf("StartWait = %+v, %v; want the job registered, bash-2", q.snap, q.err)
		}
	})
}

func TestStartWaitWithAFreeSlotStartsAtOnce(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	snap, err := r.StartWait(t.Context(), plainStart("s", "bash", newProducer().killOnCancel()))
	if err != nil || snap.Status != jobs.JobStatusRunning {
		t.Fatalf("StartWait = %s, %v; want running", snap.Status, err)
	}
}

func TestStartWaitAdmitsFirstComeFirstServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, running := oneSlotTaken(t)
		var queue []*queuedStart
		for i := range 4 {
			queue = append(queue, startWaiting(t, t.Context(), r, "s", fmt.Sprintf("w%d", i)))
		}
		var order []string
		for range queue {
			running.finish(jobs.JobStatusCompleted, "", "")
			synctest.Wait()
			var admitted []*queuedStart
			for _, q := range queue {
				if q.returned() && !slices.Contains(order, q.snap.Kind) {
					admitted = append(admitted, q)
				}
			}
			if len(admitted) != 1 || admitted[0].err != nil {
				t.Fatalf("a freed slot admitted %d waiters; want exactly one", len(admitted))
			}
			order = append(order, admitted[0].snap.Kind)
			running = admitted[0].p
		}
		if want := []string{"w0", "w1", "w2", "w3"}; !slices.Equal(order, want) {
			t.Fatalf("admitted in order %v; want %v", order, want)
		}
	})
}

func TestStartCannotTakeASlotFromAWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
		defer closeRegistry(t, r)
		var face jobs.RunningJob
		mustStart(t, r, jobs.PlainJobStart{
			JobStartCommon: common("s", "bash"),
			Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
				face = job
				return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
			},
		})
		q := startWaiting(t, t.Context(), r, "s", "queued")
		face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
		// The waiter has not run yet, but the slot is already its.
		if _, err := r.Start(t.Context(), plainStart("s", "barger", newProducer().killOnCancel())); !errors.Is(err, registry.ErrTooManyJobs) {
			t.Fatalf("Start after the settlement = %v; want ErrTooManyJobs (the freed slot went to the waiter)", err)
		}
		<-q.done
		if q.err != nil {
			t.Fatalf("the waiter failed: %v", q.err)
		}
	})
}

func TestStartWaitWhoseContextEndsLeavesTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, running := oneSlotTaken(t)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		impatient := startWaiting(t, ctx, r, "s", "impatient")
		patient := startWaiting(t, t.Context(), r, "s", "patient")

		time.Sleep(time.Second)
		<-impatient.done
		if !errors.Is(impatient.err, context.DeadlineExceeded) || !errors.Is(impatient.err, registry.ErrTooManyJobs) {
			t.Fatalf("the impatient waiter got %v; want its context's error and ErrTooManyJobs", impatient.err)
		}
		running.finish(jobs.JobStatusCompleted, "", "")
		<-patient.done
		if patient.err != nil || patient.snap.Kind != "patient" {
			t.Fatalf("the next waiter got %v; want the freed slot", patient.err)
		}
	})
}

// A slot handed to a waiter whose context ends at that moment is passed on,
// not lost: the next waiter gets it.
func TestStartWaitPassesOnASlotItCannotUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, running := oneSlotTaken(t)
		ctx, cancel := context.WithCancel(t.Context())
		gone := startWaiting(t, ctx, r, "s", "gone")
		next := startWaiting(t, t.Context(), r, "s", "next")
		running.finish(jobs.JobStatusCompleted, "", "")
		cancel()
		<-gone.done
		<-next.done
		if gone.err == nil && next.err == nil {
			t.Fatal("both waiters were admitted into one slot")
		}
		if next.err != nil {
			t.Fatalf("the next waiter got %v; want the slot its predecessor could not use", next.err)
		}
	})
}

// A waiter admitted whose starter fails gives the slot to the next one.
func TestStartWaitWhoseStarterFailsPassesTheSlotOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, running := oneSlotTaken(t)
		failing := make(chan error, 1)
		go func() {
			_, err := r.StartWait(t.Context(), jobs.PlainJobStart{
				JobStartCommon: common("s", "broken"),
				Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
					return jobs.Hooks{}, errors.New("no binary")
				},
			})
			failing <- err
		}()
		synctest.Wait()
		next := startWaiting(t, t.Context(), r, "s", "next")
		running.finish(jobs.JobStatusCompleted, "", "")
		if err := <-failing; err == nil {
			t.Fatal("the broken start registered")
		}
		<-next.done
		if next.err != nil {
			t.Fatalf("the next waiter got %v; want the slot the failed start gave back", next.err)
		}
	})
}

func TestStartWaitQueuesPerOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := oneSlotTaken(t)
		waiting := startWaiting(t, t.Context(), r, "s", "bash")
		other := startWaiting(t, t.Context(), r, "t", "bash")
		if !other.returned() || other.err != nil {
			t.Fatalf("another owner's StartWait waited or failed (%v); its slots are free", other.err)
		}
		if waiting.returned() {
			t.Fatal("the full owner's waiter was admitted by another owner's start")
		}
		if err := r.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCloseWakesSlotWaitersWithErrClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := oneSlotTaken(t)
		q1 := startWaiting(t, t.Context(), r, "s", "a")
		q2 := startWaiting(t, t.Context(), r, "s", "b")
		if err := r.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		<-q1.done
		<-q2.done
		if !errors.Is(q1.err, registry.ErrClosed) || !errors.Is(q2.err, registry.ErrClosed) {
			t.Fatalf("waiters got %v and %v; want ErrClosed", q1.err, q2.err)
		}
		if len(q1.p.cancelReasons())+len(q2.p.cancelReasons()) != 0 {
			t.Fatal("a waiter's starter ran on a closed registry")
		}
	})
}

// oneSlotTaken is a registry that admits one job per owner, with owner
// "s"'s slot taken by a running bash job whose producer it returns. The
// registry is closed when the test ends.
func oneSlotTaken(t *testing.T) (*registry.Registry, *producer) {
	t.Helper()
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	t.Cleanup(func() { closeRegistry(t, r) })
	running := newProducer().killOnCancel()
	mustStart(t, r, plainStart("s", "bash", running))
	return r, running
}

// closeRegistry tears a test's registry down, so no producer outlives its
// synctest bubble.
func closeRegistry(t *testing.T, r *registry.Registry) {
	t.Helper()
	if err := r.Close(context.Background()); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestWaitingShowsEachQueuedStartWithItsPlaceInLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, running := oneSlotTaken(t)
		start := time.Now().UnixMilli()
		startWaiting(t, t.Context(), r, "s", "w0")
		time.Sleep(time.Second)
		ctx, cancel := context.WithCancel(t.Context())
		leaver := startWaiting(t, ctx, r, "s", "w1")
		startWaiting(t, t.Context(), r, "s", "w2")

		got := r.Waiting("s")
		want := []registry.Waiter{
			{Owner: "s", Kind: "w0", Label: "w0 job", Since: start, Place: 1},
			{Owner: "s", Kind: "w1", Label: "w1 job", Since: start + 1000, Place: 2},
			{Owner: "s", Kind: "w2", Label: "w2 job", Since: start + 1000, Place: 3},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Waiting = %+v\nwant %+v", got, want)
		}
		if other := r.Waiting("other"); len(other) != 0 {
			t.Fatalf("another session sees %+v; the fence keeps a session's waiters its own", other)
		}

		cancel()
		<-leaver.done
		running.finish(jobs.JobStatusCompleted, "", "")
		synctest.Wait()
		got = r.Waiting("s")
		if len(got) != 1 || got[0].Kind != "w2" || got[0].Place != 1 {
			t.Fatalf("after one left and one was admitted, Waiting = %+v; want w2 first in line", got)
		}
	})
}
