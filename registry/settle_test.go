package registry_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func TestSettleWithProducerOutcome(t *testing.T) {
	clock := &fixedClock{t: time.UnixMilli(1_000)}
	r := registry.New(registry.WithClock(clock))
	p := newProducer()
	snap := mustStart(t, r, plainStart("", "bash", p))
	clock.set(time.UnixMilli(9_000))
	p.finish(jobs.JobStatusCompleted, "exit 0", "all done")
	got := waitSettled(t, r, "", snap.ID)
	if got.Status != jobs.JobStatusCompleted || got.Detail != "exit 0" || !got.ProducerReported ||
		got.StartedAt != 1_000 || got.FinishedAt != 9_000 {
		t.Fatalf("settled %+v; want completed, exit 0, producer-reported, started 1000, finished 9000", got)
	}
	res, err := r.Read("", snap.ID)
	if err != nil || res.Output != "all done" {
		t.Fatalf("Read = %+v, %v; want the outcome's output", res, err)
	}
}

func TestSettleWithoutDetailKeepsLastProgressLine(t *testing.T) {
	r := registry.New()
	p, face, snap := recordingBash(t, r, "")
	face.UpdateDetail("step 1")
	face.UpdateDetail("step 2")
	p.finish(jobs.JobStatusCompleted, "", "")
	if got := waitSettled(t, r, "", snap.ID).Detail; got != "step 2" {
		t.Fatalf("detail %q; want the last progress line", got)
	}
}

func TestSettleProducerFailureIsFailedUnreported(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result doneResult
		want   []string
	}{
		{"error", doneResult{err: errors.New("pipe closed")}, []string{"producer failed", "pipe closed"}},
		{"panic", doneResult{panic: "segfault-ish"}, []string{"producer failed", "segfault-ish"}},
		{"non-terminal status", doneResult{out: jobs.JobOutcome{Status: jobs.JobStatusRunning, Detail: "oops"}},
			[]string{`status "running"`, "not terminal", `"oops"`}},
		{"unknown status", doneResult{out: jobs.JobOutcome{Status: "exploded"}}, []string{`status "exploded"`, "not terminal"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, rec := recordedRegistry()
			p := newProducer()
			snap := mustStart(t, r, plainStart("s", "bash", p))
			p.results <- tt.result
			got := waitSettled(t, r, "s", snap.ID)
			if got.Status != jobs.JobStatusFailed || got.ProducerReported {
				t.Fatalf("settled %s producerReported=%v; want failed, false", got.Status, got.ProducerReported)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Detail, w) {
					t.Errorf("detail %q lacks %q", got.Detail, w)
				}
			}
			settled := rec.all()[1].(jobs.JobSettled)
			if settled.Status != jobs.JobStatusFailed || settled.ProducerReported || settled.Detail != got.Detail {
				t.Errorf("settled fact %+v disagrees with the snapshot", settled)
			}
		})
	}
}

func TestSettleFirstWins(t *testing.T) {
	r, rec := recordedRegistry()
	sig := watch(r)
	p := newProducer()
	p.cancelErr = errors.New("no such process")
	snap := mustStart(t, r, plainStart("s", "bash", p))
	// Teardown force-settles (its Cancel fails); the producer's later outcome loses.
	if err := r.Close(t.Context()); err == nil {
		t.Fatal("Close hid the cancel failure")
	}
	p.finish(jobs.JobStatusCompleted, "late", "")
	got := waitSettled(t, r, "s", snap.ID)
	if got.Status != jobs.JobStatusFailed || got.ProducerReported {
		t.Fatalf("settled %s producerReported=%v; want the forced failure to stand", got.Status, got.ProducerReported)
	}
	var settledFacts int
	for _, f := range rec.all() {
		if f.FactType() == jobs.JobSettledType {
			settledFacts++
		}
	}
	if settledFacts != 1 {
		t.Fatalf("%d settled facts; want exactly one", settledFacts)
	}
	if sig.done.Load() != 0 {
		t.Fatalf("done listeners fired %d times after Close stopped them", sig.done.Load())
	}
}

func TestSettledFactRepeatsRegistration(t *testing.T) {
	rec := &memRecorder{}
	clock := &fixedClock{t: time.UnixMilli(5_000)}
	r := registry.New(registry.WithRecorder(rec), registry.WithClock(clock))
	p := newProducer()
	start := plainStart("s", "bash", p)
	start.ToolCall = "call-1"
	snap := mustStart(t, r, start)
	clock.set(time.UnixMilli(7_000))
	p.finish(jobs.JobStatusCompleted, "ok", "")
	waitSettled(t, r, "s", snap.ID)

	facts := rec.all()
	if len(facts) != 2 {
		t.Fatalf("%d facts; want registered then settled", len(facts))
	}
	reg, settled := facts[0].(jobs.JobRegistered), facts[1].(jobs.JobSettled)
	want := jobs.JobSettled{JobID: snap.ID, At: 7_000, Status: jobs.JobStatusCompleted, Detail: "ok", ProducerReported: true,
		Registration: jobs.JobRegistration{RegisteredAt: reg.At, Owner: "s", Kind: "bash", Label: "bash job",
			Ordinal: 1, ToolCall: "call-1", Record: false}, Cause: jobs.SettlementCauseProducer}
	if settled != want || reg.At != 5_000 {
		t.Fatalf("settled fact %+v (registered at %d); want %+v", settled, reg.At, want)
	}
}

