// Package storetest is the conformance suite of journal.Store: every promise
// of the contract, checked against a backend through the interface alone.
// A backend's test is one call:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, openMyStore, storetest.WithFull(openMyFullStore))
//	}
//
// No backend is done until it passes, under -race.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// An Option adds what the suite cannot reach through journal.Store alone.
type Option func(*config)

type config struct {
	full func(t *testing.T, stream journal.Stream) journal.Store
}

// WithFull gives the suite a store in which stream is full: full(t, stream)
// returns a store over new backing data (independent of open's) whose stream
// holds one record, at seq journal.MaxSeq. The suite checks that the next
// append to it is refused with ErrFull and changes nothing, and that other
// streams still take appends. Without it the ErrFull promise cannot be
// checked, and its subtest fails saying so.
func WithFull(full func(t *testing.T, stream journal.Stream) journal.Store) Option {
	return func(c *config) { c.full = full }
}

// Run checks every promise of journal.Store against the stores open makes,
// each in a subtest.
//
// open(t) returns a store for the subtest t. Called again with the same t,
// after the suite closed the store it returned before, it must return a store
// over the same backing data, as a process restarting on the same file or
// database would: that is how the suite checks that what was flushed or
// closed is still there. Stores of different subtests must be independent
// (a new file, a new schema or database). The suite closes every store it
// opens.
func Run(t *testing.T, open func(t *testing.T) journal.Store, opts ...Option) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	h := &harness{open: open}
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *harness)
	}{
		{"SeqsStartAtOneWithoutGaps", seqsStartAtOne},
		{"ReadStreamAfterSeq", readStreamAfter},
		{"GlobalOrderIsAppendOrder", globalOrder},
		{"ReadAllAfterAnyPosition", readAllAfterAny},
		{"EntriesOfOneCallAreConsecutive", oneCallConsecutive},
		{"IDsAreIdempotentPerStream", idempotentIDs},
		{"FlushThenReopenKeepsEverything", flushThenReopen},
		{"CloseFlushes", closeFlushes},
		{"ConcurrentAppendersOfManyStreams", concurrentAppenders},
		{"ReadsSeeWhatAppendReturnedDuringWrites", readsDuringWrites},
		{"ContextEndStopsEveryMethod", contextEnd},
		{"CloseSemantics", closeSemantics},
		{"BadInputChangesNothing", badInput},
		{"PayloadsAreCopies", payloadsAreCopies},
		{"FullStreamRefusesAppends", func(t *testing.T, h *harness) { fullStream(t, c.full) }},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, h) })
	}
}

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

// wantOrdered checks that the positions of recs strictly increase.
func wantOrdered(t *testing.T, recs []journal.Record) {
	t.Helper()
	for i := 1; i < len(recs); i++ {
		if recs[i-1].Pos.Compare(recs[i].Pos) >= 0 {
			t.Fatalf("position %s of record %d does not follow %s", recs[i].Pos, i, recs[i-1].Pos)
		}
	}
}

func entries(stream journal.Stream, ns ...int) []journal.Entry {
	out := make([]journal.Entry, len(ns))
	for i, n := range ns {
		out[i] = journal.Entry{Payload: fact(stream, n)}
	}
	return out
}

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

// ReadStream yields the records after the given seq, and nothing after the
// last one.
func readStreamAfter(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0, 1, 2, 3)...)
	for after := range uint64(6) {
		got := readStream(t, s, "a", after)
		ns := []int{}
		for n := int(after); n < 4; n++ {
			ns = append(ns, n)
		}
		wantStream(t, got, "a", after+1, ns...)
	}
}

// ReadAll yields every record in the order the store accepted them, across
// streams, with positions that strictly increase and agree with ReadStream's;
// after a position it yields exactly the records after it.
func globalOrder(t *testing.T, h *harness) {
	s := h.store(t)
	type want struct {
		stream journal.Stream
		seq    uint64
	}
	var order []want
	for n := range 6 {
		stream := journal.Stream([]string{"a", "b", "c"}[n%3])
		seq := appendOK(t, s, stream, entries(stream, n)...)[0]
		order = append(order, want{stream, seq})
	}
	all := readAll(t, s, journal.Position{})
	if len(all) != len(order) {
		t.Fatalf("ReadAll yields %d records, want %d", len(all), len(order))
	}
	wantOrdered(t, all)
	for i, rec := range all {
		if rec.Stream != order[i].stream || rec.Seq != order[i].seq || !bytes.Equal(rec.Payload, fact(rec.Stream, i)) {
			t.Fatalf("ReadAll record %d: %q seq %d; want %q seq %d", i, rec.Stream, rec.Seq, order[i].stream, order[i].seq)
		}
	}
	for _, stream := range []journal.Stream{"a", "b", "c"} {
		for _, rec := range readStream(t, s, stream, 0) {
			for _, g := range all {
				if g.Stream == rec.Stream && g.Seq == rec.Seq && g.Pos != rec.Pos {
					t.Fatalf("%q seq %d: ReadStream says position %s, ReadAll %s", rec.Stream, rec.Seq, rec.Pos, g.Pos)
				}
			}
		}
	}
	for i := range all {
		rest := readAll(t, s, all[i].Pos)
		if len(rest) != len(all)-i-1 || (len(rest) > 0 && rest[0].Pos != all[i+1].Pos) {
			t.Fatalf("ReadAll after %s yields %d records, want the %d after it", all[i].Pos, len(rest), len(all)-i-1)
		}
	}
	if p, err := journal.ParsePosition(all[2].Pos.String()); err != nil || p != all[2].Pos {
		t.Fatalf("ParsePosition(%q) = %v, %v", all[2].Pos, p, err)
	}
}

