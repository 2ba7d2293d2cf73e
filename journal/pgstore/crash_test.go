package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// A crashLog is what the writers of a crash loop were told: the payload tags
// acknowledged per stream, in the order their Appends returned.
type crashLog struct {
	mu       sync.Mutex
	acked    map[journal.Stream][]string
	failures atomic.Int64
}

func (l *crashLog) ack(stream journal.Stream, tags ...string) {
	l.mu.Lock()
	l.acked[stream] = append(l.acked[stream], tags...)
	l.mu.Unlock()
}

// The server is SIGKILLed again and again under writers on several stores
// (with ids, retried until acknowledged, and without, never retried) and a
// tail on another store. After each restart every writer is acknowledged
// again; at the end every acknowledged entry is stored exactly once, every
// stream is gap-free, an entry retried with its id was stored once, and the
// tail, which went on through every restart, delivered every record once,
// in ReadAll's order, which agrees with every stream's.
func TestServerKillsLoseNothingAcknowledgedAndDoubleNothing(t *testing.T) {
	t.Parallel() // with the other crash loop: each waits on a server of its own
	srv := pgtest.StartPrivateServer(t)
	rounds := pgtest.CrashRounds(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(opts ...Option) *Store {
		s, err := Open(ctx, srv.DSN, append([]Option{WithSchema("crash")}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		return s
	}
	stores := []*Store{open(), open(WithCommitters(3)), open(WithCommitters(2))}
	reader := open(WithPollInterval(20 * time.Millisecond))
	tail := pgtest.StartTail(ctx, reader, journal.Position{})

	// Writers 0-7 append one to three entries with ids and retry a failed
	// append until it succeeds; writers 8-9 append without ids, once.
	const writers, withIDs, streams = 10, 8, 5
	log := &crashLog{acked: map[journal.Stream][]string{}}
	acks := make([]atomic.Int64, writers)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			s := stores[w%len(stores)]
			stream := journal.Stream(fmt.Sprintf("s%d", w%streams))
			for i := 0; !stop.Load(); i++ {
				var es []journal.Entry
				var tags []string
				for k := range 1 + i%3 {
					tag := fmt.Sprintf("w%d-%d-%d", w, i, k)
					e := journal.Entry{Payload: fact("%s", tag)}
					if w < withIDs {
						e.ID = tag
					}
					es, tags = append(es, e), append(tags, tag)
				}
				for {
					_, err := s.Append(ctx, stream, es...)
					if err == nil {
						log.ack(stream, tags...)
						acks[w].Add(1)
						break
					}
					log.failures.Add(1)
					time.Sleep(10 * time.Millisecond)
					if w >= withIDs {
						break
					}
				}
			}
		})
	}
	for r := range rounds {
		before := make([]int64, writers)
		for w := range writers {
			before[w] = acks[w].Load()
		}
		time.Sleep(time.Duration(150+rand.IntN(250)) * time.Millisecond)
		srv.Restart(time.Duration(50+rand.IntN(250)) * time.Millisecond)
		// Every writer is acknowledged again after the restart.
		deadline := time.Now().Add(time.Minute)
		for w := range writers {
			for acks[w].Load() <= before[w] {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: writer %d was not acknowledged again after the restart", r, w)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	if log.failures.Load() == 0 {
		t.Fatal("no append failed: the kills did not land while appends were in flight")
	}
	all := readAll(t, reader, journal.Position{})
	tailed, err := tail.WaitFor(time.Minute, func(recs []journal.Record) bool { return len(recs) >= len(all) })
	if err != nil {
		t.Errorf("the tail ended: %v", err)
	}
	figures := checkCrashLog(t, reader, log, streams)
	figures.misordered = misordered(all)
	if figures.misordered > 0 {
		t.Errorf("%d records come after a higher seq of their own stream in the global order", figures.misordered)
	}
	checkTailed(t, tailed, all)
	t.Logf("%d rounds: %d acknowledged entries (%d records stored, %d attempts failed): %d lost, %d duplicated, %d misordered; the tail delivered %d",
		rounds, figures.acked, len(all), log.failures.Load(), figures.lost, figures.duplicated, figures.misordered, len(tailed))
}

// crashFigures are what a crash loop counted.
type crashFigures struct{ acked, lost, duplicated, misordered int }

// misordered counts the records of recs, in the global order, that come
// after a record of their stream with a higher seq.
func misordered(recs []journal.Record) int {
	n := 0
	high := map[journal.Stream]uint64{}
	for _, rec := range recs {
		if rec.Seq < high[rec.Stream] {
			n++
		}
		high[rec.Stream] = max(high[rec.Stream], rec.Seq)
	}
	return n
}

// checkCrashLog checks every stream against what its writers were told.
func checkCrashLog(t *testing.T, s *Store, log *crashLog, streams int) crashFigures {
	t.Helper()
	var f crashFigures
	for k := range streams {
		stream := journal.Stream(fmt.Sprintf("s%d", k))
		recs := readGapFree(t, s, stream)
		count := map[string]int{}
		for _, rec := range recs {
			count[string(rec.Payload)]++
		}
		for p, n := range count {
			if n > 1 {
				f.duplicated += n - 1
				t.Errorf("stream %s: %s stored %d times", stream, p, n)
			}
		}
		for _, tag := range log.acked[stream] {
			f.acked++
			if count[string(fact("%s", tag))] == 0 {
				f.lost++
				t.Errorf("stream %s: acknowledged %s is missing", stream, tag)
			}
		}
	}
	return f
}

// checkTailed checks that the tail delivered all, once each, in its order.
func checkTailed(t *testing.T, tailed, all []journal.Record) {
	t.Helper()
	if len(tailed) != len(all) {
		t.Errorf("the tail delivered %d records, ReadAll holds %d", len(tailed), len(all))
	}
	for i := range min(len(tailed), len(all)) {
		if tailed[i].Pos != all[i].Pos {
			t.Fatalf("record %d: the tail delivered %s, ReadAll holds %s", i, tailed[i].Pos, all[i].Pos)
		}
	}
}
