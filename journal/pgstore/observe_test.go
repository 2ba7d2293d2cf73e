package pgstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// A recordingObserver keeps every event it receives.
type recordingObserver struct {
	mu   sync.Mutex
	seen observed
}

// observed is what a recordingObserver received.
type observed struct {
	appended    []int // records per Appended
	bytes       int64
	failed      []error
	flushes     int
	commits     []int // entries per Committed
	commitErrs  int
	waited      []time.Duration
	lags        []time.Duration
	reconnected map[string]int
}

func (o *recordingObserver) record(f func(*observed)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f(&o.seen)
}

func (o *recordingObserver) Appended(records int, bytes int64) {
	o.record(func(s *observed) { s.appended, s.bytes = append(s.appended, records), s.bytes+bytes })
}

func (o *recordingObserver) AppendFailed(err error) {
	o.record(func(s *observed) { s.failed = append(s.failed, err) })
}

func (o *recordingObserver) Flushed(time.Duration, error) {
	o.record(func(s *observed) { s.flushes++ })
}

func (o *recordingObserver) Committed(d time.Duration, appends, entries int, bytes int64, err error) {
	o.record(func(s *observed) {
		s.commits = append(s.commits, entries)
		if err != nil {
			s.commitErrs++
		}
	})
}

func (o *recordingObserver) AppendWaited(d time.Duration) {
	o.record(func(s *observed) { s.waited = append(s.waited, d) })
}

func (o *recordingObserver) TailLagged(d time.Duration) {
	o.record(func(s *observed) { s.lags = append(s.lags, d) })
}

func (o *recordingObserver) Reconnected(what string, err error) {
	o.record(func(s *observed) {
		if s.reconnected == nil {
			s.reconnected = map[string]int{}
		}
		s.reconnected[what]++
	})
}

// snapshot copies what o has received so far.
func (o *recordingObserver) snapshot() observed {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.seen
	c.reconnected = map[string]int{}
	for k, v := range o.seen.reconnected {
		c.reconnected[k] = v
	}
	return c
}

var _ Observer = (*recordingObserver)(nil)

// The store reports what the file store does (appends, the new records among
// them, refusals, flushes) and what only it has: its transactions and their
// size, how long appends waited, a tail's lag.
func TestObserverSeesAppendsCommitsAndTails(t *testing.T) {
	obs := &recordingObserver{}
	s := openTest(t, WithObserver(obs))
	ctx := context.Background()
	first := []journal.Entry{{ID: "a", Payload: fact("a")}, {ID: "b", Payload: fact("b")}}
	if _, err := s.Append(ctx, "s", first...); err != nil {
		t.Fatal(err)
	}
	// "a" is held: one new record of two.
	if _, err := s.Append(ctx, "s", journal.Entry{ID: "a", Payload: fact("a")}, journal.Entry{ID: "c", Payload: fact("c")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "", journal.Entry{Payload: fact("x")}); !errors.Is(err, journal.ErrInvalid) {
		t.Fatalf("append to no stream: %v", err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	tailCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	recs := collect(tailCtx, t, s, journal.Position{})
	for range 3 {
		next(t, recs, 10*time.Second)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(obs.snapshot().lags) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := obs.snapshot()
	if len(got.appended) != 2 || got.appended[0] != 2 || got.appended[1] != 1 {
		t.Errorf("Appended %v; want [2 1]: a held id adds no record", got.appended)
	}
	if want := int64(entryBytes("s", first[0]) + entryBytes("s", first[1]) + entryBytes("s", journal.Entry{ID: "c", Payload: fact("c")})); got.bytes != want {
		t.Errorf("Appended %d bytes, want %d", got.bytes, want)
	}
	if len(got.failed) != 1 || !errors.Is(got.failed[0], journal.ErrInvalid) || got.flushes != 1 {
		t.Errorf("AppendFailed %v, Flushed %d times; want the refused append and one flush", got.failed, got.flushes)
	}
	entries := 0
	for _, n := range got.commits {
		entries += n
	}
	if entries != 4 || got.commitErrs != 0 || len(got.waited) != 2 {
		t.Errorf("Committed %v (%d failed), AppendWaited %v; want 4 entries in all, 2 waits", got.commits, got.commitErrs, got.waited)
	}
	if len(got.lags) == 0 || got.lags[0] < 0 || got.lags[0] > time.Minute {
		t.Errorf("TailLagged %v; want the tail's lag, under a minute", got.lags)
	}
}

// A LISTEN connection lost and a tail's read that fails for a lost server
// are reported as reconnects.
func TestObserverSeesReconnects(t *testing.T) {
	proxy := pgtest.NewProxy(t, pgtest.DSN(t))
	obs := &recordingObserver{}
	schema := pgtest.Schema(t)
	writer := openSchema(t, schema)
	reader, err := Open(context.Background(), proxy.DSN(), WithSchema(schema), WithPollInterval(20*time.Millisecond), WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tail := collect(ctx, t, reader, journal.Position{})
	if _, err := writer.Append(ctx, "s", journal.Entry{Payload: fact("before")}); err != nil {
		t.Fatal(err)
	}
	next(t, tail, 10*time.Second)
	proxy.StartingUp(true)
	proxy.Terminate("57P01", "terminating connection due to administrator command")
	deadline := time.Now().Add(10 * time.Second)
	for obs.snapshot().reconnected["listen"] == 0 || obs.snapshot().reconnected["tail"] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("reconnects seen: %v; want the listener's and the tail's", obs.snapshot().reconnected)
		}
		time.Sleep(5 * time.Millisecond)
	}
	proxy.StartingUp(false)
	if _, err := writer.Append(ctx, "s", journal.Entry{Payload: fact("after")}); err != nil {
		t.Fatal(err)
	}
	next(t, tail, 10*time.Second)
}
