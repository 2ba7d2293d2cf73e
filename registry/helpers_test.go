package registry_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// A producer is a fake job producer the test drives: Done blocks until the
// test calls finish (or fail, or panicDone).
type producer struct {
	mu         sync.Mutex
	cancels    []string
	cancelErr  error
	onCancel   func(reason string)
	readOutput func() string
	results    chan doneResult
}

type doneResult struct {
	out   jobs.JobOutcome
	err   error
	panic any
}

func newProducer() *producer {
	return &producer{results: make(chan doneResult, 1)}
}

func (p *producer) hooks() jobs.Hooks {
	return jobs.Hooks{Cancel: p.cancel, Done: p.done, ReadOutput: p.readOutput}
}

func (p *producer) cancel(reason string) error {
	p.mu.Lock()
	p.cancels = append(p.cancels, reason)
	err, on := p.cancelErr, p.onCancel
	p.mu.Unlock()
	if on != nil {
		on(reason)
	}
	return err
}

func (p *producer) done() (jobs.JobOutcome, error) {
	r := <-p.results
	if r.panic != nil {
		panic(r.panic)
	}
	return r.out, r.err
}

func (p *producer) finish(status jobs.JobStatus, detail, output string) {
	p.results <- doneResult{out: jobs.JobOutcome{Status: status, Detail: detail, Output: output}}
}

func (p *producer) cancelReasons() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.cancels...)
}

// killOnCancel makes the producer end as killed when it is cancelled.
func (p *producer) killOnCancel() *producer {
	p.onCancel = func(string) { p.finish(jobs.JobStatusKilled, "", "") }
	return p
}

func common(owner jobs.SessionID, kind string) jobs.JobStartCommon {
	return jobs.JobStartCommon{Kind: kind, Label: kind + " job", Owner: owner}
}

func plainStart(owner jobs.SessionID, kind string, p *producer) jobs.PlainJobStart {
	return jobs.PlainJobStart{
		JobStartCommon: common(owner, kind),
		Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
			return p.hooks(), nil
		},
	}
}

// recordingStart starts a recording job and stores its face in *face.
func recordingStart(owner jobs.SessionID, kind string, p *producer, face *jobs.RecordingJob) jobs.RecordingJobStart {
	return jobs.RecordingJobStart{
		JobStartCommon: common(owner, kind),
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			*face = job
			return p.hooks(), nil
		},
	}
}

// recordingBash starts a recording bash job of owner on r and returns its
// producer, its face and its registered snapshot.
func recordingBash(t *testing.T, r *registry.Registry, owner jobs.SessionID) (*producer, jobs.RecordingJob, jobs.JobSnapshot) {
	t.Helper()
	p := newProducer()
	var face jobs.RecordingJob
	snap := mustStart(t, r, recordingStart(owner, "bash", p, &face))
	return p, face, snap
}

func mustStart(t *testing.T, r *registry.Registry, start jobs.JobStart) jobs.JobSnapshot {
	t.Helper()
	snap, err := r.Start(t.Context(), start)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return snap
}

// waitSettled waits for a job to settle and fails the test if it does not
// within a minute (of fake time, inside a synctest bubble).
func waitSettled(t *testing.T, r *registry.Registry, caller jobs.SessionID, id jobs.JobID) jobs.JobSnapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	snap, settled, err := r.Wait(ctx, caller, id, 0)
	if err != nil || !settled {
		t.Fatalf("Wait = settled %v, %v; want the settlement", settled, err)
	}
	return snap
}

func mustGet(t *testing.T, r *registry.Registry, caller jobs.SessionID, id jobs.JobID) jobs.JobSnapshot {
	t.Helper()
	snap, err := r.Get(caller, id)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return snap
}

// seqIDs issues JobIds 1, 2, 3 … and counts the calls.
type seqIDs struct{ n atomic.Int64 }

func (s *seqIDs) next() jobs.JobID {
	var id jobs.JobID
	n := s.n.Add(1)
	id[14], id[15] = byte(n>>8), byte(n)
	return id
}

