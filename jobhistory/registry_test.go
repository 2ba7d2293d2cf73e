package jobhistory_test

// These tests run the registry and the journal together: the facts a registry
// records through a journal Recorder, read back from the file.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

const owner jobs.SessionID = "session-1"

// fixture is a registry recording into a journal file.
type fixture struct {
	path  string
	store *journal.FileStore
	reg   *registry.Registry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	path := t.TempDir() + "/jobs.journal"
	store, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	now := time.UnixMilli(1_700_000_000_000)
	reg := registry.New(
		registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)),
		registry.WithClock(registry.ClockFunc(func() time.Time { return now })),
	)
	return &fixture{path: path, store: store, reg: reg}
}

// readFacts flushes the store and returns the facts in the file.
func (f *fixture) readFacts() ([]jobs.Fact, error) {
	if err := f.store.Flush(context.Background()); err != nil {
		return nil, err
	}
	var out []jobs.Fact
	for fact, err := range journal.Facts(journal.ReadFile(f.path), jobs.DecodeFact) {
		if err != nil {
			return out, err
		}
		out = append(out, fact)
	}
	return out, nil
}

func (f *fixture) facts(t *testing.T) []jobs.Fact {
	t.Helper()
	out, err := f.readFacts()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// settledOf waits until the job's settled fact is in the file.
func (f *fixture) settledOf(t *testing.T, id jobs.JobID) jobs.JobSettled {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, fact := range f.facts(t) {
			if s, ok := fact.(jobs.JobSettled); ok && s.JobID == id {
				return s
			}
		}
	}
	t.Fatalf("no settled fact for %s", id)
	return jobs.JobSettled{}
}

// producer is a job whose Cancel and Done the test drives.
type producer struct {
	cancelErr error
	done      chan struct{}
	once      sync.Once
	outcome   jobs.JobOutcome
	err       error
}

func newProducer() *producer { return &producer{done: make(chan struct{})} }

// finish reports the producer's outcome; only the first call counts.
func (p *producer) finish(o jobs.JobOutcome, err error) {
	p.once.Do(func() {
		p.outcome, p.err = o, err
		close(p.done)
	})
}

func (p *producer) start(label string, owner jobs.SessionID) jobs.PlainJobStart {
	return jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "test", Label: label, Owner: owner},
		Run: func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			return jobs.Hooks{
				Cancel: func(reason string) error {
					if p.cancelErr != nil {
						return p.cancelErr
					}
					p.finish(jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: reason}, nil)
					return nil
				},
				Done: func() (jobs.JobOutcome, error) {
					<-p.done
					return p.outcome, p.err
				},
			}, nil
		},
	}
}