// ReadAll after any position of a longer history yields exactly the records
// after it, and ReadStream after any seq exactly the stream's records after
// it: a backend that starts reads from an index or a checkpoint must land on
// the right record wherever the position falls.
func readAllAfterAny(t *testing.T, h *harness) {
	s := h.store(t)
	const n = 700
	streams := []journal.Stream{"a", "b", "c"}
	for i := 0; i < n; {
		stream := streams[i%3]
		k := min(1+i%4, n-i) // calls of one to four entries
		ns := make([]int, k)
		for j := range ns {
			ns[j] = i + j
		}
		appendOK(t, s, stream, entries(stream, ns...)...)
		i += k
	}
	all := readAll(t, s, journal.Position{})
	if len(all) != n {
		t.Fatalf("ReadAll yields %d records, want %d", len(all), n)
	}
	wantOrdered(t, all)
	for i := 0; i < n; i += 1 + i%41 {
		rest := readAll(t, s, all[i].Pos)
		if len(rest) != n-i-1 {
			t.Fatalf("ReadAll after %s (record %d) yields %d records, want %d", all[i].Pos, i, len(rest), n-i-1)
		}
		for j, rec := range rest {
			if rec.Pos != all[i+1+j].Pos || !bytes.Equal(rec.Payload, all[i+1+j].Payload) {
				t.Fatalf("ReadAll after %s: record %d is %s, want %s", all[i].Pos, j, rec.Pos, all[i+1+j].Pos)
			}
		}
	}
	for _, stream := range streams {
		whole := readStream(t, s, stream, 0)
		for after := uint64(0); after <= uint64(len(whole)); after += 1 + after%29 {
			rest := readStream(t, s, stream, after)
			if len(rest) != len(whole)-int(after) || (len(rest) > 0 && rest[0].Seq != after+1) {
				t.Fatalf("stream %q after seq %d: %d records, want %d from seq %d", stream, after, len(rest), len(whole)-int(after), after+1)
			}
		}
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

// A method whose context has ended returns an error wrapping ctx.Err() and
// leaves nothing behind; an iterator whose context ends mid-way yields that
// error and stops.
func contextEnd(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0, 1, 2)...)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Append(ended, "a", entries("a", 3)...); !errors.Is(err, context.Canceled) {
		t.Fatalf("Append with an ended context = %v, want context.Canceled", err)
	}
	if err := s.Flush(ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush with an ended context = %v, want context.Canceled", err)
	}
	for name, records := range map[string]iter.Seq2[journal.Record, error]{
		"ReadStream": s.ReadStream(ended, "a", 0),
		"ReadAll":    s.ReadAll(ended, journal.Position{}),
	} {
		n := 0
		var last error
		for _, err := range records {
			n++
			last = err
		}
		if n != 1 || !errors.Is(last, context.Canceled) {
			t.Fatalf("%s with an ended context: %d items, last error %v; want one error wrapping context.Canceled", name, n, last)
		}
	}
	ctx, cancelMid := context.WithCancel(context.Background())
	defer cancelMid()
	var seen []error
	for rec, err := range s.ReadStream(ctx, "a", 0) {
		seen = append(seen, err)
		if err == nil && rec.Seq == 1 {
			cancelMid()
		}
		if len(seen) > 3 {
			break
		}
	}
	if len(seen) < 2 || !errors.Is(seen[len(seen)-1], context.Canceled) {
		t.Fatalf("ReadStream cancelled after its first record yields %v; want records, then context.Canceled, then nothing", seen)
	}
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0, 1, 2)
	if seq := appendOK(t, s, "a", entries("a", 3)...)[0]; seq != 4 {
		t.Fatalf("append after the cancelled one: seq %d, want 4", seq)
	}
}

