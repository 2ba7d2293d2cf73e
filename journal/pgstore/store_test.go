package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

func TestAppendReturnsConsecutiveSeqsAndReadsBackByteForByte(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	payloads := [][]byte{
		[]byte(`{"b":1,  "a":[1,2.50,"x"]}`), // spacing and key order kept: json, not jsonb
		[]byte(`"snow ☃ \u0000 nul escaped"`),
		[]byte(`123`),
	}
	var es []journal.Entry
	for _, p := range payloads {
		es = append(es, journal.Entry{Payload: p})
	}
	seqs, err := s.Append(ctx, "s1", es...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seqs, []uint64{1, 2, 3}) {
		t.Fatalf("seqs %v, want [1 2 3]", seqs)
	}
	seqs, err = s.Append(ctx, "s1", journal.Entry{Payload: []byte(`{}`)})
	if err != nil || !slices.Equal(seqs, []uint64{4}) {
		t.Fatalf("second append: %v %v, want [4]", seqs, err)
	}
	recs := readGapFree(t, s, "s1")
	for i, p := range payloads {
		if string(recs[i].Payload) != string(p) {
			t.Errorf("record %d payload %s, want %s", i, recs[i].Payload, p)
		}
		if recs[i].Stream != "s1" || recs[i].Offset != -1 {
			t.Errorf("record %d: stream %q offset %d", i, recs[i].Stream, recs[i].Offset)
		}
	}
	if got := readStream(t, s, "s1", 2); len(got) != 2 || got[0].Seq != 3 {
		t.Errorf("after 2: %d records starting %v", len(got), got)
	}
	if got := readStream(t, s, "nobody", 0); len(got) != 0 {
		t.Errorf("a stream that does not exist yields %d records", len(got))
	}
}

func TestStreamsHaveIndependentSeqsAndOneGlobalOrder(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	want := []string{}
	for i := range 5 {
		for _, st := range []journal.Stream{"a", "b"} {
			p := fact("%s%d", st, i)
			seqs, err := s.Append(ctx, st, journal.Entry{Payload: p})
			if err != nil {
				t.Fatal(err)
			}
			if seqs[0] != uint64(i+1) {
				t.Fatalf("stream %s append %d: seq %d", st, i, seqs[0])
			}
			want = append(want, string(p))
		}
	}
	all := readAll(t, s, journal.Position{})
	var got []string
	for i, rec := range all {
		got = append(got, string(rec.Payload))
		if i > 0 && all[i-1].Pos.Compare(rec.Pos) >= 0 {
			t.Fatalf("positions not increasing: %s then %s", all[i-1].Pos, rec.Pos)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("global order\n got %v\nwant %v", got, want)
	}
	// Reading after a position resumes just past it.
	rest := readAll(t, s, all[3].Pos)
	if len(rest) != len(all)-4 || string(rest[0].Payload) != want[4] {
		t.Fatalf("after %s: %d records, first %s", all[3].Pos, len(rest), rest[0].Payload)
	}
}

func TestDuplicateIDReturnsFirstSeqAndLeavesNoGap(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	first, err := s.Append(ctx, "s", journal.Entry{ID: "x", Payload: fact("x1")}, journal.Entry{ID: "y", Payload: fact("y1")})
	if err != nil {
		t.Fatal(err)
	}
	// A retry of both, plus one new entry and a repeat inside the call.
	again, err := s.Append(ctx, "s",
		journal.Entry{ID: "y", Payload: fact("y2")},
		journal.Entry{ID: "z", Payload: fact("z")},
		journal.Entry{ID: "x", Payload: fact("x2")},
		journal.Entry{ID: "z", Payload: fact("z again")},
		journal.Entry{Payload: fact("no id")},
	)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first, []uint64{1, 2}) || !slices.Equal(again, []uint64{2, 3, 1, 3, 4}) {
		t.Fatalf("seqs %v then %v, want [1 2] then [2 3 1 3 4]", first, again)
	}
	recs := readGapFree(t, s, "s")
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+"="+string(r.Payload))
	}
	want := []string{"x=" + string(fact("x1")), "y=" + string(fact("y1")), "z=" + string(fact("z")), "=" + string(fact("no id"))}
	if !slices.Equal(got, want) {
		t.Fatalf("records %v, want %v", got, want)
	}
	// Only duplicates: nothing appended, the first seqs answered.
	dup, err := s.Append(ctx, "s", journal.Entry{ID: "x", Payload: fact("x3")})
	if err != nil || !slices.Equal(dup, []uint64{1}) {
		t.Fatalf("duplicate-only append: %v %v", dup, err)
	}
	// The same id in another stream is another record.
	other, err := s.Append(ctx, "t", journal.Entry{ID: "x", Payload: fact("tx")})
	if err != nil || !slices.Equal(other, []uint64{1}) {
		t.Fatalf("same id in another stream: %v %v", other, err)
	}
	if n := len(readStream(t, s, "s", 0)); n != 4 {
		t.Fatalf("stream s holds %d records after duplicates, want 4", n)
	}
}