// Each way a job ends leaves one registered and one settled fact with the
// registry's times; only a producer that reported has producerReported.
func TestRegistryJournalSettlements(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()

	clean, failing, killed, stuck := newProducer(), newProducer(), newProducer(), newProducer()
	stuck.cancelErr = errors.New("cannot stop")
	t.Cleanup(func() { stuck.finish(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil) })

	snap := map[string]jobs.JobSnapshot{}
	for label, p := range map[string]*producer{"clean": clean, "failing": failing, "killed": killed, "stuck": stuck} {
		s, err := f.reg.Start(ctx, p.start(label, owner))
		if err != nil {
			t.Fatal(err)
		}
		snap[label] = s
	}
	clean.finish(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	failing.finish(jobs.JobOutcome{}, errors.New("producer crashed"))
	if _, err := f.reg.Kill(owner, snap["killed"].ID, "user asked"); err != nil {
		t.Fatal(err)
	}
	for label, want := range map[string]struct {
		status   jobs.JobStatus
		reported bool
	}{
		"clean":   {jobs.JobStatusCompleted, true},
		"failing": {jobs.JobStatusFailed, false},
		"killed":  {jobs.JobStatusKilled, true},
	} {
		s := f.settledOf(t, snap[label].ID)
		if s.Status != want.status || s.ProducerReported != want.reported || s.Registration.Label != label {
			t.Errorf("%s: settled %+v, want status %s producerReported=%v", label, s, want.status, want.reported)
		}
	}

	// Teardown: the stuck job's Cancel fails, so Close force-settles it.
	closeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f.reg.Close(closeCtx)
	s := f.settledOf(t, snap["stuck"].ID)
	if s.Status != jobs.JobStatusFailed || s.ProducerReported {
		t.Errorf("force-settled: %+v, want failed with producerReported=false", s)
	}

	ivs, err := jobhistory.Intervals(journal.Facts(journal.ReadFile(f.path), jobs.DecodeFact))
	if err != nil || len(ivs) != 4 {
		t.Fatalf("Intervals = %d, %v; want 4", len(ivs), err)
	}
	for _, iv := range ivs {
		if !iv.Complete || iv.RegisteredAt != 1_700_000_000_000 || iv.Owner != owner {
			t.Errorf("interval %+v: want complete, registered at the registry's clock, owned", iv)
		}
	}
}

// The registered fact is in the file before the jobs-changed listener runs.
func TestRegistryJournalFactBeforeListener(t *testing.T) {
	f := newFixture(t)
	var (
		mu      sync.Mutex
		checked bool
		seen    bool
		readErr error
	)
	stop := f.reg.OnJobsChanged(func() { // may run on a registry goroutine: no t.Fatal here
		mu.Lock()
		defer mu.Unlock()
		if checked {
			return
		}
		checked = true
		var facts []jobs.Fact
		facts, readErr = f.readFacts()
		for _, fact := range facts {
			if r, ok := fact.(jobs.JobRegistered); ok && r.Label == "ordered" {
				seen = true
			}
		}
	})
	defer stop()
	p := newProducer()
	defer p.finish(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	if _, err := f.reg.Start(context.Background(), p.start("ordered", owner)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !checked || !seen || readErr != nil {
		t.Fatalf("listener ran=%v, saw the registered fact=%v (read error %v); want both", checked, seen, readErr)
	}
}

// Unowned jobs write nothing.
func TestRegistryJournalUnowned(t *testing.T) {
	f := newFixture(t)
	p := newProducer()
	if _, err := f.reg.Start(context.Background(), p.start("unowned", "")); err != nil {
		t.Fatal(err)
	}
	p.finish(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
	f.reg.Close(context.Background())
	for _, fact := range f.facts(t) {
		if strings.Contains(fmt.Sprint(fact), "unowned") {
			t.Fatalf("an unowned job wrote %+v", fact)
		}
	}
}

// The facts of two sessions go to two streams: each reads back alone, in
// order, gap-free from seq 1, holding exactly its own jobs' facts, and the
// global order holds both.
func TestRegistryFactsGoToTheOwnersStream(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	owners := []jobs.SessionID{"session-a", "session-b"}
	jobsOf := map[jobs.SessionID][]jobs.JobID{}
	for i := range 6 {
		owner := owners[i%2]
		p := newProducer()
		snap, err := f.reg.Start(ctx, p.start(fmt.Sprintf("job-%d", i), owner))
		if err != nil {
			t.Fatal(err)
		}
		jobsOf[owner] = append(jobsOf[owner], snap.ID)
		p.finish(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
		f.settledOf(t, snap.ID)
	}
	for _, owner := range owners {
		var seq uint64
		var ids []jobs.JobID
		for rec, err := range f.store.ReadStream(ctx, journal.Stream(owner), 0) {
			if err != nil {
				t.Fatal(err)
			}
			if seq++; rec.Seq != seq {
				t.Fatalf("stream %s: seq %d after %d", owner, rec.Seq, seq-1)
			}
			fact, err := jobs.DecodeFact(rec.Payload)
			if err != nil {
				t.Fatal(err)
			}
			switch fact := fact.(type) {
			case jobs.JobRegistered:
				if fact.Owner != owner {
					t.Fatalf("stream %s holds a registration of %s", owner, fact.Owner)
				}
				ids = append(ids, fact.JobID)
			case jobs.JobSettled:
				if fact.Registration.Owner != owner || len(ids) == 0 || fact.JobID != ids[len(ids)-1] {
					t.Fatalf("stream %s: settlement of %s (owner %s) out of place", owner, fact.JobID, fact.Registration.Owner)
				}
			}
		}
		if seq != 6 || fmt.Sprint(ids) != fmt.Sprint(jobsOf[owner]) {
			t.Fatalf("stream %s: %d records of jobs %v; want 6 of %v", owner, seq, ids, jobsOf[owner])
		}
	}
	ivs, err := jobhistory.Intervals(journal.Facts(f.store.ReadAll(ctx, journal.Position{}), jobs.DecodeFact))
	if err != nil || len(ivs) != 6 {
		t.Fatalf("intervals over the store's global order: %d, %v; want 6", len(ivs), err)
	}
}
