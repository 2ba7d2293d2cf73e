package registry_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// embeddedStart satisfies jobs.JobStart by embedding a variant, but is not one.
type embeddedStart struct{ jobs.PlainJobStart }

func TestStartValidationRefusesBeforeAnything(t *testing.T) {
	var ran atomic.Int64
	run := func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
		ran.Add(1)
		return newProducer().hooks(), nil
	}
	valid := jobs.PlainJobStart{JobStartCommon: common("", "bash"), Run: run}
	withCommon := func(edit func(*jobs.JobStartCommon)) jobs.PlainJobStart {
		s := valid
		edit(&s.JobStartCommon)
		return s
	}
	var nilPlain *jobs.PlainJobStart
	var nilRecording *jobs.RecordingJobStart
	tests := []struct {
		name  string
		start jobs.JobStart
		want  string
	}{
		{"empty kind", withCommon(func(c *jobs.JobStartCommon) { c.Kind = "" }), "empty kind"},
		{"empty label", withCommon(func(c *jobs.JobStartCommon) { c.Label = "" }), "empty label"},
		{"negative output limit", withCommon(func(c *jobs.JobStartCommon) { c.OutputLimitBytes = -1 }), "not positive"},
		{"no run", jobs.PlainJobStart{JobStartCommon: common("", "bash")}, "no Run"},
		{"no run recording", &jobs.RecordingJobStart{JobStartCommon: common("", "bash")}, "no Run"},
		{"nil start", nil, "is not a"},
		{"nil plain pointer", nilPlain, "no Run"},
		{"nil recording pointer", nilRecording, "no Run"},
		{"foreign type", embeddedStart{valid}, "is not a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := &seqIDs{}
			sig := &signals{}
			r := registry.New(registry.WithIDs(ids.next))
			r.OnJobsChanged(func() { sig.changed.Add(1) })
			_, err := r.Start(t.Context(), tt.start)
			if !errors.Is(err, registry.ErrInvalidStart) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start = %v; want ErrInvalidStart mentioning %q", err, tt.want)
			}
			if ran.Load() != 0 || ids.n.Load() != 0 || sig.changed.Load() != 0 {
				t.Fatalf("a refused start ran the starter %d times, issued %d ids, fired %d signals",
					ran.Load(), ids.n.Load(), sig.changed.Load())
			}
			// No ordinal was consumed.
			snap := mustStart(t, r, plainStart("", "bash", newProducer()))
			if snap.Ordinal != 1 || snap.Name != "bash-1" {
				t.Fatalf("next start is %s (ordinal %d); want bash-1", snap.Name, snap.Ordinal)
			}
		})
	}
}

func TestStartAcceptsValuesAndPointers(t *testing.T) {
	r := registry.New()
	p := newProducer()
	var face jobs.RecordingJob
	plain, rec := plainStart("", "k", p), recordingStart("", "k", p, &face)
	for i, tt := range []struct {
		start  jobs.JobStart
		record bool
	}{{plain, false}, {&plain, false}, {rec, true}, {&rec, true}} {
		snap := mustStart(t, r, tt.start)
		if snap.Record != tt.record || snap.Ordinal != i+1 || snap.Status != jobs.JobStatusRunning {
			t.Errorf("start %d (%T): record %v ordinal %d status %s; want record %v ordinal %d running",
				i, tt.start, snap.Record, snap.Ordinal, snap.Status, tt.record, i+1)
		}
	}
}

func TestStartIssuesPerKindOrdinals(t *testing.T) {
	r := registry.New()
	var names []string
	for _, kind := range []string{"bash", "bash", "python", "bash", "python"} {
		snap := mustStart(t, r, plainStart("", kind, newProducer()))
		if want := snap.Kind + "-" + string(rune('0'+snap.Ordinal)); snap.Name != want {
			t.Errorf("Name %q does not join kind and ordinal (%q)", snap.Name, want)
		}
		names = append(names, snap.Name)
	}
	if want := []string{"bash-1", "bash-2", "python-1", "bash-3", "python-2"}; !slices.Equal(names, want) {
		t.Fatalf("names %v; want %v", names, want)
	}
}

