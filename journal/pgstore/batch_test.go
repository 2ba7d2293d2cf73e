package pgstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// An AppendBatch larger than the store's byte cap is still one
// transaction, sent in chunks: every record it appended has one xid, and
// the global order is the call's.
func TestBatchPastTheByteCapIsOneTransaction(t *testing.T) {
	s := openTest(t, WithMaxBatchBytes(4<<10))
	ctx := context.Background()
	big := func(n int) []byte { return fact("%d%s", n, strings.Repeat("x", 1800)) }
	parts := []journal.Batch{
		{Stream: "s2", Entries: []journal.Entry{{ID: "a", Payload: fact("a")}, {ID: "b", Payload: fact("b")}}},
		{Stream: "s0", Entries: []journal.Entry{{ID: "c", Payload: big(1)}, {ID: "d", Payload: big(2)}, {ID: "e", Payload: big(3)}}},
	}
	if _, err := s.AppendBatch(ctx, parts...); err != nil {
		t.Fatal(err)
	}
	var got []journal.Record
	for rec, err := range s.ReadAll(ctx, journal.Position{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	if len(got) != 5 {
		t.Fatalf("read %d records, want 5", len(got))
	}
	for i, rec := range got {
		if want := "abcde"[i : i+1]; rec.ID != want || rec.Pos.Major != got[0].Pos.Major {
			t.Errorf("record %d: id %q at %s, want id %q at major %d", i, rec.ID, rec.Pos, want, got[0].Pos.Major)
		}
	}
}

// A session whose default isolation is not READ COMMITTED appends all the
// same: append_facts refuses it (its snapshot would precede the locks), the
// statement rolls back, and the store names READ COMMITTED in a transaction
// from then on.
func TestAppendsUnderAnotherDefaultIsolation(t *testing.T) {
	schema := pgtest.Schema(t)
	s, err := Open(context.Background(), pgtest.DSN(t)+"&default_transaction_isolation=repeatable%20read", WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	for i := range 3 {
		seqs, err := s.Append(ctx, "s", journal.Entry{ID: fmt.Sprint(i), Payload: fact("%d", i)})
		if err != nil || len(seqs) != 1 || seqs[0] != uint64(i+1) {
			t.Fatalf("append %d under REPEATABLE READ: %v, %v; want seq %d", i, seqs, err, i+1)
		}
	}
	if !s.explicitTx.Load() {
		t.Fatal("the store did not fall back to a transaction naming READ COMMITTED")
	}
	if got := readStream(t, s, "s", 0); len(got) != 3 {
		t.Fatalf("the stream holds %d records, want 3", len(got))
	}
}
