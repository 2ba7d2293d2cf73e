package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"
)

// A memStore is an in-memory Store of the Append and ReadStream promises a
// Recorder relies on: seqs per stream and idempotent ids.
type memStore struct {
	Store // the methods a Recorder never calls
	mu    sync.Mutex
	recs  map[Stream][]Record
	ids   map[[2]string]uint64
}

func newMemStore() *memStore {
	return &memStore{recs: map[Stream][]Record{}, ids: map[[2]string]uint64{}}
}

func (m *memStore) Append(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var seqs []uint64
	for _, e := range entries {
		key := [2]string{string(stream), e.ID}
		if seq, ok := m.ids[key]; ok && e.ID != "" {
			seqs = append(seqs, seq)
			continue
		}
		seq := uint64(len(m.recs[stream]) + 1)
		m.recs[stream] = append(m.recs[stream], Record{Stream: stream, Seq: seq, ID: e.ID, Payload: append([]byte(nil), e.Payload...)})
		if e.ID != "" {
			m.ids[key] = seq
		}
		seqs = append(seqs, seq)
	}
	return seqs, nil
}

func (m *memStore) Flush(context.Context) error { return nil }

func (m *memStore) stream(s Stream) []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Record(nil), m.recs[s]...)
}

// An attempt is how a flakyStore answers one Append.
type attempt int

const (
	landed  attempt = iota // appended, nil
	refused                // nothing appended, an error: the server was down
	unknown                // appended, an error: the reply was lost
	invalid                // nothing appended, ErrInvalid
)

var errServerDown = errors.New("connection refused")

// A flakyStore answers each Append as its script says (landed once the
// script runs out), counting the attempts.
type flakyStore struct {
	*memStore
	mu       sync.Mutex
	script   []attempt
	attempts int
}

func (f *flakyStore) Append(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error) {
	f.mu.Lock()
	f.attempts++
	a := landed
	if len(f.script) > 0 {
		a, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	switch a {
	case refused:
		return nil, errServerDown
	case invalid:
		return nil, fmt.Errorf("bad stream: %w", ErrInvalid)
	case unknown:
		f.memStore.Append(ctx, stream, entries...)
		return nil, errors.New("commit: its outcome is unknown: connection reset")
	}
	return f.memStore.Append(ctx, stream, entries...)
}

func (f *flakyStore) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts
}

// A numbered fact, for the recorder tests: stream s, id n/N.
func encodeN(n int) ([]byte, error) { return fmt.Appendf(nil, `{"n":%d}`, n), nil }
func streamN(n int) Stream          { return Stream(fmt.Sprintf("s%d", n%3)) }
func idN(n int) string              { return fmt.Sprintf("n/%d", n) }

// A fact whose append was refused, or whose outcome was unknown, lands once
// when the store answers again; the next fact of the stream lands after it.
func TestARetryingRecorderLandsEachFactOnceThroughFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &flakyStore{memStore: newMemStore(), script: []attempt{refused, unknown, refused, unknown, landed}}
		log, logs := quietLog()
		rec := NewRetryingRecorder(store, encodeN, streamN, idN, RetryLogger(log))
		for _, n := range []int{0, 3} {
			if err := rec.Record(n); err != nil {
				t.Fatalf("Record(%d): %v", n, err)
			}
		}
		got := store.stream("s0")
		if len(got) != 2 || got[0].ID != "n/0" || got[1].ID != "n/3" {
			t.Fatalf("stream s0 holds %v, want n/0 then n/3, once each", got)
		}
		if store.count() != 6 {
			t.Fatalf("%d attempts, want 5 for the first fact and 1 for the second", store.count())
		}
		if err := rec.Flush(context.Background()); err != nil || rec.Err() != nil {
			t.Fatalf("Flush %v, Err %v: want nil after the facts landed", err, rec.Err())
		}
		if s := logs.String(); strings.Count(s, "level=WARN") != 4 || !strings.Contains(s, "landed after retries") {
			t.Fatalf("the retries were not logged as they happened:\n%s", s)
		}
	})
}

