package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

func lastSeq(t *testing.T, s journal.Store, stream journal.Stream) uint64 {
	t.Helper()
	seq, err := s.LastSeq(context.Background(), stream)
	if err != nil {
		t.Fatalf("LastSeq(%q): %v", stream, err)
	}
	return seq
}

// wantLast checks that stream's last seq is want and, when it is not 0,
// that ReadStream after want-1 yields that record alone, fact(stream, n).
func wantLast(t *testing.T, s journal.Store, stream journal.Stream, want uint64, n int) {
	t.Helper()
	if got := lastSeq(t, s, stream); got != want {
		t.Fatalf("LastSeq(%q) = %d, want %d", stream, got, want)
	}
	if want == 0 {
		return
	}
	recs := readStream(t, s, stream, want-1)
	if len(recs) != 1 || recs[0].Seq != want || !bytes.Equal(recs[0].Payload, fact(stream, n)) {
		t.Fatalf("ReadStream(%q) after LastSeq-1 yields %d records (%+v), want seq %d alone", stream, len(recs), recs, want)
	}
}

// LastSeq is the seq of a stream's last record, 0 for a stream that holds
// none; a duplicate id does not raise it, other streams do not move it, and
// it holds after a reopen.
func lastSeqFollowsAppends(t *testing.T, h *harness) {
	s := h.store(t)
	wantLast(t, s, "a", 0, 0)
	appendOK(t, s, "a", entries("a", 0)...)
	wantLast(t, s, "a", 1, 0)
	appendOK(t, s, "a", entries("a", 1, 2, 3)...)
	wantLast(t, s, "a", 4, 3)
	appendOK(t, s, "b", entries("b", 0, 1)...)
	wantLast(t, s, "a", 4, 3)
	wantLast(t, s, "b", 2, 1)
	appendOK(t, s, "a", journal.Entry{ID: "k", Payload: fact("a", 4)})
	appendOK(t, s, "a", journal.Entry{ID: "k", Payload: fact("a", 99)})
	wantLast(t, s, "a", 5, 4)
	wantLast(t, s, "never", 0, 0)
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	s = h.reopen(t, s)
	wantLast(t, s, "a", 5, 4)
	wantLast(t, s, "b", 2, 1)
	wantLast(t, s, "never", 0, 0)
	appendOK(t, s, "a", entries("a", 5)...)
	wantLast(t, s, "a", 6, 5)
	s = h.reopen(t, s) // Close flushes
	wantLast(t, s, "a", 6, 5)
}

// While appenders append to one stream, every LastSeq is at least the
// largest seq an Append had returned before it began, never goes back, and
// names a record ReadStream yields; once they are done it is the stream's
// length.
func lastSeqDuringAppends(t *testing.T, h *harness) {
	s := h.store(t)
	const appenders, each = 4, 60
	var acked atomic.Uint64 // the largest seq an Append returned
	var wg sync.WaitGroup
	for g := range appenders {
		wg.Go(func() {
			for i := range each {
				seqs, err := s.Append(context.Background(), "w", entries("w", g*each+i)...)
				if err != nil {
					t.Errorf("appender %d: %v", g, err)
					return
				}
				for {
					old := acked.Load()
					if seqs[0] <= old || acked.CompareAndSwap(old, seqs[0]) {
						break
					}
				}
			}
		})
	}
	var prev uint64
	for {
		floor := acked.Load()
		got := lastSeq(t, s, "w")
		if got < floor || got < prev {
			t.Fatalf("LastSeq = %d after Append returned seq %d and LastSeq said %d", got, floor, prev)
		}
		if got > 0 {
			recs := readStream(t, s, "w", got-1)
			if len(recs) == 0 || recs[0].Seq != got {
				t.Fatalf("LastSeq = %d, but ReadStream after %d yields %d records", got, got-1, len(recs))
			}
		}
		prev = got
		if got == appenders*each || t.Failed() {
			break
		}
	}
	wg.Wait()
	if got := lastSeq(t, s, "w"); got != appenders*each {
		t.Fatalf("after %d appends LastSeq = %d", appenders*each, got)
	}
}

// LastSeq refuses what the other methods refuse: a stream name no Append
// accepts (ErrInvalid), an ended context (wrapping ctx.Err()) and a closed
// store (ErrClosed).
func lastSeqRefusals(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0)...)
	for _, stream := range []journal.Stream{"", "a\xff", "a\nb", journal.Stream(bytes.Repeat([]byte("x"), journal.MaxStreamBytes+1))} {
		if seq, err := s.LastSeq(context.Background(), stream); !errors.Is(err, journal.ErrInvalid) {
			t.Errorf("LastSeq(%q) = %d, %v; want ErrInvalid", stream, seq, err)
		}
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if seq, err := s.LastSeq(ended, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("LastSeq with an ended context = %d, %v; want context.Canceled", seq, err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if seq, err := s.LastSeq(context.Background(), "a"); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("LastSeq after Close = %d, %v; want ErrClosed", seq, err)
	}
}

// lastSeqOfFull checks LastSeq on a full stream: MaxSeq, before and after
// the refused append.
func lastSeqOfFull(t *testing.T, s journal.Store, stream journal.Stream) {
	t.Helper()
	if got := lastSeq(t, s, stream); got != journal.MaxSeq {
		t.Fatalf("LastSeq of the full stream = %d, want MaxSeq", got)
	}
	if got := lastSeq(t, s, journal.Stream(fmt.Sprint(stream, "-not"))); got != 0 {
		t.Fatalf("LastSeq of a stream beside the full one = %d, want 0", got)
	}
}
