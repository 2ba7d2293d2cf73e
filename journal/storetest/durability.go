package storetest

import (
	"bytes"
	"context"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// What a successful Flush covered is there after reopening, in the same
// streams, seqs and order; appends then continue every stream and the global
// order.
func flushThenReopen(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0, 1)...)
	appendOK(t, s, "b", entries("b", 0)...)
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	before := readAll(t, s, journal.Position{})
	s = h.reopen(t, s)
	after := readAll(t, s, journal.Position{})
	if len(after) != len(before) {
		t.Fatalf("after reopen %d records, want %d", len(after), len(before))
	}
	for i := range before {
		b, a := before[i], after[i]
		if a.Stream != b.Stream || a.Seq != b.Seq || a.Pos != b.Pos || !bytes.Equal(a.Payload, b.Payload) {
			t.Fatalf("record %d after reopen: %q seq %d at %s; want %q seq %d at %s", i, a.Stream, a.Seq, a.Pos, b.Stream, b.Seq, b.Pos)
		}
	}
	if seq := appendOK(t, s, "a", entries("a", 2)...)[0]; seq != 3 {
		t.Fatalf("append after reopen: seq %d, want 3", seq)
	}
	if seq := appendOK(t, s, "c", entries("c", 0)...)[0]; seq != 1 {
		t.Fatalf("a new stream after reopen: seq %d, want 1", seq)
	}
	all := readAll(t, s, journal.Position{})
	wantOrdered(t, all)
	if len(all) != 5 || all[3].Stream != "a" || all[4].Stream != "c" {
		t.Fatalf("after reopen and two appends the global order holds %d records", len(all))
	}
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0, 1, 2)
}

// Close makes what was appended durable without a Flush.
func closeFlushes(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0, 1, 2)...)
	s = h.reopen(t, s)
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0, 1, 2)
}
