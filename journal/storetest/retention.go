package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// A store without retention never loses a fact: after many appends to many
// streams from concurrent appenders, with reopens in between, every stream
// reads back from seq 1 without a gap and every record is in the global
// order; no read answers journal.ErrArchived, which only retention (a
// backend's archive, run on purpose) may make a read answer.
func nothingIsLost(t *testing.T, h *harness) {
	const streams, rounds, perAppend = 8, 3, 4
	s := h.store(t)
	want := map[journal.Stream]int{}
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, streams)
		for i := range streams {
			stream := journal.Stream(fmt.Sprintf("s%d", i))
			want[stream] += 2 * perAppend
			wg.Go(func() {
				for k := range 2 {
					n := (2*round+k)*perAppend + 1
					if _, err := s.Append(context.Background(), stream, entries(stream, n, n+1, n+2, n+3)...); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("Append: %v", err)
		}
		if err := s.Flush(context.Background()); err != nil {
			t.Fatalf("Flush: %v", err)
		}
		s = h.reopen(t, s)
	}
	total := 0
	for stream, n := range want {
		var recs []journal.Record
		for rec, err := range s.ReadStream(context.Background(), stream, 0) {
			if errors.Is(err, journal.ErrArchived) {
				t.Fatalf("ReadStream(%q) without retention: %v", stream, err)
			}
			if err != nil {
				t.Fatalf("ReadStream(%q): %v", stream, err)
			}
			recs = append(recs, rec)
		}
		if len(recs) != n {
			t.Fatalf("stream %q holds %d records, want %d", stream, len(recs), n)
		}
		for i, rec := range recs {
			if rec.Seq != uint64(i+1) {
				t.Fatalf("stream %q: record %d has seq %d: a fact was lost", stream, i, rec.Seq)
			}
		}
		total += n
	}
	all := readAll(t, s, journal.Position{})
	wantOrdered(t, all)
	if len(all) != total {
		t.Fatalf("the global order holds %d records, want %d", len(all), total)
	}
}