// TestSettlementOrder observes one settlement from the Recorder, a waiter and
// every kind of listener, and checks the order registry/doc.go promises: fact (job
// still looks live, record untrimmed) → trim → waiters released (reported,
// because a waiter exists) → jobs-changed → final output signal → done.
func TestSettlementOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			events         eventLog
			r              *registry.Registry
			id             jobs.JobID
			waiterReturned = make(chan struct{})
		)
		retained := func() int64 {
			rr, err := r.ReadRecord("s", id, 0)
			if err != nil {
				t.Errorf("ReadRecord: %v", err)
			}
			return rr.Next - rr.Earliest
		}
		rec := &memRecorder{hook: func(f jobs.Fact) {
			settled, ok := f.(jobs.JobSettled)
			if !ok {
				return
			}
			select {
			case <-waiterReturned:
				events.add("waiter released before the fact")
			default:
			}
			snap, _ := r.Get("s", id)
			events.add(fmt.Sprintf("fact %s; readers see %s; retained %d", settled.Status, snap.Status, retained()))
		}}
		r = registry.New(registry.WithRecorder(rec), registry.WithLimits(registry.Limits{SettledRetainBytes: 4}))
		p := newProducer()
		var face jobs.RecordingJob
		id = mustStart(t, r, recordingStart("s", "bash", p, &face)).ID
		face.Append("abcdefgh", jobs.AppendOptions{})

		r.OnJobsChanged(func() {
			select {
			case <-waiterReturned:
				events.add(fmt.Sprintf("jobs-changed after the waiter; retained %d", retained()))
			case <-time.After(time.Second):
				events.add("jobs-changed before the waiter was released")
			}
		})
		r.OnOutput(func(jobs.JobID) { events.add("output") })
		doneFired := make(chan struct{})
		r.OnJobDone(func(s jobs.JobSnapshot) {
			events.add(fmt.Sprintf("done %s reported=%v", s.Status, s.Reported))
			close(doneFired)
		})
		go func() {
			s, settled, err := r.Wait(context.Background(), "s", id, 0)
			events.add(fmt.Sprintf("waiter: settled=%v %s reported=%v err=%v", settled, s.Status, s.Reported, err))
			close(waiterReturned)
		}()
		synctest.Wait() // the waiter is waiting

		p.finish(jobs.JobStatusCompleted, "", "")
		select {
		case <-doneFired:
		case <-time.After(time.Minute): // fake time: passes only once everything is stuck
			t.Fatal("done listeners never ran")
		}

		want := []string{
			"fact completed; readers see running; retained 8",
			"waiter: settled=true completed reported=true err=<nil>",
			"jobs-changed after the waiter; retained 4",
			"output",
			"done completed reported=true",
		}
		if got := events.get(); !slices.Equal(got, want) {
			t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

func TestSettleMarksReportedOnlyWhenWaitersExist(t *testing.T) {
	r, p, snap := runningBash(t, "")
	var done jobs.JobSnapshot
	settled := make(chan struct{})
	r.OnJobDone(func(s jobs.JobSnapshot) { done = s; close(settled) })
	p.finish(jobs.JobStatusCompleted, "", "")
	<-settled
	if done.Reported || mustGet(t, r, "", snap.ID).Reported {
		t.Fatal("a settlement nobody waited for was marked reported")
	}
}

func TestSettleTrimsRecordToSettledRetain(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{SettledRetainBytes: 4}))
	p, face, snap := recordingBash(t, r, "")
	sig := watch(r)
	settled := settledSignal(t, r, snap.ID)
	face.Append("abcdefgh", jobs.AppendOptions{})
	p.finish(jobs.JobStatusCompleted, "", "")
	settled()

	rec, err := r.ReadRecord("", snap.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []jobs.RecordChunk{{Offset: 4, Text: "efgh", GapBefore: true, At: rec.Chunks[0].At}}
	if !slices.Equal(rec.Chunks, want) || rec.Earliest != 4 || rec.Next != 8 || !rec.Lossy {
		t.Fatalf("record %+v; want one chunk at 4 \"efgh\" gapBefore, earliest 4, next 8, lossy", rec)
	}
	if n := sig.output.Load(); n != 2 {
		t.Fatalf("%d output signals; want exactly two (the append and the settlement)", n)
	}
}

func TestSettlePlainJobSendsNoOutputSignal(t *testing.T) {
	r := registry.New()
	sig := watch(r)
	p := newProducer()
	snap := mustStart(t, r, plainStart("", "bash", p))
	settled := settledSignal(t, r, snap.ID)
	p.finish(jobs.JobStatusCompleted, "", "")
	settled()
	if n := sig.output.Load(); n != 0 {
		t.Fatalf("%d output signals for a plain job; want none", n)
	}
}

