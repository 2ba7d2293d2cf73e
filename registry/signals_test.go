package registry_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// TestJobsChangedSignals counts jobs-changed through a job's whole life:
// registration, detail updates, stopping, settlement and removal fire it;
// appends never do.
func TestJobsChangedSignals(t *testing.T) {
	r := registry.New()
	sig := watch(r)
	p, face, snap := recordingBash(t, r, "")
	steps := []struct {
		name    string
		do      func()
		changed int64
		output  int64
	}{
		{"registration", func() {}, 1, 0},
		{"append", func() { face.Append("text", jobs.AppendOptions{}) }, 1, 1},
		{"empty append", func() { face.Append("", jobs.AppendOptions{}) }, 1, 1},
		{"detail", func() { face.UpdateDetail("step 1") }, 2, 1},
		{"same detail again", func() { face.UpdateDetail("step 1") }, 2, 1},
		{"stopping", func() {
			if _, err := r.Kill("", snap.ID, "stop"); err != nil {
				t.Fatal(err)
			}
		}, 3, 1},
		{"append while stopping", func() { face.Append("more", jobs.AppendOptions{}) }, 3, 2},
		{"settlement", func() {
			settled := settledSignal(t, r, snap.ID)
			p.finish(jobs.JobStatusKilled, "", "")
			settled()
		}, 4, 3},
		{"removal", func() {
			if err := r.Remove("", snap.ID); err != nil {
				t.Fatal(err)
			}
		}, 5, 3},
	}
	for _, s := range steps {
		s.do()
		if c, o := sig.changed.Load(), sig.output.Load(); c != s.changed || o != s.output {
			t.Fatalf("after %s: jobs-changed %d, output %d; want %d, %d", s.name, c, o, s.changed, s.output)
		}
	}
	if _, err := r.Get("", snap.ID); err == nil {
		t.Fatal("a removed job is still there")
	}
}

func TestRemoveRefusesLiveJob(t *testing.T) {
	r := registry.New()
	snap := mustStart(t, r, plainStart("", "bash", newProducer()))
	if err := r.Remove("", snap.ID); err == nil || !strings.Contains(err.Error(), "not settled") {
		t.Fatalf("Remove of a running job = %v; want a refusal", err)
	}
	mustGet(t, r, "", snap.ID)
}

func TestListenersAreContained(t *testing.T) {
	logger, logs := newLogger()
	r := registry.New(registry.WithLogger(logger))
	var calls eventLog
	r.OnJobsChanged(func() { calls.add("first"); panic("listener bug") })
	r.OnJobsChanged(func() { calls.add("second") })
	r.OnOutput(func(jobs.JobID) { panic("output listener bug") })
	r.OnOutput(func(jobs.JobID) { calls.add("output") })
	r.OnJobDone(func(jobs.JobSnapshot) { panic("done listener bug") })
	r.OnJobDone(func(jobs.JobSnapshot) { calls.add("done") })

	p, face, snap := recordingBash(t, r, "")
	face.Append("x", jobs.AppendOptions{})
	settled := settledSignal(t, r, snap.ID)
	p.finish(jobs.JobStatusCompleted, "", "")
	settled()

	for _, want := range []string{"first", "second", "output", "done"} {
		if calls.count(want) == 0 {
			t.Errorf("listener %q never ran after another panicked: %v", want, calls.get())
		}
	}
	for _, want := range []string{"listener bug", "output listener bug", "done listener bug"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("panic %q was not logged", want)
		}
	}
}

func TestUnsubscribe(t *testing.T) {
	r := registry.New()
	var n int
	stop := r.OnJobsChanged(func() { n++ })
	mustStart(t, r, plainStart("", "bash", newProducer()))
	stop()
	stop() // idempotent
	mustStart(t, r, plainStart("", "bash", newProducer()))
	if n != 1 {
		t.Fatalf("listener ran %d times; want once, before unsubscribing", n)
	}
}

// OnRemoved tells of every removal: Remove names its one job; DisposeOwner
// names the jobs it removed and that the session ended, also for a session
// that never had a job.
func TestOnRemovedTellsRemoveAndDisposeOwner(t *testing.T) {
	r := registry.New()
	var got []registry.Removal
	r.OnRemoved(func(rm registry.Removal) { got = append(got, rm) })
	p := newProducer()
	one := mustStart(t, r, plainStart("a", "bash", p))
	settled := settledSignal(t, r, one.ID)
	p.finish(jobs.JobStatusCompleted, "", "")
	settled()
	if err := r.Remove("a", one.ID); err != nil {
		t.Fatal(err)
	}
	q := newProducer()
	two := mustStart(t, r, plainStart("a", "bash", q))
	settled = settledSignal(t, r, two.ID)
	q.finish(jobs.JobStatusCompleted, "", "")
	settled()
	if err := r.DisposeOwner(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if err := r.DisposeOwner(context.Background(), "never-started"); err != nil {
		t.Fatal(err)
	}
	want := []registry.Removal{
		{Owner: "a", Jobs: []jobs.JobID{one.ID}},
		{Owner: "a", Jobs: []jobs.JobID{two.ID}, Disposed: true},
		{Owner: "never-started", Disposed: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("removals = %+v, want %+v", got, want)
	}
}