// A memRecorder keeps facts in memory; hook, when set, runs first on each.
type memRecorder struct {
	mu    sync.Mutex
	facts []jobs.Fact
	err   error
	panic any
	hook  func(jobs.Fact)
}

func (m *memRecorder) Record(f jobs.Fact) error {
	if m.hook != nil {
		m.hook(f)
	}
	m.mu.Lock()
	m.facts = append(m.facts, f)
	err, p := m.err, m.panic
	m.mu.Unlock()
	if p != nil {
		panic(p)
	}
	return err
}

func (m *memRecorder) all() []jobs.Fact {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]jobs.Fact(nil), m.facts...)
}

// recordedRegistry is a new registry whose facts a memRecorder keeps.
func recordedRegistry() (*registry.Registry, *memRecorder) {
	rec := &memRecorder{}
	return registry.New(registry.WithRecorder(rec)), rec
}

// runningBash is a new registry with one running plain bash job of owner,
// and the job's producer and registered snapshot.
func runningBash(t *testing.T, owner jobs.SessionID) (*registry.Registry, *producer, jobs.JobSnapshot) {
	t.Helper()
	r := registry.New()
	p := newProducer()
	return r, p, mustStart(t, r, plainStart(owner, "bash", p))
}

// blockingRecorder is a memRecorder that blocks the recording of a fact of
// type factType (a test records one such fact): inRecord closes when the
// recording begins, and it goes on once release is closed.
func blockingRecorder(factType string) (rec *memRecorder, inRecord, release chan struct{}) {
	inRecord, release = make(chan struct{}), make(chan struct{})
	rec = &memRecorder{hook: func(f jobs.Fact) {
		if f.FactType() == factType {
			close(inRecord)
			<-release
		}
	}}
	return rec, inRecord, release
}

// An eventLog collects events from several goroutines in order.
type eventLog struct {
	mu   sync.Mutex
	list []string
}

func (e *eventLog) add(s string) {
	e.mu.Lock()
	e.list = append(e.list, s)
	e.mu.Unlock()
}

func (e *eventLog) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.list...)
}

func (e *eventLog) count(s string) int {
	n := 0
	for _, v := range e.get() {
		if v == s {
			n++
		}
	}
	return n
}

// A logBuffer captures a registry's log.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLogger() (*slog.Logger, *logBuffer) {
	buf := &logBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// A fixedClock reads a settable time.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fixedClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// signals counts a registry's signals.
type signals struct {
	changed atomic.Int64
	output  atomic.Int64
	done    atomic.Int64
}

func watch(r *registry.Registry) *signals {
	s := &signals{}
	r.OnJobsChanged(func() { s.changed.Add(1) })
	r.OnOutput(func(jobs.JobID) { s.output.Add(1) })
	r.OnJobDone(func(jobs.JobSnapshot) { s.done.Add(1) })
	return s
}

// latest holds the last value a listener saw.
type latest[T any] struct {
	mu sync.Mutex
	v  T
}

func (l *latest[T]) set(v T) {
	l.mu.Lock()
	l.v = v
	l.mu.Unlock()
}

func (l *latest[T]) get() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}

// settledSignal subscribes to id's done signal now and returns a func that
// blocks until it fired. Done listeners run last in a settlement, so once it
// returns every other listener of that settlement has run. Subscribe after
// the test's own done listeners so they have run too.
func settledSignal(t *testing.T, r *registry.Registry, id jobs.JobID) func() jobs.JobSnapshot {
	t.Helper()
	ch := make(chan jobs.JobSnapshot, 1)
	stop := r.OnJobDone(func(s jobs.JobSnapshot) {
		if s.ID == id {
			ch <- s
		}
	})
	return func() jobs.JobSnapshot {
		t.Helper()
		defer stop()
		select {
		case s := <-ch:
			return s
		case <-time.After(time.Minute):
			t.Fatal("the job never settled")
			return jobs.JobSnapshot{}
		}
	}
}