func TestStartIssuesIDBeforeStarter(t *testing.T) {
	ids := &seqIDs{}
	clock := &fixedClock{t: time.UnixMilli(1_700_000_000_000)}
	r := registry.New(registry.WithIDs(ids.next), registry.WithClock(clock))
	var inside jobs.JobID
	snap := mustStart(t, r, jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "bash", Label: "ls", ToolCall: "call-1"},
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			inside = job.ID()
			clock.set(time.UnixMilli(1_700_000_000_500)) // registration happens after the starter
			return newProducer().hooks(), nil
		},
	})
	if inside != snap.ID || inside != (jobs.JobID{15: 1}) {
		t.Fatalf("starter saw id %v, snapshot has %v; want both the first issued id", inside, snap.ID)
	}
	if snap.StartedAt != 1_700_000_000_500 || snap.ToolCall != "call-1" || snap.Label != "ls" {
		t.Fatalf("snapshot %+v; want StartedAt at registration, the tool call and label", snap)
	}
}

func TestStartAdmissionLimitRefusesBeforeAnyID(t *testing.T) {
	ids := &seqIDs{}
	r := registry.New(registry.WithIDs(ids.next), registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	p1 := newProducer()
	first := mustStart(t, r, plainStart("s", "bash", p1))

	var ran atomic.Bool
	refused := plainStart("s", "bash", newProducer())
	refused.Run = func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
		ran.Store(true)
		return newProducer().hooks(), nil
	}
	_, err := r.Start(t.Context(), refused)
	if !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("second start = %v; want ErrTooManyJobs", err)
	}
	if ran.Load() || ids.n.Load() != 1 {
		t.Fatalf("refused start ran its starter (%v) or issued an id (%d ids issued)", ran.Load(), ids.n.Load())
	}

	p1.finish(jobs.JobStatusCompleted, "", "")
	waitSettled(t, r, "s", first.ID)
	again := mustStart(t, r, plainStart("s", "bash", newProducer()))
	if again.Ordinal != 2 || again.Name != "bash-2" {
		t.Fatalf("admitted after settlement as %s; want bash-2 (the refusal consumed no ordinal)", again.Name)
	}
}

func TestStartAdmissionStoppingJobHoldsSlot(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	p := newProducer()
	snap := mustStart(t, r, plainStart("s", "bash", p))
	if res, err := r.Kill("s", snap.ID, "stop"); err != nil || res != registry.KillRequested {
		t.Fatalf("Kill = %v, %v", res, err)
	}
	if got := mustGet(t, r, "s", snap.ID).Status; got != jobs.JobStatusStopping {
		t.Fatalf("status %s; want stopping", got)
	}
	if _, err := r.Start(t.Context(), plainStart("s", "bash", newProducer())); !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("start while the only slot is stopping = %v; want ErrTooManyJobs", err)
	}
	p.finish(jobs.JobStatusKilled, "", "")
	waitSettled(t, r, "s", snap.ID)
	mustStart(t, r, plainStart("s", "bash", newProducer()))
}

func TestStartAdmissionBuckets(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	mustStart(t, r, plainStart("", "bash", newProducer()))
	if _, err := r.Start(t.Context(), plainStart("", "python", newProducer())); !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("second unowned start = %v; want ErrTooManyJobs (unowned jobs share one bucket)", err)
	}
	mustStart(t, r, plainStart("a", "bash", newProducer()))
	mustStart(t, r, plainStart("b", "bash", newProducer()))
	if _, err := r.Start(t.Context(), plainStart("a", "bash", newProducer())); !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("second start of owner a = %v; want ErrTooManyJobs", err)
	}
}

func TestStartAdmissionCountsStartsInProgress(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	inStarter, release := make(chan struct{}), make(chan struct{})
	slow := plainStart("s", "bash", newProducer())
	slow.Run = func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
		close(inStarter)
		<-release
		return newProducer().hooks(), nil
	}
	errc := make(chan error, 1)
	go func() { _, err := r.Start(context.Background(), slow); errc <- err }()
	<-inStarter
	if _, err := r.Start(t.Context(), plainStart("s", "bash", newProducer())); !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("start while another is in its starter = %v; want ErrTooManyJobs", err)
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatalf("slow start: %v", err)
	}
}

func TestStartFailingStarterRegistersNothingAndSkipsOrdinal(t *testing.T) {
	for _, tt := range []struct {
		name string
		run  func(context.Context, jobs.RunningJob) (jobs.Hooks, error)
		want string
	}{
		{"error", func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
			return jobs.Hooks{}, errors.New("spawn: no such file")
		}, "spawn: no such file"},
		{"panic", func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
			panic("starter exploded")
		}, "starter exploded"},
		{"writes then error", func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			job.UpdateDetail("half-way")
			return jobs.Hooks{}, errors.New("late failure")
		}, "late failure"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &memRecorder{}
			r := registry.New(registry.WithRecorder(rec), registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
			sig := watch(r)
			_, err := r.Start(t.Context(), jobs.PlainJobStart{JobStartCommon: common("s", "bash"), Run: tt.run})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "bash-1") {
				t.Fatalf("Start = %v; want an error naming bash-1 and %q", err, tt.want)
			}
			if n := len(r.List("s")); n != 0 || len(rec.all()) != 0 || sig.changed.Load() != 0 {
				t.Fatalf("failed starter left %d jobs, %d facts, %d jobs-changed signals", n, len(rec.all()), sig.changed.Load())
			}
			// The slot came back and the ordinal was skipped.
			snap := mustStart(t, r, plainStart("s", "bash", newProducer()))
			if snap.Name != "bash-2" {
				t.Fatalf("next start is %s; want bash-2", snap.Name)
			}
		})
	}
}

