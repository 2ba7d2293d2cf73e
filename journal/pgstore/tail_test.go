package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// withHooks stops or breaks append transactions at chosen points.
func withHooks(h *hooks) Option { return func(c *config) { c.hooks = h } }

// collect runs a tail in the background and sends what it yields.
func collect(ctx context.Context, t *testing.T, s *Store, after journal.Position) <-chan journal.Record {
	out := make(chan journal.Record, 1024)
	go func() {
		defer close(out)
		for rec, err := range s.Tail(ctx, after) {
			if err != nil {
				t.Errorf("Tail: %v", err)
				return
			}
			out <- rec
		}
	}()
	return out
}

func next(t *testing.T, recs <-chan journal.Record, within time.Duration) journal.Record {
	t.Helper()
	select {
	case rec, ok := <-recs:
		if !ok {
			t.Fatal("tail ended")
		}
		return rec
	case <-time.After(within):
		t.Fatalf("no record within %v", within)
	}
	return journal.Record{}
}

func TestTailHoldsBackACommitUntilEarlierTransactionsEnd(t *testing.T) {
	schema := pgtest.Schema(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inTx, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := openSchema(t, schema, WithCommitters(1), withHooks(&hooks{
		beforeCommit: func(ctx context.Context, _ *pgx.Conn) error {
			once.Do(func() { close(inTx); <-release })
			return nil
		},
	}))
	fast := openSchema(t, schema)
	// The reader's ReadAll below waits for b's commit to be safe to hand
	// out, which a's open transaction prevents: a short bound keeps the
	// wait, and the warning after it, from costing this test seconds.
	reader := openSchema(t, schema, WithReadYourWritesWait(200*time.Millisecond))
	tail := collect(ctx, t, reader, journal.Position{})

	slowDone := make(chan error, 1)
	go func() {
		_, err := slow.Append(ctx, "a", journal.Entry{Payload: fact("early xid, late commit")})
		slowDone <- err
	}()
	<-inTx // a's row is inserted, its transaction (the older xid) is open
	if _, err := fast.Append(ctx, "b", journal.Entry{Payload: fact("late xid, early commit")}); err != nil {
		t.Fatal(err)
	}
	// b is committed and readable in its stream, but not yet in the global order.
	if recs := readStream(t, reader, "b", 0); len(recs) != 1 {
		t.Fatalf("stream b holds %d records", len(recs))
	}
	if recs := readAll(t, reader, journal.Position{}); len(recs) != 0 {
		t.Fatalf("ReadAll handed out %d records while an older transaction is open: %s", len(recs), recs[0].Payload)
	}
	select {
	case rec := <-tail:
		t.Fatalf("tail delivered %s past an open older transaction", rec.Payload)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-slowDone; err != nil {
		t.Fatal(err)
	}
	first, second := next(t, tail, 10*time.Second), next(t, tail, 10*time.Second)
	if first.Stream != "a" || second.Stream != "b" || first.Pos.Compare(second.Pos) >= 0 {
		t.Fatalf("tail order: %s@%s then %s@%s, want a then b", first.Stream, first.Pos, second.Stream, second.Pos)
	}
	if all := readAll(t, reader, journal.Position{}); len(all) != 2 || all[0].Pos != first.Pos || all[1].Pos != second.Pos {
		t.Fatalf("ReadAll %v disagrees with the tail", all)
	}
}

func TestTailSeesEveryFactOnceInGlobalOrderUnderConcurrentWriters(t *testing.T) {
	schema := pgtest.Schema(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writers := []*Store{openSchema(t, schema), openSchema(t, schema, WithCommitters(3)), openSchema(t, schema, WithCommitters(1))}
	reader := openSchema(t, schema, WithPollInterval(50*time.Millisecond))
	tail := collect(ctx, t, reader, journal.Position{})
	const goroutines, each = 12, 60
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			w := writers[g%len(writers)]
			for i := range each {
				stream := journal.Stream(fmt.Sprintf("s%d", (g+i)%5))
				if _, err := w.Append(ctx, stream, journal.Entry{Payload: fact("%d-%d", g, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var got []journal.Record
	seen := map[string]bool{}
	for len(got) < goroutines*each {
		rec := next(t, tail, 20*time.Second)
		if n := len(got); n > 0 && got[n-1].Pos.Compare(rec.Pos) >= 0 {
			t.Fatalf("tail went from %s back to %s", got[n-1].Pos, rec.Pos)
		}
		if seen[string(rec.Payload)] {
			t.Fatalf("tail delivered %s twice", rec.Payload)
		}
		seen[string(rec.Payload)] = true
		got = append(got, rec)
	}
	wg.Wait()
	all := readAll(t, reader, journal.Position{})
	if len(all) != len(got) {
		t.Fatalf("ReadAll has %d records, the tail %d", len(all), len(got))
	}
	for i := range all {
		if all[i].Pos != got[i].Pos {
			t.Fatalf("record %d: ReadAll at %s, tail at %s", i, all[i].Pos, got[i].Pos)
		}
	}
	select {
	case rec := <-tail:
		t.Fatalf("tail delivered an extra record %s", rec.Payload)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestTailRecoversWhenItsListenConnectionDrops(t *testing.T) {
	// Polling is an hour away: only the reconnect and its wake deliver.
	s := openTest(t, WithPollInterval(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tail := collect(ctx, t, s, journal.Position{})
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("before")}); err != nil {
		t.Fatal(err)
	}
	next(t, tail, 10*time.Second)
	app := "jobgen-pgstore-listen " + s.Schema()
	waitListeners(ctx, t, s, app, 1)
	var killed int
	if err := s.Pool().QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = left($1, 63)`, app).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listen connections, want 1", killed)
	}
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("after")}); err != nil {
		t.Fatal(err)
	}
	if rec := next(t, tail, 10*time.Second); string(rec.Payload) != string(fact("after")) {
		t.Fatalf("after the drop the tail delivered %s", rec.Payload)
	}
	// And it listens again: the next append arrives by notification.
	waitListeners(ctx, t, s, app, 1)
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("again")}); err != nil {
		t.Fatal(err)
	}
	next(t, tail, 10*time.Second)
}

func TestTailEndsWithItsContextAndWithClose(t *testing.T) {
	s := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() {
		var last error
		for _, err := range s.Tail(ctx, journal.Position{}) {
			last = err
		}
		ended <- last
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("tail ended by its context yielded %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tail did not end with its context")
	}

	s2 := openTest(t)
	go func() {
		var last error
		for _, err := range s2.Tail(context.Background(), journal.Position{}) {
			last = err
		}
		ended <- last
	}()
	time.Sleep(50 * time.Millisecond)
	if err := s2.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if !errorsIsClosed(err) {
			t.Fatalf("tail ended by Close yielded %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tail did not end with Close")
	}
}

// waitListeners waits until want sessions named app are connected.
func waitListeners(ctx context.Context, t *testing.T, s *Store, app string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = left($1, 63)`, app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions named %q, want %d", n, app, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A reader that wrote nothing itself (another process, `jobgen journal cat`)
// still reads every fact committed before its ReadAll began, when an
// unrelated transaction that started earlier is still open: ReadAll waits for
// that transaction to end instead of handing out a prefix that silently
// lacks the writer's facts.
func TestReadAllOfAnotherReaderWaitsForWhatWasCommittedBeforeIt(t *testing.T) {
	schema := pgtest.Schema(t)
	ctx := context.Background()
	commitOlder := pgtest.OlderTransaction(t) // unrelated, and older than the writer's

	writer := openSchema(t, schema)
	for i := range 3 {
		if _, err := writer.Append(ctx, "s", journal.Entry{Payload: fact("fact %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	reader := openSchema(t, schema)
	got := make(chan []journal.Record, 1)
	go func() { got <- readAll(t, reader, journal.Position{}) }()
	select {
	case recs := <-got:
		t.Fatalf("ReadAll returned %d of 3 committed facts while an older transaction was open, without waiting for it", len(recs))
	case <-time.After(300 * time.Millisecond):
	}
	commitOlder()
	select {
	case recs := <-got:
		if len(recs) != 3 {
			t.Fatalf("ReadAll returned %d records after the older transaction ended, want the 3 committed before it began", len(recs))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadAll did not return after the older transaction ended")
	}
}

// A tail outlives a server restart. The FATAL error a server sends each
// connection as it goes down (57P01 for a fast shutdown or a lost
// postmaster, 57P02 for a crash) and its refusal while it recovers (57P03)
// are retried like a lost connection, and the tail delivers what was
// appended meanwhile. Between the tail and the server is a proxy that
// plays the restart; the writer reaches the server directly.
func TestTailGoesOnThroughAServerRestart(t *testing.T) {
	proxy := pgtest.NewProxy(t, pgtest.DSN(t))
	schema := pgtest.Schema(t)
	writer := openSchema(t, schema)
	reader, err := Open(context.Background(), proxy.DSN(), WithSchema(schema), WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tail := collect(ctx, t, reader, journal.Position{})
	for i, down := range []struct{ code, message string }{
		{"57P01", "terminating connection due to unexpected postmaster exit"},
		{"57P02", "terminating connection because of crash of another server process"},
		{"57P01", "terminating connection due to administrator command"},
	} {
		before := fact("before restart %d", i)
		if _, err := writer.Append(ctx, "s", journal.Entry{Payload: before}); err != nil {
			t.Fatal(err)
		}
		if rec := next(t, tail, 10*time.Second); string(rec.Payload) != string(before) {
			t.Fatalf("restart %d: the tail delivered %s, want %s", i, rec.Payload, before)
		}
		proxy.StartingUp(true)
		if n := proxy.Terminate(down.code, down.message); n == 0 {
			t.Fatalf("restart %d: the reader had no connection to terminate", i)
		}
		// The tail meets the recovering server at least twice.
		refused := proxy.Accepted()
		for proxy.Accepted() < refused+2 {
			time.Sleep(5 * time.Millisecond)
		}
		after := fact("after restart %d", i)
		if _, err := writer.Append(ctx, "s", journal.Entry{Payload: after}); err != nil {
			t.Fatal(err)
		}
		proxy.StartingUp(false)
		if rec := next(t, tail, 10*time.Second); string(rec.Payload) != string(after) {
			t.Fatalf("restart %d (%s %s): the tail delivered %s, want %s", i, down.code, down.message, rec.Payload, after)
		}
	}
}

// The errors a tail retries are the ones a restart or a lost connection
// gives; any other the server reports ends it.
func TestTransientErrorsAreTheOnesARestartGives(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{errors.New("dial tcp 127.0.0.1:5432: connect: connection refused"), true},
		{&pgconn.ConnectError{Config: &pgconn.Config{}}, true},
		{fmt.Errorf("read: %w", &pgconn.PgError{Code: "57P01"}), true},
		{&pgconn.PgError{Code: "57P02"}, true},
		{&pgconn.PgError{Code: "57P03"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "53300"}, true},
		{&pgconn.PgError{Code: "42P01"}, false}, // undefined_table: the schema is gone
		{&pgconn.PgError{Code: "42501"}, false}, // insufficient_privilege
		{&pgconn.PgError{Code: "57014"}, false}, // query_canceled
	} {
		if got := transient(c.err); got != c.want {
			t.Errorf("transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// A commit that an older transaction elsewhere in the cluster holds back
// reaches a tail once that transaction ends, although its end sends no
// notification and the next poll is an hour away: a tail that found
// committed records it may not hand out yet looks again soon.
func TestTailDeliversACommitHeldBackByAnOlderTransactionWhenItEnds(t *testing.T) {
	s := openTest(t, WithPollInterval(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tail := collect(ctx, t, s, journal.Position{})
	waitListeners(ctx, t, s, "jobgen-pgstore-listen "+s.Schema(), 1)
	commitOlder := pgtest.OlderTransaction(t)
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("held back")}); err != nil {
		t.Fatal(err)
	}
	select {
	case rec := <-tail:
		t.Fatalf("the tail handed out %s past an open older transaction", rec.Payload)
	case <-time.After(200 * time.Millisecond): // the notification came and went
	}
	commitOlder()
	if rec := next(t, tail, 10*time.Second); string(rec.Payload) != string(fact("held back")) {
		t.Fatalf("the tail delivered %s", rec.Payload)
	}
}
