package storetest

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

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
