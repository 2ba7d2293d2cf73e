package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// Each stream's seqs start at 1 and go up by one, whatever other streams do;
// a stream that was never appended to reads empty.
func seqsStartAtOne(t *testing.T, h *harness) {
	s := h.store(t)
	for n := range 5 {
		for _, stream := range []journal.Stream{"a", "b"} {
			if got := appendOK(t, s, stream, entries(stream, n)...); got[0] != uint64(n+1) {
				t.Fatalf("append %d to %q: seq %d, want %d", n, stream, got[0], n+1)
			}
		}
	}
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0, 1, 2, 3, 4)
	wantStream(t, readStream(t, s, "b", 0), "b", 1, 0, 1, 2, 3, 4)
	if got := readStream(t, s, "never", 0); len(got) != 0 {
		t.Fatalf("a stream never appended to yields %d records", len(got))
	}
}

// The entries of one Append get consecutive seqs in their stream and are
// consecutive in the global order, even while other streams are appended to.
func oneCallConsecutive(t *testing.T, h *harness) {
	s := h.store(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Append(context.Background(), "noise", entries("noise", n)...); err != nil {
				t.Errorf("noise append: %v", err)
				return
			}
		}
	})
	const batches, size = 20, 5
	for b := range batches {
		ns := make([]int, size)
		for i := range ns {
			ns[i] = b*size + i
		}
		seqs := appendOK(t, s, "batch", entries("batch", ns...)...)
		for i, seq := range seqs {
			if seq != uint64(b*size+i+1) {
				t.Fatalf("batch %d entry %d: seq %d, want %d", b, i, seq, b*size+i+1)
			}
		}
	}
	close(stop)
	wg.Wait()
	all := readAll(t, s, journal.Position{})
	wantOrdered(t, all)
	run := 0
	for _, rec := range all {
		switch {
		case rec.Stream != "batch" && run%size != 0:
			t.Fatalf("a %q record at %s splits a batch after %d of its %d entries", rec.Stream, rec.Pos, run%size, size)
		case rec.Stream == "batch":
			run++
		}
	}
	if run != batches*size {
		t.Fatalf("ReadAll yields %d batch records, want %d", run, batches*size)
	}
}

// An entry whose id its stream holds appends nothing and returns the seq of
// the record that holds it, also within one call and after a reopen; ids of
// different streams do not meet; an empty id never deduplicates.
func idempotentIDs(t *testing.T, h *harness) {
	s := h.store(t)
	first := appendOK(t, s, "a", journal.Entry{ID: "k1", Payload: fact("a", 0)})[0]
	again := appendOK(t, s, "a", journal.Entry{ID: "k1", Payload: fact("a", 99)})[0]
	if again != first {
		t.Fatalf("a retried append with id k1: seq %d, want the first's %d", again, first)
	}
	got := appendOK(t, s, "a",
		journal.Entry{ID: "k2", Payload: fact("a", 1)},
		journal.Entry{Payload: fact("a", 2)},
		journal.Entry{ID: "k2", Payload: fact("a", 98)},
		journal.Entry{ID: "k1", Payload: fact("a", 97)},
		journal.Entry{Payload: fact("a", 3)},
	)
	if want := []uint64{2, 3, 2, 1, 4}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("one call with repeated ids: seqs %v, want %v", got, want)
	}
	recs := readStream(t, s, "a", 0)
	wantStream(t, recs, "a", 1, 0, 1, 2, 3)
	if recs[0].ID != "k1" || recs[1].ID != "k2" || recs[2].ID != "" {
		t.Fatalf("ids read back: %q %q %q; want k1 k2 and none", recs[0].ID, recs[1].ID, recs[2].ID)
	}
	if b := appendOK(t, s, "b", journal.Entry{ID: "k1", Payload: fact("b", 0)})[0]; b != 1 {
		t.Fatalf("id k1 in another stream: seq %d, want a new record at 1", b)
	}
	if n := len(readAll(t, s, journal.Position{})); n != 5 {
		t.Fatalf("the store holds %d records, want 5: duplicates wrote something", n)
	}
	s = h.reopen(t, s)
	if seq := appendOK(t, s, "a", journal.Entry{ID: "k2", Payload: fact("a", 96)})[0]; seq != 2 {
		t.Fatalf("id k2 after reopen: seq %d, want 2", seq)
	}
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0, 1, 2, 3)
}

// A stream at seq MaxSeq refuses the next append with ErrFull and changes
// nothing; other streams still take appends. The backend's full stream
// holds its record at MaxSeq alone (no store holds MaxSeq records), so it
// is read after MaxSeq-1: a read from before that yields an ArchivedError.
func fullStream(t *testing.T, full func(t *testing.T, stream journal.Stream) journal.Store) {
	if full == nil {
		t.Fatal("the backend gave no way to build a full stream: pass storetest.WithFull to Run; ErrFull is part of the contract")
	}
	s := full(t, "full")
	t.Cleanup(func() { s.Close(context.Background()) })
	before := readStream(t, s, "full", journal.MaxSeq-1)
	if len(before) != 1 || before[0].Seq != journal.MaxSeq {
		t.Fatalf("the full stream holds %d records (last %+v); want one at seq MaxSeq", len(before), before)
	}
	lastSeqOfFull(t, s, "full")
	if seqs, err := s.Append(context.Background(), "full", entries("full", 1)...); !errors.Is(err, journal.ErrFull) {
		t.Fatalf("Append to a full stream = %v, %v; want ErrFull", seqs, err)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush after the refused append: %v", err)
	}
	if after := readStream(t, s, "full", journal.MaxSeq-1); len(after) != 1 {
		t.Fatalf("after the refused append the stream holds %d records", len(after))
	}
	lastSeqOfFull(t, s, "full")
	if seq := appendOK(t, s, "other", entries("other", 0)...)[0]; seq != 1 {
		t.Fatalf("another stream of a store with a full stream: seq %d, want 1", seq)
	}
}