// A store that does not come back within the bound: Record gives up, the
// loss is sticky (every later Record fails at once, without an append, and
// Flush fails, wrapping ErrFailed) and logged as an error.
func TestARetryingRecorderFailsForGoodAfterItsBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		down := make([]attempt, 1000)
		for i := range down {
			down[i] = refused
		}
		store := &flakyStore{memStore: newMemStore(), script: down}
		log, logs := quietLog()
		rec := NewRetryingRecorder(store, encodeN, streamN, idN, RetryFor(5*time.Second), RetryLogger(log))
		start := time.Now()
		err := rec.Record(1)
		if !errors.Is(err, ErrFailed) || !errors.Is(err, errServerDown) {
			t.Fatalf("Record through an outage longer than the bound: %v, want ErrFailed wrapping the store's error", err)
		}
		if took := time.Since(start); took < 5*time.Second || took > 6*time.Second {
			t.Fatalf("Record gave up after %v, want the bound of 5s", took)
		}
		attempts := store.count()
		store.mu.Lock()
		store.script = nil // the store is back
		store.mu.Unlock()
		if err := rec.Record(2); !errors.Is(err, ErrFailed) {
			t.Fatalf("Record after a lost fact: %v, want the sticky failure", err)
		}
		if store.count() != attempts {
			t.Fatal("a failed recorder appended again")
		}
		if err := rec.Flush(context.Background()); !errors.Is(err, ErrFailed) || rec.Err() == nil {
			t.Fatalf("Flush after a lost fact: %v (Err %v), want the sticky failure", err, rec.Err())
		}
		if !strings.Contains(logs.String(), "level=ERROR") {
			t.Fatalf("the loss was not logged as an error:\n%s", logs.String())
		}
	})
}

// What a retry cannot mend is not retried, and the fact is lost for good.
func TestARetryingRecorderDoesNotRetryARefusedFact(t *testing.T) {
	store := &flakyStore{memStore: newMemStore(), script: []attempt{invalid}}
	rec := NewRetryingRecorder(store, encodeN, streamN, idN)
	if err := rec.Record(1); !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrFailed) {
		t.Fatalf("Record of a refused fact: %v, want ErrInvalid, sticky", err)
	}
	if store.count() != 1 {
		t.Fatalf("%d attempts at a refused fact, want 1", store.count())
	}
}

// The retrying Recorder, over a store that refuses appends, loses their
// replies and comes back at random, as a property: every fact whose Record
// returned nil is in its stream exactly once, the facts of a stream are in
// the order they were recorded, a fact is stored at most once whatever
// happened, and once a Record failed every later one fails without an
// append and Flush fails.
func TestRetryingRecorderKeepsEveryFactItAcknowledged(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		rapid.SyncTest(rt, func(rt *rapid.T) {
			store := &flakyStore{memStore: newMemStore()}
			rec := NewRetryingRecorder(store, encodeN, streamN, idN, RetryFor(time.Duration(rapid.IntRange(1, 3).Draw(rt, "bound"))*time.Second))
			var acked []int
			failed := false
			for n := range rapid.IntRange(1, 30).Draw(rt, "facts") {
				// Refusals and lost replies before the append lands: a
				// long enough run of them outlasts the bound.
				script := rapid.SliceOfN(rapid.SampledFrom([]attempt{refused, unknown, landed}), 0, 12).Draw(rt, "script")
				store.mu.Lock()
				store.script = script
				store.mu.Unlock()
				before := store.count()
				err := rec.Record(n)
				switch {
				case failed && (err == nil || store.count() != before):
					rt.Fatalf("fact %d: a failed recorder recorded again (%v)", n, err)
				case err == nil:
					acked = append(acked, n)
				case !errors.Is(err, ErrFailed):
					rt.Fatalf("fact %d: %v, want ErrFailed", n, err)
				default:
					failed = true
				}
			}
			if err := rec.Flush(context.Background()); (err != nil) != failed {
				rt.Fatalf("Flush = %v after a failed Record: %v", err, failed)
			}
			checkAcked(rt, store.memStore, acked)
		})
	})
}

// checkAcked checks that every acknowledged fact is stored once, each
// stream in recording order, and that nothing is stored twice.
func checkAcked(rt *rapid.T, store *memStore, acked []int) {
	seen := map[string]int{}
	for k := range 3 {
		last := -1
		for _, rec := range store.stream(Stream(fmt.Sprintf("s%d", k))) {
			seen[rec.ID]++
			var n int
			fmt.Sscanf(rec.ID, "n/%d", &n)
			if n <= last {
				rt.Fatalf("stream s%d: fact %d after fact %d", k, n, last)
			}
			last = n
		}
	}
	for id, c := range seen {
		if c > 1 {
			rt.Fatalf("%s stored %d times", id, c)
		}
	}
	for _, n := range acked {
		if seen[idN(n)] != 1 {
			rt.Fatalf("acknowledged fact %d stored %d times", n, seen[idN(n)])
		}
	}
}