func TestSettleDropsLateWrites(t *testing.T) {
	logger, logs := newLogger()
	r := registry.New(registry.WithLogger(logger))
	p, face, snap := recordingBash(t, r, "")
	face.Append("kept", jobs.AppendOptions{})
	settled := settledSignal(t, r, snap.ID)
	p.finish(jobs.JobStatusCompleted, "final", "")
	settled()
	sig := watch(r)

	face.Append("late", jobs.AppendOptions{})
	face.UpdateDetail("late detail")
	face.Append("later", jobs.AppendOptions{})

	got := mustGet(t, r, "", snap.ID)
	if got.Detail != "final" || got.OutputBytes != 4 {
		t.Fatalf("after late writes: detail %q, %d bytes; want final, 4", got.Detail, got.OutputBytes)
	}
	if sig.changed.Load()+sig.output.Load() != 0 {
		t.Fatal("late writes fired signals")
	}
	if n := strings.Count(logs.String(), "after settlement dropped"); n != 1 {
		t.Fatalf("logged %d late writes; want the first one logged:\n%s", n, logs)
	}
}

func TestSettleRecorderFailureIsContained(t *testing.T) {
	for _, tt := range []struct {
		name string
		rec  *memRecorder
		want string
	}{
		{"error", &memRecorder{err: errors.New("disk full")}, "disk full"},
		{"panic", &memRecorder{panic: "journal bug"}, "journal bug"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logger, logs := newLogger()
			r := registry.New(registry.WithRecorder(tt.rec), registry.WithLogger(logger))
			p := newProducer()
			snap := mustStart(t, r, plainStart("s", "bash", p))
			if got := mustGet(t, r, "s", snap.ID).Status; got != jobs.JobStatusRunning {
				t.Fatalf("job is %s after a failed registered fact; want running", got)
			}
			p.finish(jobs.JobStatusCompleted, "", "")
			if got := waitSettled(t, r, "s", snap.ID); got.Status != jobs.JobStatusCompleted {
				t.Fatalf("settled %s; want completed", got.Status)
			}
			if n := strings.Count(logs.String(), tt.want); n != 2 {
				t.Fatalf("logged %q %d times; want both facts' failures:\n%s", tt.want, n, logs)
			}
			// The slot came back.
			if _, err := r.Start(t.Context(), plainStart("s", "bash", newProducer())); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSettledFactNamesItsCause runs each settlement source once and reads the
// cause the settled fact records.
func TestSettledFactNamesItsCause(t *testing.T) {
	cases := []struct {
		name  string
		run   func(t *testing.T, r *registry.Registry, p *producer, id jobs.JobID)
		setup func(p *producer)
		want  jobs.SettlementCause
	}{
		{"producer", func(t *testing.T, r *registry.Registry, p *producer, id jobs.JobID) {
			p.finish(jobs.JobStatusCompleted, "", "")
		}, nil, jobs.SettlementCauseProducer},
		{"producer failure", func(t *testing.T, r *registry.Registry, p *producer, id jobs.JobID) {
			p.results <- doneResult{err: errors.New("crashed")}
		}, nil, jobs.SettlementCauseProducer},
		{"kill", func(t *testing.T, r *registry.Registry, p *producer, id jobs.JobID) {
			if _, err := r.Kill("s", id, "enough"); err != nil {
				t.Fatal(err)
			}
		}, func(p *producer) { p.killOnCancel() }, jobs.SettlementCauseKill},
		{"teardown", func(t *testing.T, r *registry.Registry, p *producer, id jobs.JobID) {
			r.DisposeOwner(context.Background(), "s")
		}, func(p *producer) { p.killOnCancel() }, jobs.SettlementCauseTeardown},
		{"cancel failure", func(t *testing.T, r *registry.Registry, p *producer, id jobs.JobID) {
			r.DisposeOwner(context.Background(), "s")
		}, func(p *producer) { p.cancelErr = errors.New("no such process") }, jobs.SettlementCauseCancelFailure},
		{"teardown bound", func(t *testing.T, r *registry.Registry, p *producer, id jobs.JobID) {
			r.DisposeOwner(context.Background(), "s") // the producer ignores Cancel
		}, nil, jobs.SettlementCauseTeardownBound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, rec := recordedRegistry()
				p := newProducer()
				if c.setup != nil {
					c.setup(p)
				}
				snap := mustStart(t, r, plainStart("s", "bash", p))
				c.run(t, r, p, snap.ID)
				synctest.Wait()
				facts := rec.all()
				settled, ok := facts[len(facts)-1].(jobs.JobSettled)
				if !ok || settled.Cause != c.want {
					t.Fatalf("last fact %+v; want a settled fact with cause %s", facts[len(facts)-1], c.want)
				}
				select {
				case p.results <- doneResult{out: jobs.JobOutcome{Status: jobs.JobStatusCompleted}}:
				default:
				}
			})
		})
	}
}
