package pgstore

import (
	"context"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/journal/storetest"
)

// pgstore keeps every promise of journal.Store: the conformance suite, each
// subtest in a schema of its own, reopened on the same schema. Four
// committers, so that the suite's concurrent appends run in transactions at
// once, which wait for each other's locks.
func TestConformance(t *testing.T) {
	pgtest.DSN(t)
	var mu sync.Mutex
	schemas := map[*testing.T]string{}
	open := func(t *testing.T) journal.Store {
		mu.Lock()
		schema, ok := schemas[t]
		if !ok {
			schema = pgtest.Schema(t)
			schemas[t] = schema
		}
		mu.Unlock()
		s, err := Open(context.Background(), pgtest.DSN(t), WithSchema(schema), WithCommitters(4))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Every Append and AppendBatch that returned committed: a crash keeps
	// it all, so another store opened on the schema, beside the abandoned
	// one, reads what survives.
	crash := func(t *testing.T, s journal.Store) journal.Store {
		c, err := Open(context.Background(), pgtest.DSN(t), WithSchema(s.(*Store).Schema()))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	storetest.Run(t, open, storetest.WithCrash(crash), storetest.WithFull(func(t *testing.T, stream journal.Stream) journal.Store {
		schema := pgtest.Schema(t)
		s, err := Open(context.Background(), pgtest.DSN(t), WithSchema(schema))
		if err != nil {
			t.Fatal(err)
		}
		// A stream at the largest seq, written as an archive of every seq
		// before it and then an append would have left it.
		ctx := context.Background()
		if _, err := s.Pool().Exec(ctx, `INSERT INTO `+s.sql.table("stream")+` (name, head, archived) VALUES ($1, $2, $3)`,
			string(stream), int64(journal.MaxSeq)-1, int64(journal.MaxSeq)-1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Pool().Exec(ctx, `INSERT INTO `+s.sql.table("fact")+` (stream, seq, payload) VALUES ($1, $2, '{"full":true}')`, string(stream), int64(journal.MaxSeq)); err != nil {
			t.Fatal(err)
		}
		return s
	}))
}
