package pgstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// openTest opens a store in a fresh schema and closes it when t ends.
func openTest(t testing.TB, opts ...Option) *Store {
	t.Helper()
	schema := pgtest.Schema(t)
	return openSchema(t, schema, opts...)
}

// openSchema opens a store on schema and closes it when t ends.
func openSchema(t testing.TB, schema string, opts ...Option) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, pgtest.DSN(t), append([]Option{WithSchema(schema)}, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// testPool returns a pool on the test server, closed when t ends.
func testPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// fact returns a small JSON payload.
func fact(format string, args ...any) []byte {
	return fmt.Appendf(nil, `{"type":"test","v":1,"data":%q}`, fmt.Sprintf(format, args...))
}

// entries returns n entries whose payloads name prefix and their index, with
// ids when withIDs.
func entries(prefix string, n int, withIDs bool) []journal.Entry {
	es := make([]journal.Entry, n)
	for i := range es {
		es[i].Payload = fact("%s-%d", prefix, i)
		if withIDs {
			es[i].ID = fmt.Sprintf("%s-%d", prefix, i)
		}
	}
	return es
}

// readStream collects a stream, failing t on an error.
func readStream(t testing.TB, s journal.Store, stream journal.Stream, after uint64) []journal.Record {
	t.Helper()
	var recs []journal.Record
	for rec, err := range s.ReadStream(context.Background(), stream, after) {
		if err != nil {
			t.Fatalf("ReadStream(%q, %d): %v", stream, after, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// readAll collects the global order, failing t on an error.
func readAll(t testing.TB, s journal.Store, after journal.Position) []journal.Record {
	t.Helper()
	var recs []journal.Record
	for rec, err := range s.ReadAll(context.Background(), after) {
		if err != nil {
			t.Fatalf("ReadAll(%s): %v", after, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// readGapFree collects a stream, failing t unless its records have seqs
// 1..n in order.
func readGapFree(t testing.TB, s journal.Store, stream journal.Stream) []journal.Record {
	t.Helper()
	recs := readStream(t, s, stream, 0)
	for i, rec := range recs {
		if rec.Seq != uint64(i+1) {
			t.Fatalf("stream %q: record %d has seq %d, want %d (gap or disorder)", stream, i, rec.Seq, i+1)
		}
	}
	return recs
}
