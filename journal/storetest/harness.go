package storetest

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// A harness opens the stores of one run of the suite, and reopens them over
// the same backing data, through the open function Run was given.
type harness struct {
	open func(t *testing.T) journal.Store
}

// store opens a store for t and closes it when t ends.
func (h *harness) store(t *testing.T) journal.Store {
	t.Helper()
	s := h.open(t)
	if s == nil {
		t.Fatal("open returned a nil store")
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// reopen closes s, failing t on error, and opens the same backing data again.
func (h *harness) reopen(t *testing.T, s journal.Store) journal.Store {
	t.Helper()
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return h.store(t)
}

func fact(stream journal.Stream, n int) []byte {
	return fmt.Appendf(nil, `{"type":"test/fact","v":1,"data":{"stream":%q,"n":%d}}`, stream, n)
}

func appendOK(t *testing.T, s journal.Store, stream journal.Stream, entries ...journal.Entry) []uint64 {
	t.Helper()
	seqs, err := s.Append(context.Background(), stream, entries...)
	if err != nil {
		t.Fatalf("Append(%q, %d entries): %v", stream, len(entries), err)
	}
	if len(seqs) != len(entries) {
		t.Fatalf("Append(%q, %d entries) returned %d seqs", stream, len(entries), len(seqs))
	}
	return seqs
}

func collect(t *testing.T, records iter.Seq2[journal.Record, error]) []journal.Record {
	t.Helper()
	var out []journal.Record
	for rec, err := range records {
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		out = append(out, rec)
	}
	return out
}

func readStream(t *testing.T, s journal.Store, stream journal.Stream, after uint64) []journal.Record {
	t.Helper()
	return collect(t, s.ReadStream(context.Background(), stream, after))
}

func readAll(t *testing.T, s journal.Store, after journal.Position) []journal.Record {
	t.Helper()
	return collect(t, s.ReadAll(context.Background(), after))
}

// wantStream checks that recs are the records of stream with seqs first,
// first+1, … and the payloads fact(stream, n) for the given ns.
func wantStream(t *testing.T, recs []journal.Record, stream journal.Stream, first uint64, ns ...int) {
	t.Helper()
	if len(recs) != len(ns) {
		t.Fatalf("stream %q: %d records, want %d", stream, len(recs), len(ns))
	}
	for i, rec := range recs {
		if rec.Stream != stream || rec.Seq != first+uint64(i) || !bytes.Equal(rec.Payload, fact(stream, ns[i])) {
			t.Fatalf("stream %q record %d: stream %q seq %d payload %s; want seq %d payload %s",
				stream, i, rec.Stream, rec.Seq, rec.Payload, first+uint64(i), fact(stream, ns[i]))
		}
	}
}

// wantOrdered checks records read in the global order: their positions
// strictly increase, and the global order agrees with every stream's, each
// stream's records coming in seq order.
func wantOrdered(t *testing.T, recs []journal.Record) {
	t.Helper()
	last := map[journal.Stream]journal.Record{}
	for i, rec := range recs {
		if i > 0 && recs[i-1].Pos.Compare(rec.Pos) >= 0 {
			t.Fatalf("position %s of record %d does not follow %s", rec.Pos, i, recs[i-1].Pos)
		}
		if prev, ok := last[rec.Stream]; ok && prev.Seq >= rec.Seq {
			t.Fatalf("the global order disagrees with stream %q's: seq %d at %s comes after seq %d at %s",
				rec.Stream, rec.Seq, rec.Pos, prev.Seq, prev.Pos)
		}
		last[rec.Stream] = rec
	}
}

func entries(stream journal.Stream, ns ...int) []journal.Entry {
	out := make([]journal.Entry, len(ns))
	for i, n := range ns {
		out[i] = journal.Entry{Payload: fact(stream, n)}
	}
	return out
}