func TestStartHooksWithoutCancelRefused(t *testing.T) {
	r := registry.New()
	_, err := r.Start(t.Context(), jobs.PlainJobStart{
		JobStartCommon: common("", "bash"),
		Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
			return jobs.Hooks{Done: newProducer().done}, nil
		},
	})
	if !errors.Is(err, registry.ErrInvalidStart) {
		t.Fatalf("Start = %v; want ErrInvalidStart", err)
	}
	if len(r.List("")) != 0 {
		t.Fatalf("jobs %d; want nothing registered", len(r.List("")))
	}
}

func TestStartStagesWritesInsideStarter(t *testing.T) {
	r := registry.New()
	sig := watch(r)
	snap := mustStart(t, r, jobs.RecordingJobStart{
		JobStartCommon: common("", "bash"),
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			job.Append("hello ", jobs.AppendOptions{})
			job.UpdateDetail("booting")
			job.Append("world", jobs.AppendOptions{Channel: jobs.ChannelStderr})
			return newProducer().hooks(), nil
		},
	})
	if got := sig.changed.Load(); got != 1 {
		t.Errorf("jobs-changed fired %d times; want exactly once, at the registration commit", got)
	}
	if got := sig.output.Load(); got != 0 {
		t.Errorf("output fired %d times for staged appends; want none", got)
	}
	if snap.Detail != "booting" || snap.OutputBytes != 11 {
		t.Errorf("snapshot detail %q, %d bytes; want the staged detail and 11 bytes", snap.Detail, snap.OutputBytes)
	}
	rec, err := r.ReadRecord("", snap.ID, 0)
	if err != nil || len(rec.Chunks) != 2 || rec.Chunks[1].Channel != jobs.ChannelStderr || rec.Chunks[1].Offset != 6 {
		t.Fatalf("ReadRecord = %+v, %v; want the two staged chunks", rec, err)
	}
}

func TestStartRecordsRegisteredFactBeforeJobsChanged(t *testing.T) {
	var events eventLog
	rec := &memRecorder{hook: func(f jobs.Fact) { events.add("fact " + f.FactType()) }}
	clock := &fixedClock{t: time.UnixMilli(42_000)}
	r := registry.New(registry.WithRecorder(rec), registry.WithClock(clock))
	r.OnJobsChanged(func() { events.add("jobs-changed") })
	var face jobs.RecordingJob
	start := recordingStart("s", "bash", newProducer(), &face)
	start.ToolCall = "call-7"
	snap := mustStart(t, r, start)

	if got, want := events.get(), []string{"fact job/registered", "jobs-changed"}; !slices.Equal(got, want) {
		t.Fatalf("events %v; want %v", got, want)
	}
	want := jobs.JobRegistered{JobID: snap.ID, At: 42_000, Owner: "s", Kind: "bash", Label: "bash job",
		Ordinal: 1, ToolCall: "call-7", Record: true}
	if got := rec.all()[0]; !reflect.DeepEqual(got, want) {
		t.Fatalf("fact %+v; want %+v", got, want)
	}
}

func TestStartUnownedJobsRecordNoFacts(t *testing.T) {
	r, rec := recordedRegistry()
	p := newProducer()
	snap := mustStart(t, r, plainStart("", "bash", p))
	p.finish(jobs.JobStatusCompleted, "", "")
	waitSettled(t, r, "", snap.ID)
	if n := len(rec.all()); n != 0 {
		t.Fatalf("unowned job recorded %d facts; want none", n)
	}
}

func TestStartRefusedAfterClose(t *testing.T) {
	r := registry.New()
	if err := r.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ran atomic.Bool
	start := plainStart("", "bash", newProducer())
	start.Run = func(context.Context, jobs.RunningJob) (jobs.Hooks, error) { ran.Store(true); return jobs.Hooks{}, nil }
	if _, err := r.Start(t.Context(), start); !errors.Is(err, registry.ErrClosed) || ran.Load() {
		t.Fatalf("Start after Close = %v (starter ran: %v); want ErrClosed without running it", err, ran.Load())
	}
}

