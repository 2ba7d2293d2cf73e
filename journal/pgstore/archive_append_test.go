package pgstore

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/journal"
)

// A stallingFile is an archive whose next Sync, once armed, waits until
// released: an archive that takes as long as the test wants.
type stallingFile struct {
	*os.File
	g *syncGate
}

func (f stallingFile) Sync() error {
	f.g.wait()
	return f.File.Sync()
}

// A syncGate holds the first Sync after arm until release.
type syncGate struct {
	mu       sync.Mutex
	armed    bool
	entered  chan struct{}
	released chan struct{}
}

func newSyncGate() *syncGate {
	return &syncGate{entered: make(chan struct{}), released: make(chan struct{})}
}

func (g *syncGate) arm() {
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
}

func (g *syncGate) wait() {
	g.mu.Lock()
	armed := g.armed
	g.armed = false
	g.mu.Unlock()
	if armed {
		close(g.entered)
		<-g.released
	}
}

// openStallingArchive opens an archive whose Syncs g holds.
func openStallingArchive(t *testing.T, g *syncGate) *journal.FileStore {
	return openArchive(t, journal.WithOpenFile(func(path string) (journal.File, error) {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		return stallingFile{File: f, g: g}, err
	}))
}

// An archive does not hold up appends: while one runs (here stalled in
// its file's sync for as long as the test likes), a late fact for a stream
// it moves and an append to another stream, which the one committer may
// carry in the same transaction, both commit; the late fact lands after
// the seqs the archive moves and stays in the store.
func TestArchivalDoesNotHoldUpAppends(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, WithCommitters(1))
	appendN(t, s, "old", 1, 5)
	g := newSyncGate()
	file := openStallingArchive(t, g)
	g.arm()
	type result struct {
		moved []Archived
		err   error
	}
	archived := make(chan result, 1)
	go func() {
		moved, err := s.Archive(ctx, whole(t, s, "old"), file)
		archived <- result{moved, err}
	}()
	released := false
	release := func() {
		if !released {
			released = true
			close(g.released)
		}
	}
	defer release()
	select {
	case <-g.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the archive never synced its file")
	}

	appended := make(chan error, 2)
	var late []uint64
	go func() {
		var err error
		late, err = s.Append(ctx, "old", journal.Entry{ID: "late", Payload: fact("late")})
		appended <- err
	}()
	go func() {
		_, err := s.Append(ctx, "other", journal.Entry{Payload: fact("other")})
		appended <- err
	}()
	for range 2 {
		select {
		case err := <-appended:
			if err != nil {
				t.Fatalf("an append while the archive runs: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("an append waited for the archive, which is still running")
		}
	}
	select {
	case r := <-archived:
		t.Fatalf("the archive ended before its sync was released: %+v %v", r.moved, r.err)
	default:
	}
	release()
	r := <-archived
	if r.err != nil || len(r.moved) != 1 || r.moved[0].Through != 5 {
		t.Fatalf("Archive: %+v %v; want old's seqs 1 to 5", r.moved, r.err)
	}
	if len(late) != 1 || late[0] != 6 {
		t.Fatalf("the late fact got seqs %v, want 6", late)
	}
	if got := readStream(t, s, "old", 5); len(got) != 1 || got[0].ID != "late" {
		t.Fatalf("old after the archive holds %+v; want the late fact", got)
	}
	if sum, err := s.Check(ctx); err != nil || sum.Records != 2 {
		t.Fatalf("Check: %+v %v; want the late fact and the other stream's", sum, err)
	}
}

// BenchmarkAppendDuringArchive measures an op of two concurrent appends
// through a store of one committer, which may carry them in one
// transaction: a late fact for a stream being archived and a fact for
// another stream. "quiet" runs no archive, the baseline; "archiving" runs
// them while an archive of 64 streams of 100 records each is under way,
// held in its file's sync until the benchmark ends. The two should cost
// the same: an archive holds no append lock.
func BenchmarkAppendDuringArchive(b *testing.B) {
	for _, archiving := range []bool{false, true} {
		b.Run(map[bool]string{false: "quiet", true: "archiving"}[archiving], func(b *testing.B) {
			ctx := context.Background()
			s := openTest(b, WithCommitters(1))
			var old []Judged
			for i := range 64 {
				st := journal.Stream(fmt.Sprintf("old-%02d", i))
				if _, err := s.Append(ctx, st, entries(string(st), 100, false)...); err != nil {
					b.Fatal(err)
				}
				old = append(old, Judged{Stream: st, Through: 100})
			}
			var archived chan error
			g := newSyncGate()
			if archiving {
				file, err := journal.Open(b.TempDir()+"/archive.journal", journal.WithOpenFile(func(path string) (journal.File, error) {
					f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
					return stallingFile{File: f, g: g}, err
				}))
				if err != nil {
					b.Fatal(err)
				}
				defer file.Close(ctx)
				g.arm()
				archived = make(chan error, 1)
				go func() {
					_, err := s.Archive(ctx, old, file)
					archived <- err
				}()
				<-g.entered
			}
			b.ResetTimer()
			for i := range b.N {
				var wg sync.WaitGroup
				errs := make(chan error, 2)
				for _, st := range []journal.Stream{old[i%len(old)].Stream, "other"} {
					wg.Go(func() {
						_, err := s.Append(ctx, st, journal.Entry{Payload: benchPayload})
						errs <- err
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			if archiving {
				close(g.released)
				if err := <-archived; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
