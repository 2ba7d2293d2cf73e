package pgstore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// A reader that is already reading a stream when it is archived sees every
// seq in order or an ArchivedError naming what it missed: past its first
// page it neither jumps to what was appended after the archive nor ends as
// if the stream had ended.
func TestAReaderOfAStreamArchivedUnderItMissesNothingUnsaid(t *testing.T) {
	for _, tt := range []struct {
		name  string
		after int // records appended after the archive
	}{
		{"nothing appended since", 0},
		{"appended since", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := openTest(t)
			const n = 2*pageRows + 88
			appendN(t, s, "s", 1, n)
			next, stop := iter.Pull2(s.ReadStream(ctx, "s", 0))
			defer stop()
			for want := uint64(1); want <= pageRows; want++ {
				rec, err, ok := next()
				if !ok || err != nil || rec.Seq != want {
					t.Fatalf("record %d: seq %d %v %v", want, rec.Seq, err, ok)
				}
			}
			file := openArchive(t)
			if moved, err := s.Archive(ctx, whole(t, s, "s"), file); err != nil || len(moved) != 1 {
				t.Fatalf("Archive: %+v %v", moved, err)
			}
			if tt.after > 0 {
				appendN(t, s, "s", 2, tt.after)
			}

			rec, err, ok := next()
			var ae *journal.ArchivedError
			switch {
			case !ok:
				t.Fatalf("the reader ended after seq %d, the stream holds %d more (archived)", pageRows, n-pageRows)
			case err == nil && rec.Seq != pageRows+1:
				t.Fatalf("the reader jumped from seq %d to %d", pageRows, rec.Seq)
			case err == nil:
				t.Fatalf("the reader yielded seq %d, which was archived before it read the page", rec.Seq)
			case !errors.As(err, &ae) || !errors.Is(err, journal.ErrArchived):
				t.Fatalf("the reader after seq %d: %v; want an ArchivedError", pageRows, err)
			}
			want := []journal.ArchivedRange{{First: pageRows + 1, Through: n, Archive: file.Path()}}
			if ae.After != pageRows || ae.Through != n || !slices.Equal(ae.Ranges, want) {
				t.Fatalf("ArchivedError after %d through %d ranges %+v; want after %d through %d ranges %+v", ae.After, ae.Through, ae.Ranges, pageRows, n, want)
			}
			if msg := err.Error(); !strings.Contains(msg, "257 to 600") || !strings.Contains(msg, file.Path()) {
				t.Fatalf("the error says %q; want the seqs missed and the archive holding them", msg)
			}
			if _, _, ok := next(); ok {
				t.Fatal("the reader went on after the ArchivedError")
			}
			// A read after the archived seq goes on with what came since.
			if got := seqsOf(readStream(t, s, "s", ae.Through)); len(got) != tt.after || (tt.after > 0 && got[0] != n+1) {
				t.Fatalf("a read after seq %d: %v", ae.Through, got)
			}
		})
	}
}

// whole judges streams as they are now: each through its last seq. Tests
// that move streams nobody appends to meanwhile use it.
func whole(t testing.TB, s *Store, streams ...journal.Stream) []Judged {
	t.Helper()
	out := make([]Judged, len(streams))
	for i, st := range streams {
		last, err := s.LastSeq(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = Judged{Stream: st, Through: last}
	}
	return out
}

// A stream archived in two runs into two files is in two places: a read
// from before both names each range with the file that holds it, and a
// read from inside the first range names only what it misses.
func TestAStreamArchivedIntoTwoFilesNamesTheFileOfEachRange(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	first, second := openArchive(t), openArchive(t)
	appendN(t, s, "s", 1, 3)
	if _, err := s.Archive(ctx, whole(t, s, "s"), first); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, "s", 2, 2)
	if _, err := s.Archive(ctx, whole(t, s, "s"), second); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, "s", 3, 1)
	for _, tt := range []struct {
		after uint64
		want  []journal.ArchivedRange
	}{
		{0, []journal.ArchivedRange{{First: 1, Through: 3, Archive: first.Path()}, {First: 4, Through: 5, Archive: second.Path()}}},
		{2, []journal.ArchivedRange{{First: 3, Through: 3, Archive: first.Path()}, {First: 4, Through: 5, Archive: second.Path()}}},
		{3, []journal.ArchivedRange{{First: 4, Through: 5, Archive: second.Path()}}},
	} {
		var ae *journal.ArchivedError
		var readErr error
		for _, err := range s.ReadStream(ctx, "s", tt.after) {
			readErr = err
			break
		}
		if !errors.As(readErr, &ae) || ae.Through != 5 || ae.After != tt.after || !slices.Equal(ae.Ranges, tt.want) {
			t.Fatalf("a read after seq %d: %v; want ranges %+v", tt.after, readErr, tt.want)
		}
		for _, r := range tt.want {
			if !strings.Contains(readErr.Error(), fmt.Sprintf("%d to %d into %s", r.First, r.Through, r.Archive)) {
				t.Fatalf("a read after seq %d says %q; want seqs %d to %d named with %s", tt.after, readErr, r.First, r.Through, r.Archive)
			}
		}
	}
	if got := seqsOf(readStream(t, s, "s", 5)); len(got) != 1 || got[0] != 6 {
		t.Fatalf("a read after the archived seqs: %v", got)
	}
}
