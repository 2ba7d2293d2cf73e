package registry

import (
	"context"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// The hot paths allocate exactly this much (a regression guard): a
// change that adds an allocation fails here, untimed, before any benchmark
// runs. Counts are per operation, measured with testing.AllocsPerRun; lower
// a bound when a change saves an allocation.
func TestHotPathAllocations(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}

	// start→settle of an owned plain job through its face, with a Recorder:
	// the job, its name, the two facts, and the JobStart boxed by the caller.
	t.Run("start-settle", func(t *testing.T) {
		r := New(WithRecorder(&benchRecorder{facts: make([]jobs.Fact, 0, 1<<16)}), WithLimits(Limits{MaxPerOwner: 1 << 30}))
		got := startSettleAllocs(t, r)
		// The map of jobs and the owner's list grow now and then; those
		// amortised allocations round to nothing per start.
		if got != 5 {
			t.Errorf("start→settle allocates %.1f times; want 5", got)
		}
	})

	// An Observer adds no allocation of its own: its events carry the kind,
	// status and cause the job already holds.
	t.Run("start-settle-observed", func(t *testing.T) {
		r := New(WithRecorder(&benchRecorder{facts: make([]jobs.Fact, 0, 1<<16)}), WithLimits(Limits{MaxPerOwner: 1 << 30}),
			WithObserver(&countingObserver{}))
		got := startSettleAllocs(t, r)
		if got != 5 {
			t.Errorf("observed start→settle allocates %.1f times; want 5, as unobserved", got)
		}
	})

	t.Run("append", func(t *testing.T) {
		r := New()
		face := startRecordingT(t, r)
		text := strings.Repeat("x", 64)
		for range 2 * jobs.DefaultRetainBytes / 64 { // the ring at its working size
			face.Append(text, jobs.AppendOptions{})
		}
		if got := testing.AllocsPerRun(1000, func() { face.Append(text, jobs.AppendOptions{Channel: jobs.ChannelStdout}) }); got != 0 {
			t.Errorf("Append of 64 B allocates %.1f times; want none", got)
		}
	})

	t.Run("read-record-into", func(t *testing.T) {
		r, id := hundredChunks(t)
		var buf recordBuffer
		if err := r.readRecordInto("", id, 0, &buf); err != nil { // grows buf
			t.Fatal(err)
		}
		if got := testing.AllocsPerRun(1000, func() { _ = r.readRecordInto("", id, 64, &buf) }); got != 0 {
			t.Errorf("readRecordInto allocates %.1f times; want none", got)
		}
	})

	// The owning read: the chunk slice and one string for all their text.
	t.Run("read-record", func(t *testing.T) {
		r, id := hundredChunks(t)
		if got := testing.AllocsPerRun(1000, func() { _, _ = r.ReadRecord("", id, 64) }); got != 2 {
			t.Errorf("ReadRecord allocates %.1f times; want 2", got)
		}
	})

	// List: one slice of snapshots.
	t.Run("list", func(t *testing.T) {
		r := New(WithLimits(Limits{MaxPerOwner: 100}))
		for range 10 {
			startRecordingT(t, r)
		}
		if got := testing.AllocsPerRun(1000, func() { _ = r.List("") }); got != 1 {
			t.Errorf("List allocates %.1f times; want 1", got)
		}
	})

	t.Run("idle-pump-round", func(t *testing.T) {
		p := newPump(&nopJob{}, []PumpSource{{Reader: emptySource{}}, {Reader: emptySource{}}})
		if got := testing.AllocsPerRun(1000, p.drain); got != 0 {
			t.Errorf("an idle pump round allocates %.1f times; want none", got)
		}
	})
}

// startRecordingT starts an unowned recording job that never ends.
func startRecordingT(t *testing.T, r *Registry) jobs.RecordingJob {
	t.Helper()
	var face jobs.RecordingJob
	if _, err := r.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "guard", Label: "record"},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			face = job
			return faceHooks, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	return face
}

type emptySource struct{}

func (emptySource) ReadFrom(offset int64) (string, int64, bool) { return "", offset, false }

type nopJob struct{}

func (nopJob) ID() jobs.JobID                    { return jobs.JobID{} }
func (nopJob) UpdateDetail(string)               {}
func (nopJob) Settle(jobs.JobOutcome, error)     {}
func (nopJob) Append(string, jobs.AppendOptions) {}

// A countingObserver counts events, as a metrics adapter's counters do.
type countingObserver struct{ started, settled, failed int }

func (o *countingObserver) JobStarted(string) { o.started++ }
func (o *countingObserver) JobSettled(string, jobs.JobStatus, jobs.SettlementCause) {
	o.settled++
}
func (o *countingObserver) FactRecordFailed(string) { o.failed++ }

// startSettleAllocs measures the allocations of one start→settle of an
// owned plain job through its face on r.
func startSettleAllocs(t *testing.T, r *Registry) float64 {
	t.Helper()
	var face jobs.RunningJob
	start := jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "guard", Label: "start-settle", Owner: "s"},
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			face = job
			return faceHooks, nil
		},
	}
	completed := jobs.JobOutcome{Status: jobs.JobStatusCompleted}
	return testing.AllocsPerRun(500, func() {
		if _, err := r.Start(context.Background(), start); err != nil {
			t.Fatal(err)
		}
		face.Settle(completed, nil)
	})
}

// hundredChunks is a new registry with an unowned recording job whose
// record holds 100 chunks of 64 B.
func hundredChunks(t *testing.T) (*Registry, jobs.JobID) {
	t.Helper()
	r := New()
	face := startRecordingT(t, r)
	for range 100 {
		face.Append(strings.Repeat("y", 64), jobs.AppendOptions{})
	}
	return r, face.ID()
}
