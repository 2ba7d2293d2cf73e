package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

func appendBatchOK(t *testing.T, s journal.Store, batch ...journal.Batch) [][]uint64 {
	t.Helper()
	seqs, err := s.AppendBatch(context.Background(), batch...)
	if err != nil {
		t.Fatalf("AppendBatch of %d parts: %v", len(batch), err)
	}
	if len(seqs) != len(batch) {
		t.Fatalf("AppendBatch of %d parts returned seqs for %d", len(batch), len(seqs))
	}
	for i, b := range batch {
		if len(seqs[i]) != len(b.Entries) {
			t.Fatalf("AppendBatch part %d of %d entries returned %d seqs", i, len(b.Entries), len(seqs[i]))
		}
	}
	return seqs
}

// A batch's parts are appended in the order given: each part's entries
// consecutive in its stream after what it held, a later part of a stream
// after an earlier one, and the global order the call's, after every
// earlier append.
func batchOrder(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0)...)
	appendOK(t, s, "c", entries("c", 0)...)
	before := readAll(t, s, journal.Position{})
	seqs := appendBatchOK(t, s,
		journal.Batch{Stream: "a", Entries: entries("a", 1, 2)},
		journal.Batch{Stream: "b", Entries: entries("b", 0)},
		journal.Batch{Stream: "c", Entries: nil},
		journal.Batch{Stream: "a", Entries: entries("a", 3)},
		journal.Batch{Stream: "c", Entries: entries("c", 1, 2)},
	)
	want := [][]uint64{{2, 3}, {1}, {}, {4}, {2, 3}}
	for i := range want {
		if !slices.Equal(seqs[i], want[i]) {
			t.Fatalf("AppendBatch seqs %v, want %v", seqs, want)
		}
	}
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0, 1, 2, 3)
	wantStream(t, readStream(t, s, "b", 0), "b", 1, 0)
	wantStream(t, readStream(t, s, "c", 0), "c", 1, 0, 1, 2)
	all := readAll(t, s, journal.Position{})
	wantOrdered(t, all)
	got := all[len(before):]
	order := []struct {
		stream journal.Stream
		seq    uint64
	}{{"a", 2}, {"a", 3}, {"b", 1}, {"a", 4}, {"c", 2}, {"c", 3}}
	if len(got) != len(order) {
		t.Fatalf("the batch added %d records to the global order, want %d", len(got), len(order))
	}
	for i, w := range order {
		if got[i].Stream != w.stream || got[i].Seq != w.seq {
			t.Fatalf("record %d of the batch in the global order: %q seq %d, want %q seq %d (the call's order)",
				i, got[i].Stream, got[i].Seq, w.stream, w.seq)
		}
	}
	if seq := appendOK(t, s, "a", entries("a", 4)...)[0]; seq != 5 {
		t.Fatalf("an Append after the batch: seq %d, want 5", seq)
	}
}

// Ids in a batch are idempotent as in Append: an id the stream holds, or
// an earlier entry of the call holds (in any part of that stream), answers
// that record's seq and takes none; the same batch again appends nothing
// and answers the same seqs. An id is per stream.
func batchIDs(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", journal.Entry{ID: "held", Payload: fact("a", 0)})
	batch := []journal.Batch{
		{Stream: "a", Entries: []journal.Entry{{ID: "held", Payload: fact("a", 9)}, {ID: "x", Payload: fact("a", 1)}, {ID: "z", Payload: fact("a", 2)}}},
		{Stream: "b", Entries: []journal.Entry{{ID: "x", Payload: fact("b", 0)}}},
		{Stream: "a", Entries: []journal.Entry{{ID: "x", Payload: fact("a", 9)}, {ID: "y", Payload: fact("a", 3)}}},
	}
	want := [][]uint64{{1, 2, 3}, {1}, {2, 4}}
	for round := range 2 {
		seqs := appendBatchOK(t, s, batch...)
		for i := range want {
			if !slices.Equal(seqs[i], want[i]) {
				t.Fatalf("round %d: AppendBatch seqs %v, want %v", round, seqs, want)
			}
		}
	}
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0, 1, 2, 3)
	wantStream(t, readStream(t, s, "b", 0), "b", 1, 0)
	if n := len(readAll(t, s, journal.Position{})); n != 5 {
		t.Fatalf("the store holds %d records after a batch and its retry, want 5", n)
	}
}