func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	ok := journal.Entry{Payload: []byte(`{}`)}
	cases := []struct {
		name   string
		stream journal.Stream
		e      journal.Entry
		want   error
	}{
		{"empty stream", "", ok, journal.ErrInvalid},
		{"long stream", journal.Stream(strings.Repeat("s", journal.MaxStreamBytes+1)), ok, journal.ErrInvalid},
		{"stream with control character", "a\tb", ok, journal.ErrInvalid},
		{"stream not UTF-8", "a\xffb", ok, journal.ErrInvalid},
		{"long id", "s", journal.Entry{ID: strings.Repeat("i", journal.MaxIDBytes+1), Payload: []byte(`{}`)}, journal.ErrInvalid},
		{"id with NUL", "s", journal.Entry{ID: "a\x00", Payload: []byte(`{}`)}, journal.ErrInvalid},
		{"empty payload", "s", journal.Entry{}, journal.ErrInvalid},
		{"payload with newline", "s", journal.Entry{Payload: []byte("{\n}")}, journal.ErrInvalid},
		{"payload not JSON", "s", journal.Entry{Payload: []byte(`{"a":`)}, journal.ErrInvalid},
		{"two JSON values", "s", journal.Entry{Payload: []byte(`1 2`)}, journal.ErrInvalid},
		{"payload not UTF-8", "s", journal.Entry{Payload: []byte("\"\xff\"")}, journal.ErrInvalid},
		{"payload too large", "s", journal.Entry{Payload: []byte(`"` + strings.Repeat("x", journal.MaxPayloadBytes) + `"`)}, journal.ErrTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A bad entry after a good one: the whole call is refused.
			_, err := s.Append(ctx, c.stream, ok, c.e)
			if !errors.Is(err, c.want) {
				t.Fatalf("Append: %v, want %v", err, c.want)
			}
		})
	}
	if got := readAll(t, s, journal.Position{}); len(got) != 0 {
		t.Fatalf("refused appends left %d records", len(got))
	}
	for _, err := range s.ReadAll(ctx, journal.Position{Minor: 1 << 63}) {
		if !errors.Is(err, journal.ErrInvalid) {
			t.Fatalf("ReadAll past the largest pos: %v, want ErrInvalid", err)
		}
	}
}

func TestConcurrentAppendsShareTransactionsAndStayGapFree(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	const writers, each = 32, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			stream := journal.Stream(fmt.Sprintf("s%d", w%4))
			for i := range each {
				if _, err := s.Append(ctx, stream, journal.Entry{ID: fmt.Sprintf("%d-%d", w, i), Payload: fact("%d-%d", w, i)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	total := 0
	for i := range 4 {
		st := journal.Stream(fmt.Sprintf("s%d", i))
		recs := readGapFree(t, s, st)
		total += len(recs)
	}
	if total != writers*each {
		t.Fatalf("%d records, want %d", total, writers*each)
	}
	var txs int
	if err := s.Pool().QueryRow(ctx, `SELECT count(DISTINCT xid) FROM `+s.sql.table("fact")).Scan(&txs); err != nil {
		t.Fatal(err)
	}
	// 32 writers that each wait for their commit keep about 32 appends
	// queued for the one committer, so a transaction carries nearly all of
	// them (about 28 here under load). A quarter of that on average is the
	// least group commit may give: fewer means it does not group.
	t.Logf("%d appends in %d transactions (%.1f each)", writers*each, txs, float64(writers*each)/float64(txs))
	if most := writers * each / (writers / 4); txs > most {
		t.Errorf("%d appends took %d transactions, %.1f each: group commit should carry at least %d appends a transaction with %d writers waiting",
			writers*each, txs, float64(writers*each)/float64(txs), writers/4, writers)
	}
}

func TestFlushAndCloseSemantics(t *testing.T) {
	schema := pgtest.Schema(t)
	ctx := context.Background()
	s, err := Open(ctx, pgtest.DSN(t), WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("one")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("two")}); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	if err := s.Flush(ctx); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("Flush after Close: %v", err)
	}
	for _, err := range s.ReadStream(ctx, "s", 0) {
		if !errors.Is(err, journal.ErrClosed) {
			t.Errorf("ReadStream after Close: %v", err)
		}
	}
	// Reopened, the stream continues.
	s2 := openSchema(t, schema)
	seqs, err := s2.Append(ctx, "s", journal.Entry{Payload: fact("two")})
	if err != nil || seqs[0] != 2 {
		t.Fatalf("after reopen: %v %v, want [2]", seqs, err)
	}
}
