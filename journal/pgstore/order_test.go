package pgstore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// A pause holds the first append transaction that reaches its hook, once
// armed, until released: the transaction holds what it locked.
type pause struct {
	armed    atomic.Bool
	once     sync.Once
	reached  chan struct{}
	released chan struct{}
}

func newPause() *pause {
	return &pause{reached: make(chan struct{}), released: make(chan struct{})}
}

// release lets the held transaction go on.
func (p *pause) release() {
	select {
	case <-p.released:
	default:
		close(p.released)
	}
}

func (p *pause) hooks() *hooks {
	return &hooks{beforeCommit: func(context.Context, *pgx.Conn) error {
		if p.armed.Load() {
			p.once.Do(func() { close(p.reached); <-p.released })
		}
		return nil
	}}
}

// waitLocked waits until a statement of the sessions named app waits for a lock.
func waitLocked(t *testing.T, s *Store, app string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND application_name = $1`, app).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session named %q waits for a lock", app)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openNamed opens a store on schema whose sessions are named app.
func openNamed(t *testing.T, schema, app string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), pgtest.DSN(t)+"&application_name="+app, append([]Option{WithSchema(schema)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// The global order agrees with every stream's order, also when a
// transaction waits for one stream's lock while a younger transaction
// commits on another stream it appends to: ReadAll and Tail never hand out
// a record of a stream before a record with a lower seq of that stream.
//
// Three streams a, b, c. A transaction of store z appends to b and holds
// it. Store x's next transaction carries appends to a, b and c; it waits for
// b. Meanwhile store y appends to c. Then z commits, and x after it.
func TestGlobalOrderAgreesWithStreamOrderWhenATransactionWaitsForALock(t *testing.T) {
	ctx := context.Background()
	schema := pgtest.Schema(t)
	zPause, xPause := newPause(), newPause()
	defer zPause.release() // if the test fails before it does
	defer xPause.release()
	x := openNamed(t, schema, "order-x", WithCommitters(1), withHooks(xPause.hooks()))
	y := openSchema(t, schema)
	z := openSchema(t, schema, withHooks(zPause.hooks()))
	for _, st := range []journal.Stream{"a", "b", "c", "warm"} {
		if _, err := x.Append(ctx, st, journal.Entry{Payload: fact("%s first", st)}); err != nil {
			t.Fatal(err)
		}
	}

	var wg sync.WaitGroup
	appendIn := func(s *Store, stream journal.Stream, what string) {
		wg.Go(func() {
			if _, err := s.Append(ctx, stream, journal.Entry{Payload: fact("%s %s", stream, what)}); err != nil {
				t.Error(err)
			}
		})
	}
	zPause.armed.Store(true)
	appendIn(z, "b", "by z")
	<-zPause.reached // z holds b

	// x's committer is held in a transaction of its own while the appends
	// to a, b and c queue, so that they share its next transaction.
	xPause.armed.Store(true)
	appendIn(x, "warm", "by x")
	<-xPause.reached
	for _, st := range []journal.Stream{"a", "b", "c"} {
		appendIn(x, st, "by x")
	}
	for {
		x.mu.Lock()
		n := len(x.pending)
		x.mu.Unlock()
		if n == 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	xPause.release()
	waitLocked(t, y, "order-x") // x waits for z's lock on b

	yDone := make(chan struct{})
	go func() {
		defer close(yDone)
		if _, err := y.Append(ctx, "c", journal.Entry{Payload: fact("c by y")}); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-yDone:
	case <-time.After(300 * time.Millisecond): // y may wait for x, which holds c
	}
	zPause.release()
	wg.Wait()
	<-yDone

	all := readAll(t, y, journal.Position{})
	if len(all) != 10 {
		t.Fatalf("ReadAll yields %d records, want 10", len(all))
	}
	wantStreamOrder(t, all)
	tailCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	tailed := collect(tailCtx, t, y, journal.Position{})
	for i := range all {
		if rec := next(t, tailed, 10*time.Second); rec.Pos != all[i].Pos {
			t.Fatalf("tail record %d at %s, ReadAll's at %s", i, rec.Pos, all[i].Pos)
		}
	}
}

// wantStreamOrder fails t unless, in recs, the records of each stream come
// in seq order.
func wantStreamOrder(t *testing.T, recs []journal.Record) {
	t.Helper()
	last := map[journal.Stream]journal.Record{}
	for _, rec := range recs {
		if prev, ok := last[rec.Stream]; ok && prev.Seq >= rec.Seq {
			t.Fatalf("stream %q: seq %d at %s comes after seq %d at %s in the global order", rec.Stream, rec.Seq, rec.Pos, prev.Seq, prev.Pos)
		}
		last[rec.Stream] = rec
	}
}
