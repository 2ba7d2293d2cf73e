package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/journal"
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
