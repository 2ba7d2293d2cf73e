package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// testDSN returns the server the tests run against: JOBGEN_TEST_POSTGRES.
// Without it a test skips locally and fails under CI=true, where .ci/run
// starts a server.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("JOBGEN_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("JOBGEN_TEST_POSTGRES is not set under CI=true: .ci/run must start PostgreSQL (.ci/pg.sh start)")
		}
		t.Skip("no PostgreSQL: run `make pg-up` and export the JOBGEN_TEST_POSTGRES it prints")
	}
	return dsn
}

var nonIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// testSchema returns a schema name of its own for t, and drops the schema
// when t ends.
func testSchema(t testing.TB) string {
	t.Helper()
	dsn := testDSN(t)
	var b [4]byte
	rand.Read(b[:])
	name := nonIdent.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	schema := "t_" + name + "_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}

// openTest opens a store in a fresh schema and closes it when t ends.
func openTest(t testing.TB, opts ...Option) *Store {
	t.Helper()
	schema := testSchema(t)
	return openSchema(t, schema, opts...)
}

// openSchema opens a store on schema and closes it when t ends.
func openSchema(t testing.TB, schema string, opts ...Option) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, testDSN(t), append([]Option{WithSchema(schema)}, opts...)...)
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
	pool, err := pgxpool.New(context.Background(), testDSN(t))
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

// checkGapFree fails t unless recs have seqs 1..len(recs) in order.
func checkGapFree(t testing.TB, stream journal.Stream, recs []journal.Record) {
	t.Helper()
	for i, rec := range recs {
		if rec.Seq != uint64(i+1) {
			t.Fatalf("stream %q: record %d has seq %d, want %d (gap or disorder)", stream, i, rec.Seq, i+1)
		}
	}
}
