package storetest

import (
	"bytes"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

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
