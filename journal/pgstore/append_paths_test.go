package pgstore

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// appendFactsAnswer is what one call of append_facts answered.
type appendFactsAnswer struct {
	seqs       []int64
	held, fits []bool
	xid        *uint64
}

// TestAppendFactsAnswersAlikeWithRoomAndNearTheLargestSeq calls append_facts
// with one chunk (held ids, new ids, no ids, a new stream, entries of one
// stream apart) on two stores alike but for their streams' heads: in one
// every stream has room for the chunk, so schema version 7's lean statements
// run; in the other two streams are within the chunk's size of the largest
// seq, so version 6's statement decides what fits (decision 0244). Both must
// answer the same held seqs, the same seqs relative to each stream's base,
// every stream fitting, and an xid, and store the same facts.
func TestAppendFactsAnswersAlikeWithRoomAndNearTheLargestSeq(t *testing.T) {
	ctx := context.Background()
	const near = int64(math.MaxInt64 - 4) // room false: 5 entries; each stream still fits
	streams := []string{"a", "b", "c"}
	si := []int64{1, 1, 2, 3, 1, 3}
	ids := []string{"x1", "y1", "", "z1", "", ""}
	payloads := make([]string, len(si))
	for i := range payloads {
		payloads[i] = string(fact("entry %d", i))
	}
	call := func(s *Store, base map[string]int64) (appendFactsAnswer, []journal.Record) {
		t.Helper()
		if _, err := s.Append(ctx, "a", journal.Entry{ID: "x0", Payload: fact("a0")}, journal.Entry{ID: "x1", Payload: fact("a1")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, "b", journal.Entry{Payload: fact("b0")}); err != nil {
			t.Fatal(err)
		}
		for name, head := range base {
			if _, err := s.Pool().Exec(ctx, `UPDATE `+s.sql.table("stream")+` SET head = $1 WHERE name = $2`, head, name); err != nil {
				t.Fatal(err)
			}
		}
		var a appendFactsAnswer
		if err := s.Pool().QueryRow(ctx, s.sql.of(appendFactsSQL), streams, s.lockSeed, streams, si, ids, payloads, false).
			Scan(&a.seqs, &a.held, &a.fits, &a.xid); err != nil {
			t.Fatalf("append_facts: %v", err)
		}
		var recs []journal.Record
		for _, name := range streams {
			for rec, err := range s.ReadStream(ctx, journal.Stream(name), 0) {
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, rec)
			}
		}
		return a, recs
	}
	roomy, roomyRecs := call(openTest(t), nil)
	tight, tightRecs := call(openTest(t), map[string]int64{"a": near, "b": near})

	wantHeld := []bool{true, false, false, false, false, false}
	for name, a := range map[string]appendFactsAnswer{"with room": roomy, "near the largest seq": tight} {
		if !slices.Equal(a.held, wantHeld) || !slices.Equal(a.fits, []bool{true, true, true}) || a.xid == nil || a.seqs[0] != 2 {
			t.Errorf("%s: held %v fits %v xid %v seqs %v; want held %v, every stream fitting, an xid, x1 held at seq 2",
				name, a.held, a.fits, a.xid, a.seqs, wantHeld)
		}
	}
	// Relative to each stream's base (a: 2 then near, b: 1 then near, c: 0).
	rel := func(a appendFactsAnswer, bases []int64) []int64 {
		out := make([]int64, len(a.seqs))
		for i, seq := range a.seqs {
			if a.held[i] {
				out[i] = seq
				continue
			}
			out[i] = seq - bases[si[i]-1]
		}
		return out
	}
	want := []int64{2, 1, 1, 1, 2, 2}
	if got := rel(roomy, []int64{2, 1, 0}); !slices.Equal(got, want) {
		t.Errorf("with room: seqs %v, relative %v; want relative %v", roomy.seqs, got, want)
	}
	if got := rel(tight, []int64{near, near, 0}); !slices.Equal(got, want) {
		t.Errorf("near the largest seq: seqs %v, relative %v; want relative %v", tight.seqs, got, want)
	}
	if len(roomyRecs) != len(tightRecs) || len(roomyRecs) != 3+len(si)-1 {
		t.Fatalf("stored %d and %d records, want %d each", len(roomyRecs), len(tightRecs), 3+len(si)-1)
	}
	for i := range roomyRecs {
		r, n := roomyRecs[i], tightRecs[i]
		if r.Stream != n.Stream || r.ID != n.ID || string(r.Payload) != string(n.Payload) {
			t.Errorf("record %d: %s %q %s with room, %s %q %s near the largest seq", i, r.Stream, r.ID, r.Payload, n.Stream, n.ID, n.Payload)
		}
	}
}