// After Close, every method fails with ErrClosed and a second Close returns
// nil.
func closeSemantics(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0)...)
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := context.Background()
	if _, err := s.Append(ctx, "a", entries("a", 1)...); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := s.Flush(ctx); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	for name, records := range map[string]iter.Seq2[journal.Record, error]{
		"ReadStream": s.ReadStream(ctx, "a", 0),
		"ReadAll":    s.ReadAll(ctx, journal.Position{}),
	} {
		var last error
		n := 0
		for _, err := range records {
			n++
			last = err
		}
		if n != 1 || !errors.Is(last, journal.ErrClosed) {
			t.Errorf("%s after Close: %d items, last error %v; want one error wrapping ErrClosed", name, n, last)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

// Bad input is refused with ErrInvalid or ErrTooLarge and changes nothing,
// even when only one entry of a call is bad.
func badInput(t *testing.T, h *harness) {
	s := h.store(t)
	appendOK(t, s, "a", entries("a", 0)...)
	good := journal.Entry{Payload: fact("a", 1)}
	long := strings.Repeat("x", journal.MaxStreamBytes+1)
	for _, tc := range []struct {
		name    string
		stream  journal.Stream
		entries []journal.Entry
		want    error
	}{
		{"empty stream", "", []journal.Entry{good}, journal.ErrInvalid},
		{"long stream", journal.Stream(long), []journal.Entry{good}, journal.ErrInvalid},
		{"stream not UTF-8", "a\xff", []journal.Entry{good}, journal.ErrInvalid},
		{"stream with a newline", "a\nb", []journal.Entry{good}, journal.ErrInvalid},
		{"stream with NUL", "a\x00", []journal.Entry{good}, journal.ErrInvalid},
		{"long id", "a", []journal.Entry{{ID: strings.Repeat("k", journal.MaxIDBytes+1), Payload: fact("a", 1)}}, journal.ErrInvalid},
		{"id with a tab", "a", []journal.Entry{{ID: "k\t1", Payload: fact("a", 1)}}, journal.ErrInvalid},
		{"empty payload", "a", []journal.Entry{{}}, journal.ErrInvalid},
		{"payload not JSON", "a", []journal.Entry{{Payload: []byte(`{"a":`)}}, journal.ErrInvalid},
		{"payload of two values", "a", []journal.Entry{{Payload: []byte(`1 2`)}}, journal.ErrInvalid},
		{"payload with a newline", "a", []journal.Entry{{Payload: []byte("{\n}")}}, journal.ErrInvalid},
		{"payload too large", "a", []journal.Entry{{Payload: []byte(`"` + strings.Repeat("x", journal.MaxRecordBytes) + `"`)}}, journal.ErrTooLarge},
		{"one bad entry among good ones", "a", []journal.Entry{good, {Payload: []byte("nope")}, good}, journal.ErrInvalid},
	} {
		if _, err := s.Append(context.Background(), tc.stream, tc.entries...); !errors.Is(err, tc.want) {
			t.Errorf("%s: Append = %v, want %v", tc.name, err, tc.want)
		}
	}
	if all := readAll(t, s, journal.Position{}); len(all) != 1 {
		t.Fatalf("after refused appends the store holds %d records, want 1", len(all))
	}
	if seq := appendOK(t, s, "a", good)[0]; seq != 2 {
		t.Fatalf("append after the refused ones: seq %d, want 2", seq)
	}
	// The limits themselves are accepted.
	edge := journal.Stream(strings.Repeat("é", journal.MaxStreamBytes/2))
	if seq := appendOK(t, s, edge, journal.Entry{ID: strings.Repeat("k", journal.MaxIDBytes), Payload: fact(edge, 0)})[0]; seq != 1 {
		t.Fatalf("a stream name and id of the largest size: seq %d, want 1", seq)
	}
	quoted := journal.Stream(`a "quoted" \ stream`)
	appendOK(t, s, quoted, entries(quoted, 0)...)
	wantStream(t, readStream(t, s, quoted, 0), quoted, 1, 0)
}

// A store keeps its own copy of each payload, and each read hands out the
// caller's own.
func payloadsAreCopies(t *testing.T, h *harness) {
	s := h.store(t)
	p := fact("a", 0)
	appendOK(t, s, "a", journal.Entry{Payload: p})
	p[len(p)-2] = '9' // still JSON, but no longer what was appended
	recs := readStream(t, s, "a", 0)
	wantStream(t, recs, "a", 1, 0)
	recs[0].Payload[len(recs[0].Payload)-2] = '9'
	wantStream(t, readStream(t, s, "a", 0), "a", 1, 0)
}

// A stream at seq MaxSeq refuses the next append with ErrFull and changes
// nothing; other streams still take appends.
func fullStream(t *testing.T, full func(t *testing.T, stream journal.Stream) journal.Store) {
	if full == nil {
		t.Fatal("the backend gave no way to build a full stream: pass storetest.WithFull to Run; ErrFull is part of the contract")
	}
	s := full(t, "full")
	t.Cleanup(func() { s.Close(context.Background()) })
	before := readStream(t, s, "full", 0)
	if len(before) != 1 || before[0].Seq != journal.MaxSeq {
		t.Fatalf("the full stream holds %d records (last %+v); want one at seq MaxSeq", len(before), before)
	}
	if seqs, err := s.Append(context.Background(), "full", entries("full", 1)...); !errors.Is(err, journal.ErrFull) {
		t.Fatalf("Append to a full stream = %v, %v; want ErrFull", seqs, err)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush after the refused append: %v", err)
	}
	if after := readStream(t, s, "full", 0); len(after) != 1 {
		t.Fatalf("after the refused append the stream holds %d records", len(after))
	}
	if seq := appendOK(t, s, "other", entries("other", 0)...)[0]; seq != 1 {
		t.Fatalf("another stream of a store with a full stream: seq %d, want 1", seq)
	}
}
