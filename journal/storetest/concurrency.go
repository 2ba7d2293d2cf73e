package storetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// Many goroutines append to many streams, some sharing a stream, while
// others flush: every stream is gap-free from 1, each appender's records are
// in its order, the seqs Append returned are the ones read back, and the
// global order holds every record once.
func concurrentAppenders(t *testing.T, h *harness) {
	s := h.store(t)
	const appenders, each = 8, 100
	streamOf := func(g int) journal.Stream { return journal.Stream(fmt.Sprintf("s%d", g%6)) } // 6 streams, 2 shared
	got := make([][]uint64, appenders)
	var wg sync.WaitGroup
	for g := range appenders {
		wg.Go(func() {
			for i := range each {
				n := g*each + i
				seqs, err := s.Append(context.Background(), streamOf(g), entries(streamOf(g), n)...)
				if err != nil {
					t.Errorf("appender %d: %v", g, err)
					return
				}
				got[g] = append(got[g], seqs[0])
				if i%25 == 0 {
					if err := s.Flush(context.Background()); err != nil {
						t.Errorf("appender %d: Flush: %v", g, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	total := 0
	for k := range 6 {
		stream := journal.Stream(fmt.Sprintf("s%d", k))
		recs := readStream(t, s, stream, 0)
		bySeq := map[uint64]string{}
		for i, rec := range recs {
			if rec.Seq != uint64(i+1) {
				t.Fatalf("stream %q: record %d has seq %d", stream, i, rec.Seq)
			}
			bySeq[rec.Seq] = string(rec.Payload)
		}
		total += len(recs)
		for g := range appenders {
			if streamOf(g) != stream {
				continue
			}
			for i, seq := range got[g] {
				if want := string(fact(stream, g*each+i)); bySeq[seq] != want {
					t.Fatalf("appender %d entry %d: seq %d holds %s, want %s", g, i, seq, bySeq[seq], want)
				}
				if i > 0 && seq <= got[g][i-1] {
					t.Fatalf("appender %d: seq %d after %d", g, seq, got[g][i-1])
				}
			}
		}
	}
	if total != appenders*each {
		t.Fatalf("the streams hold %d records, want %d", total, appenders*each)
	}
	all := readAll(t, s, journal.Position{})
	wantOrdered(t, all)
	if len(all) != appenders*each {
		t.Fatalf("ReadAll yields %d records, want %d", len(all), appenders*each)
	}
}

// While a writer appends, readers of the stream and of the global order
// see, each time, a gap-free prefix holding at least every record whose
// Append returned before the read began.
func readsDuringWrites(t *testing.T, h *harness) {
	s := h.store(t)
	const total = 300
	var acked atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for n := range total {
			if _, err := s.Append(context.Background(), "w", entries("w", n)...); err != nil {
				t.Errorf("append: %v", err)
				return
			}
			acked.Store(int64(n + 1))
			if n%50 == 0 {
				s.Flush(context.Background())
			}
		}
	})
	for {
		want := acked.Load()
		recs := readStream(t, s, "w", 0)
		if int64(len(recs)) < want {
			t.Fatalf("ReadStream yields %d records after %d appends returned", len(recs), want)
		}
		for i, rec := range recs {
			if rec.Seq != uint64(i+1) || !bytes.Equal(rec.Payload, fact("w", i)) {
				t.Fatalf("ReadStream during writes: record %d is seq %d %s", i, rec.Seq, rec.Payload)
			}
		}
		all := readAll(t, s, journal.Position{})
		if int64(len(all)) < want {
			t.Fatalf("ReadAll yields %d records after %d appends returned", len(all), want)
		}
		wantOrdered(t, all)
		if want == total {
			break
		}
	}
	wg.Wait()
}

// Appenders of overlapping streams, one to three entries a call, each
// appending to a stream another is appending to: the global order holds
// every record once and agrees with every stream's order, whatever the
// backend did with the appends at once (shared transactions, lock waits).
func globalOrderAgreesWithStreams(t *testing.T, h *harness) {
	s := h.store(t)
	const appenders, each, streams = 8, 60, 4
	var wg sync.WaitGroup
	for g := range appenders {
		wg.Go(func() {
			for i := range each {
				stream := journal.Stream(fmt.Sprintf("s%d", (g+i)%streams))
				ns := make([]int, 1+(g+i)%3)
				for k := range ns {
					ns[k] = (g*each+i)*3 + k
				}
				if _, err := s.Append(context.Background(), stream, entries(stream, ns...)...); err != nil {
					t.Errorf("appender %d: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	all := readAll(t, s, journal.Position{})
	wantOrdered(t, all)
	perStream := map[journal.Stream]int{}
	for _, rec := range all {
		perStream[rec.Stream]++
	}
	for k := range streams {
		stream := journal.Stream(fmt.Sprintf("s%d", k))
		if n := len(readStream(t, s, stream, 0)); n != perStream[stream] {
			t.Fatalf("stream %q holds %d records, ReadAll yields %d of it", stream, n, perStream[stream])
		}
	}
}