// Bad input in any part refuses the whole batch and appends nothing.
func batchBadInput(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0)...)
	for name, bad := range map[string]journal.Batch{
		"payload":     {Stream: "b", Entries: []journal.Entry{{Payload: []byte(`{"a":`)}}},
		"stream name": {Stream: "", Entries: entries("", 0)},
		"empty":       {Stream: "b", Entries: []journal.Entry{{}}},
	} {
		_, err := s.AppendBatch(context.Background(),
			journal.Batch{Stream: "a", Entries: entries("a", 1)}, bad, journal.Batch{Stream: "c", Entries: entries("c", 0)})
		if !errors.Is(err, journal.ErrInvalid) {
			t.Fatalf("AppendBatch with a bad %s = %v, want ErrInvalid", name, err)
		}
	}
	if n := len(readAll(t, s, journal.Position{})); n != 1 {
		t.Fatalf("refused batches left %d records, want the 1 before them", n)
	}
	if seq := appendOK(t, s, "a", entries("a", 1)...)[0]; seq != 2 {
		t.Fatalf("an Append after refused batches: seq %d, want 2", seq)
	}
}

// A batch that would take a stream past MaxSeq is refused whole, with
// ErrFull: its parts for other streams append nothing either.
func batchFull(t *testing.T, full func(t *testing.T, stream journal.Stream) journal.Store) {
	if full == nil {
		t.Fatal("the backend gave no way to build a full stream: pass storetest.WithFull to Run; ErrFull is part of the contract")
	}
	s := full(t, "full")
	t.Cleanup(func() { s.Close(context.Background()) })
	_, err := s.AppendBatch(context.Background(),
		journal.Batch{Stream: "other", Entries: entries("other", 0)},
		journal.Batch{Stream: "full", Entries: entries("full", 1)})
	if !errors.Is(err, journal.ErrFull) {
		t.Fatalf("AppendBatch with a part for a full stream = %v, want ErrFull", err)
	}
	if recs := readStream(t, s, "other", 0); len(recs) != 0 {
		t.Fatalf("a batch refused as full appended %d records to another stream", len(recs))
	}
	if seqs := appendBatchOK(t, s, journal.Batch{Stream: "other", Entries: entries("other", 0)}); seqs[0][0] != 1 {
		t.Fatalf("a batch without the full stream: seq %d, want 1", seqs[0][0])
	}
}

// What AppendBatch returned is durable without a Flush: after a crash
// (the backend's crash function abandons the store as a killed process
// would, keeping only what it made durable) every record of the batch is
// there.
func batchDurable(t *testing.T, h *harness, crash func(t *testing.T, s journal.Store) journal.Store) {
	if crash == nil {
		t.Fatal("the backend gave no way to crash a store: pass storetest.WithCrash to Run; AppendBatch's durability is part of the contract")
	}
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0)...)
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	appendBatchOK(t, s,
		journal.Batch{Stream: "a", Entries: entries("a", 1, 2)},
		journal.Batch{Stream: "b", Entries: entries("b", 0)})
	after := crash(t, s)
	t.Cleanup(func() { after.Close(context.Background()) })
	wantStream(t, readStream(t, after, "a", 0), "a", 1, 0, 1, 2)
	wantStream(t, readStream(t, after, "b", 0), "b", 1, 0)
}

// AppendBatch with an ended context fails wrapping its error and appends
// nothing; after Close it fails with ErrClosed.
func batchContextAndClose(t *testing.T, h *harness) {
	s := h.store(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.AppendBatch(ctx, journal.Batch{Stream: "a", Entries: entries("a", 0)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("AppendBatch with an ended context = %v, want context.Canceled", err)
	}
	if recs := readStream(t, s, "a", 0); len(recs) != 0 {
		t.Fatalf("AppendBatch with an ended context appended %d records", len(recs))
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.AppendBatch(context.Background(), journal.Batch{Stream: "a", Entries: entries("a", 0)}); !errors.Is(err, journal.ErrClosed) {
		t.Fatalf("AppendBatch after Close = %v, want ErrClosed", err)
	}
}
