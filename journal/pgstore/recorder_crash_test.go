package pgstore

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/registry"
)

// A lockedBuffer is a log the registry and the recorder write from many
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// quickJob is a plain job that completes after a short while.
func quickJob(owner jobs.SessionID, label string) jobs.PlainJobStart {
	return jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "crash", Label: label, Owner: owner},
		Run: func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			done := make(chan struct{})
			go func() {
				time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
				close(done)
			}()
			return jobs.Hooks{
				Cancel: func(string) error { return nil },
				Done: func() (jobs.JobOutcome, error) {
					<-done
					return jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "done"}, nil
				},
			}, nil
		},
	}
}

// The registry's lifecycle facts outlive server kills. Jobs of four owners
// start and complete while the server is SIGKILLed again and again; the
// registry records through jobhistory.NewRecorder, which retries a failed
// append with the fact's record id. Afterwards every job the registry
// reported completed has, in its owner's stream, its registered fact and
// then its settled fact, each exactly once; the recorder never gave up, and
// every interval is complete.
func TestRegistryFactsOutliveServerKills(t *testing.T) {
	t.Parallel() // with the other crash loop: each waits on a server of its own
	srv := pgtest.StartPrivateServer(t)
	rounds := pgtest.CrashRounds(t)
	ctx := context.Background()
	store, err := Open(ctx, srv.DSN, WithSchema("facts"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rec := jobhistory.NewRecorder(store, journal.RetryLogger(logger))
	reg := registry.New(registry.WithRecorder(rec), registry.WithLogger(logger))

	const workers, owners = 8, 4
	var stop atomic.Bool
	var mu sync.Mutex
	completed := map[jobs.JobID]jobs.SessionID{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			owner := jobs.SessionID(fmt.Sprintf("owner-%d", w%owners))
			for i := 0; !stop.Load(); i++ {
				snap, err := reg.Start(ctx, quickJob(owner, fmt.Sprintf("w%d-%d", w, i)))
				if err != nil {
					t.Errorf("worker %d: start: %v", w, err)
					return
				}
				got, _, err := reg.Wait(ctx, owner, snap.ID, 2*time.Minute)
				if err != nil || got.Status != jobs.JobStatusCompleted {
					t.Errorf("worker %d: job %s: %v %v", w, snap.ID, got.Status, err)
					return
				}
				mu.Lock()
				completed[snap.ID] = owner
				mu.Unlock()
			}
		})
	}
	for range rounds {
		time.Sleep(time.Duration(150+rand.IntN(250)) * time.Millisecond)
		srv.Restart(time.Duration(50+rand.IntN(250)) * time.Millisecond)
		time.Sleep(200 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	if err := reg.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rec.Flush(ctx); err != nil {
		t.Fatalf("the recorder failed: %v\n%s", err, logs.String())
	}

	figures := checkJobFacts(t, store, completed, owners)
	if figures.lost+figures.duplicated+figures.misordered > 0 {
		t.Logf("logs:\n%s", logs.String())
	}
	t.Logf("%d rounds: %d jobs completed, %d facts: %d lost, %d duplicated, %d misordered",
		rounds, len(completed), figures.acked, figures.lost, figures.duplicated, figures.misordered)
}

// checkJobFacts checks every owner's stream against the jobs the registry
// reported completed: a registered and then a settled fact each, once.
func checkJobFacts(t *testing.T, s *Store, completed map[jobs.JobID]jobs.SessionID, owners int) crashFigures {
	t.Helper()
	var f crashFigures
	type seen struct{ registered, settled []uint64 }
	facts := map[jobs.JobID]*seen{}
	for k := range owners {
		stream := journal.Stream(fmt.Sprintf("owner-%d", k))
		for _, rec := range readGapFree(t, s, stream) {
			fact, err := jobs.DecodeFact(rec.Payload)
			if err != nil {
				t.Fatalf("stream %s seq %d: %v", stream, rec.Seq, err)
			}
			var id jobs.JobID
			switch fact := fact.(type) {
			case jobs.JobRegistered:
				id = fact.JobID
			case jobs.JobSettled:
				id = fact.JobID
			}
			if facts[id] == nil {
				facts[id] = &seen{}
			}
			if _, ok := fact.(jobs.JobRegistered); ok {
				facts[id].registered = append(facts[id].registered, rec.Seq)
			} else {
				facts[id].settled = append(facts[id].settled, rec.Seq)
			}
		}
	}
	for id := range completed {
		f.acked += 2
		got := facts[id]
		switch {
		case got == nil:
			f.lost += 2
			t.Errorf("job %s completed and has no fact", id)
			continue
		case len(got.registered) == 0 || len(got.settled) == 0:
			f.lost++
			t.Errorf("job %s completed: %d registered and %d settled facts", id, len(got.registered), len(got.settled))
		}
		if n := len(got.registered) + len(got.settled); n > 2 {
			f.duplicated += n - 2
			t.Errorf("job %s: %d registered and %d settled facts", id, len(got.registered), len(got.settled))
		}
		if len(got.registered) > 0 && len(got.settled) > 0 && got.settled[0] < got.registered[0] {
			f.misordered++
			t.Errorf("job %s: settled at seq %d before registered at %d", id, got.settled[0], got.registered[0])
		}
	}
	ivs, err := jobhistory.Intervals(journal.Facts(s.ReadAll(context.Background(), journal.Position{}), jobs.DecodeFact))
	if err != nil {
		t.Fatalf("Intervals: %v", err)
	}
	for _, iv := range ivs {
		if !iv.Complete {
			t.Errorf("job %s: interval not complete", iv.JobID)
		}
	}
	return f
}