func TestStartStarterFinishingAfterCloseIsCancelled(t *testing.T) {
	r := registry.New()
	p := newProducer()
	inStarter, release := make(chan struct{}), make(chan struct{})
	start := plainStart("", "bash", p)
	start.Run = func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
		close(inStarter)
		<-release
		return p.hooks(), nil
	}
	errc := make(chan error, 1)
	go func() { _, err := r.Start(context.Background(), start); errc <- err }()
	<-inStarter
	if err := r.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-errc; !errors.Is(err, registry.ErrClosed) {
		t.Fatalf("Start = %v; want ErrClosed", err)
	}
	if got := p.cancelReasons(); !slices.Equal(got, []string{"registry closed"}) || len(r.List("")) != 0 {
		t.Fatalf("cancels %v, %d jobs; want the producer cancelled and nothing registered", got, len(r.List("")))
	}
}

func TestStartRefusesCancelledContext(t *testing.T) {
	r := registry.New()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.Start(ctx, plainStart("", "bash", newProducer())); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start = %v; want context.Canceled", err)
	}
}

func TestStartRefusesDuplicateID(t *testing.T) {
	same := func() jobs.JobID { return jobs.JobID{7} }
	r := registry.New(registry.WithIDs(same))
	first := mustStart(t, r, plainStart("", "bash", newProducer()))
	p := newProducer()
	if _, err := r.Start(t.Context(), plainStart("", "bash", p)); !errors.Is(err, registry.ErrInvalidStart) {
		t.Fatalf("Start with a taken id = %v; want ErrInvalidStart", err)
	}
	if len(p.cancelReasons()) != 1 || len(r.List("")) != 1 || r.List("")[0].Name != first.Name {
		t.Fatalf("the duplicate replaced the first job or its producer was left running (cancels %v)", p.cancelReasons())
	}
}

// An id is taken from the moment its registration commit begins: a second
// start with the same id, of another owner, whose commit comes while the
// first job's registered fact is still being recorded is refused, rather than
// both registering and one replacing the other in the table.
func TestStartRefusesDuplicateIDWhileTheFirstRecordsItsFact(t *testing.T) {
	same := func() jobs.JobID { return jobs.JobID{7} }
	rec := &memRecorder{}
	r := registry.New(registry.WithIDs(same), registry.WithRecorder(rec))
	second := newProducer()
	var secondErr error
	nested := false
	rec.hook = func(f jobs.Fact) {
		if reg, ok := f.(jobs.JobRegistered); ok && reg.Owner == "a" && !nested {
			nested = true
			_, secondErr = r.Start(t.Context(), plainStart("b", "bash", second))
		}
	}
	first := mustStart(t, r, plainStart("a", "bash", newProducer()))
	if !errors.Is(secondErr, registry.ErrInvalidStart) || len(second.cancelReasons()) != 1 {
		t.Fatalf("second Start = %v (cancels %v); want ErrInvalidStart and its producer cancelled", secondErr, second.cancelReasons())
	}
	if got, err := r.Get("a", first.ID); err != nil || got.Name != first.Name {
		t.Fatalf("Get(a) = %+v, %v; want the first job", got, err)
	}
	if got := r.List("b"); len(got) != 0 {
		t.Fatalf("List(b) = %d jobs; want none", len(got))
	}
}

// TestRegisteredFactIsRecordedBeforeTheJobIsVisible: while the registry
// records a job's registered fact, no reader can see the job yet, so nothing
// can observe a registration that history does not hold.
func TestRegisteredFactIsRecordedBeforeTheJobIsVisible(t *testing.T) {
	r, rec := recordedRegistry()
	seen := -1
	rec.hook = func(f jobs.Fact) {
		if reg, ok := f.(jobs.JobRegistered); ok {
			if _, err := r.Get(reg.Owner, reg.JobID); err == nil {
				t.Errorf("Get found the job while its registered fact was being recorded")
			}
			seen = len(r.List(reg.Owner))
		}
	}
	changed := 0
	r.OnJobsChanged(func() { changed++ })
	p := newProducer()
	snap := mustStart(t, r, plainStart("s", "bash", p))
	if seen != 0 {
		t.Fatalf("List showed %d jobs while the registered fact was recorded; want none", seen)
	}
	if _, err := r.Get("s", snap.ID); err != nil || changed != 1 {
		t.Fatalf("after Start: Get = %v, jobs-changed fired %d times; want visible and one signal", err, changed)
	}
	p.finish(jobs.JobStatusCompleted, "", "")
	waitSettled(t, r, "s", snap.ID)
}
