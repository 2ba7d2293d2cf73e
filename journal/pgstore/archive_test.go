package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobgen/jobgen/journal"
)

// openArchive opens a journal file to archive into, closed when t ends.
func openArchive(t *testing.T, opts ...journal.Option) *journal.FileStore {
	t.Helper()
	f, err := journal.Open(filepath.Join(t.TempDir(), "archive.journal"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

// appendN appends n facts to stream, with ids made of the stream's name, an
// ordinal of the call (appendN's calls on one stream use distinct ones) and
// the entry's index.
func appendN(t *testing.T, s *Store, stream journal.Stream, call, n int) {
	t.Helper()
	es := entries(fmt.Sprintf("%s-%d", stream, call), n, true)
	if _, err := s.Append(context.Background(), stream, es...); err != nil {
		t.Fatal(err)
	}
}

func seqsOf(recs []journal.Record) []uint64 {
	out := make([]uint64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}

// Archiving streams moves their records into the file, seqs and ids kept,
// and leaves every other stream whole and gap-free; what a tail, a ReadAll
// from an old position and a read of an archived stream see afterwards is
// what the package says.
func TestArchiveMovesStreamsAndKeepsTheRestGapFree(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	appendN(t, s, "old-1", 1, 3)
	appendN(t, s, "kept", 1, 2)
	mid := readAll(t, s, journal.Position{})
	appendN(t, s, "old-2", 1, 2)
	appendN(t, s, "kept", 2, 2)
	// A tail that has read everything before the archive.
	tailCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	tail := collect(tailCtx, t, s, journal.Position{})
	for range 9 {
		next(t, tail, 10*time.Second)
	}

	file := openArchive(t)
	moved, err := s.Archive(ctx, whole(t, s, "old-2", "old-1", "old-1"), file)
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != 2 || moved[0].Stream != "old-1" || moved[0].First != 1 || moved[0].Through != 3 || moved[1].Through != 2 || len(moved[0].Digest) != 64 {
		t.Fatalf("Archive moved %+v", moved)
	}

	// The archive holds the moved records, byte for byte, with their seqs and ids.
	if got := readStream(t, file, "old-1", 0); len(got) != 3 || got[0].ID != "old-1-1-0" || !bytes.Equal(got[2].Payload, fact("old-1-1-2")) {
		t.Fatalf("the archive holds %+v", got)
	}
	// The rest is whole: Check passes, kept reads 1..4, the global order holds only it.
	if sum, err := s.Check(ctx); err != nil || sum.Records != 4 || sum.Streams != 3 {
		t.Fatalf("Check after archiving: %+v %v; want 4 records in 3 streams", sum, err)
	}
	if got := seqsOf(readStream(t, s, "kept", 0)); fmt.Sprint(got) != "[1 2 3 4]" {
		t.Fatalf("kept reads seqs %v after archiving", got)
	}
	all := readAll(t, s, journal.Position{})
	for _, rec := range all {
		if rec.Stream != "kept" {
			t.Fatalf("ReadAll yields %q seq %d, which was archived", rec.Stream, rec.Seq)
		}
	}
	// A ReadAll from a position before the archived records yields what is left after it.
	if after := readAll(t, s, mid[2].Pos); len(after) != 4 || after[0].Stream != "kept" || after[0].Seq != 1 {
		t.Fatalf("ReadAll from an old position: %v", seqsOf(after))
	}
	// A read of an archived stream from before its archived seq says where the records went.
	var ae *journal.ArchivedError
	for _, err := range s.ReadStream(ctx, "old-1", 0) {
		if !errors.As(err, &ae) || !errors.Is(err, journal.ErrArchived) || ae.Through != 3 ||
			!slices.Equal(ae.Ranges, []journal.ArchivedRange{{First: 1, Through: 3, Archive: file.Path()}}) {
			t.Fatalf("ReadStream of an archived stream: %v; want an ArchivedError through 3 naming %s", err, file.Path())
		}
	}
	if got := readStream(t, s, "old-1", 3); len(got) != 0 {
		t.Fatalf("ReadStream after the archived seq: %v", got)
	}
	// An archived stream goes on at the next seq; the tail sees what comes.
	if seqs, err := s.Append(ctx, "old-1", journal.Entry{ID: "old-1-2-0", Payload: fact("back")}); err != nil || seqs[0] != 4 {
		t.Fatalf("append to an archived stream: %v %v; want seq 4", seqs, err)
	}
	if rec := next(t, tail, 10*time.Second); rec.Stream != "old-1" || rec.Seq != 4 {
		t.Fatalf("the tail delivered %q seq %d after the archive, want old-1 seq 4", rec.Stream, rec.Seq)
	}
	if got := seqsOf(readStream(t, s, "old-1", 3)); fmt.Sprint(got) != "[4]" {
		t.Fatalf("old-1 after its archived seq: %v", got)
	}
	// A new tail from the start sees the kept records and the new one, nothing archived.
	fresh := collect(tailCtx, t, s, journal.Position{})
	for i := range 5 {
		if rec := next(t, fresh, 10*time.Second); rec.Stream == "old-2" || (rec.Stream == "old-1" && rec.Seq != 4) {
			t.Fatalf("a tail from the start delivered %q seq %d (record %d), which was archived", rec.Stream, rec.Seq, i)
		}
	}
	// Archiving again moves what came since, into the same file or another.
	if moved, err := s.Archive(ctx, whole(t, s, "old-1"), file); err != nil || len(moved) != 1 || moved[0].First != 4 || moved[0].Through != 4 {
		t.Fatalf("a second archive: %+v %v", moved, err)
	}
	if got := seqsOf(readStream(t, file, "old-1", 0)); fmt.Sprint(got) != "[1 2 3 4]" {
		t.Fatalf("the archive holds old-1's seqs %v", got)
	}
	// The store no longer holds the archived ids: one appended again lands
	// again, and the archive that holds it takes no second record with it.
	if seqs, err := s.Append(ctx, "old-1", journal.Entry{ID: "old-1-1-0", Payload: fact("again")}); err != nil || seqs[0] != 5 {
		t.Fatalf("append of an archived id: %v %v; want seq 5", seqs, err)
	}
	if _, err := s.Archive(ctx, whole(t, s, "old-1"), file); !errors.Is(err, journal.ErrInvalid) || !strings.Contains(err.Error(), `already holds id "old-1-1-0"`) {
		t.Fatalf("archiving an id the archive holds: %v", err)
	}
	if moved, err := s.Archive(ctx, whole(t, s, "old-1"), openArchive(t)); err != nil || len(moved) != 1 || moved[0].First != 5 {
		t.Fatalf("archiving it into another file: %+v %v", moved, err)
	}
	st, err := s.Status(ctx)
	if err != nil || st.Records != 4 || st.ArchivedStreams != 2 || st.ArchivedRecords != 7 {
		t.Fatalf("status after archiving: %+v %v", st, err)
	}
	if sum, err := s.Check(ctx); err != nil || sum.Records != 4 {
		t.Fatalf("Check at the end: %+v %v", sum, err)
	}
}

// Only archive_streams deletes: a hand-typed delete, or moving a stream's
// archived seq by hand, is refused as before.
func TestOnlyArchiveStreamsDeletes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	appendN(t, s, "s", 1, 2)
	fact, stream := s.sql.table("fact"), s.sql.table("stream")
	for _, stmt := range []string{
		`DELETE FROM ` + fact,
		`UPDATE ` + stream + ` SET archived = archived + 1`,
		`SELECT set_config('jobgen.archiving', 'on', false); DELETE FROM ` + fact,
		`DELETE FROM ` + s.sql.table("archive"),
	} {
		conn, err := s.Pool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Conn().PgConn().Exec(ctx, stmt).ReadAll()
		conn.Release()
		var pgErr *pgconn.PgError
		if stmt != `DELETE FROM `+s.sql.table("archive") && (!errors.As(err, &pgErr) || !strings.Contains(pgErr.Message, "refused")) {
			t.Errorf("%s: %v, want a trigger's refusal", stmt, err)
		}
	}
	if got := readStream(t, s, "s", 0); len(got) != 2 {
		t.Fatalf("after refused deletes the stream holds %d records", len(got))
	}
	// archive_streams itself refuses a range that is not there to move:
	// past the stream's last seq, or archived already.
	for _, through := range []int64{3, 0} {
		_, err := s.Pool().Exec(ctx, `SELECT * FROM `+s.sql.schema+`.archive_streams($1, $2, 'x', $3)`, []string{"s"}, []int64{through}, []string{""})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("archive_streams of stream s (2 facts) through seq %d: %v", through, err)
		}
	}
}

// A rotting file: what it reads back differs from what was written, at the
// bytes of one payload.
type rottingFile struct {
	*os.File
	rot []byte
}

func (f rottingFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(b, off)
	if i := bytes.Index(b[:n], f.rot); i >= 0 {
		b[i] ^= 0x01
	}
	return n, err
}

// A copy that does not read back as the store holds it removes nothing:
// the archive verifies every copy before the delete.
func TestArchiveRemovesNothingUnlessTheCopyReadsBack(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	appendN(t, s, "a", 1, 2)
	appendN(t, s, "b", 1, 3)
	file := openArchive(t, journal.WithOpenFile(func(path string) (journal.File, error) {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		return rottingFile{File: f, rot: []byte("b-1-2")}, err
	}))
	moved, err := s.Archive(ctx, whole(t, s, "a", "b"), file)
	if !errors.Is(err, ErrArchiveMismatch) || len(moved) != 0 {
		t.Fatalf("Archive into a rotting file: %+v, %v; want ErrArchiveMismatch and nothing moved", moved, err)
	}
	if got := seqsOf(readStream(t, s, "a", 0)); fmt.Sprint(got) != "[1 2]" {
		t.Fatalf("a holds seqs %v after the failed archive, want [1 2]", got)
	}
	if got := seqsOf(readStream(t, s, "b", 0)); fmt.Sprint(got) != "[1 2 3]" {
		t.Fatalf("b holds seqs %v after the failed archive, want [1 2 3]", got)
	}
	if sum, err := s.Check(ctx); err != nil || sum.Records != 5 {
		t.Fatalf("Check after the failed archive: %+v %v", sum, err)
	}
}

// A run that stopped after copying and before removing (a crash) leaves
// the copies in the file; the next run checks them and completes the move.
// A file whose part of a stream does not meet the store's is refused.
func TestArchiveCompletesARunThatStoppedBeforeRemoving(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	appendN(t, s, "a", 1, 4)
	file := openArchive(t)
	recs := readStream(t, s, "a", 0)
	if err := file.AppendCopy(ctx, "a", 1, journal.Entry{ID: recs[0].ID, Payload: recs[0].Payload}, journal.Entry{ID: recs[1].ID, Payload: recs[1].Payload}); err != nil {
		t.Fatal(err)
	}
	if moved, err := s.Archive(ctx, whole(t, s, "a"), file); err != nil || len(moved) != 1 || moved[0].Through != 4 {
		t.Fatalf("Archive over a part copied before: %+v %v", moved, err)
	}
	if got := seqsOf(readStream(t, file, "a", 0)); fmt.Sprint(got) != "[1 2 3 4]" {
		t.Fatalf("the archive holds %v", got)
	}

	appendN(t, s, "a", 2, 2) // seqs 5 and 6
	other := openArchive(t)
	if err := other.AppendCopy(ctx, "a", 1, journal.Entry{Payload: recs[0].Payload}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Archive(ctx, whole(t, s, "a"), other); err == nil || !strings.Contains(err.Error(), "the archive holds it up to seq 1") {
		t.Fatalf("Archive into a file whose part does not meet the store's: %v", err)
	}
	if got := seqsOf(readStream(t, s, "a", 4)); fmt.Sprint(got) != "[5 6]" {
		t.Fatalf("after the refused archive a holds %v past seq 4", got)
	}
}

// Streams lists every stream that holds records, with its first record and
// when its last was appended.
func TestStreamsListsWhatRetentionChoosesFrom(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	appendN(t, s, "b", 1, 2)
	appendN(t, s, "a", 1, 1)
	appendN(t, s, "gone", 1, 1)
	if _, err := s.Archive(ctx, whole(t, s, "gone"), openArchive(t)); err != nil {
		t.Fatal(err)
	}
	var got []StreamInfo
	for info, err := range s.Streams(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, info)
	}
	if len(got) != 2 || got[0].Stream != "a" || got[1].Stream != "b" || got[1].Head != 2 || !bytes.Equal(got[1].First, fact("b-1-0")) ||
		got[0].LastAt.IsZero() || time.Since(got[0].LastAt) > time.Hour {
		t.Fatalf("Streams: %+v", got)
	}
}

// Archival while others append keeps every stream gap-free: appends to the
// streams not archived go on meanwhile, appends to the archived ones wait
// for the archive's transaction and continue after its seqs, and Check
// finds every stream whole.
func TestArchivalUnderAppendsKeepsTheRestGapFree(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, WithCommitters(4))
	var old []journal.Stream
	for i := range 40 {
		st := journal.Stream(fmt.Sprintf("old-%02d", i))
		old = append(old, st)
		appendN(t, s, st, 1, 5)
	}
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var appended [4]int
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			for w := range appended {
				select {
				case <-stop:
					return
				default:
				}
				stream := journal.Stream(fmt.Sprintf("live-%d", w))
				if w == 3 {
					stream = old[appended[w]%len(old)] // into streams being archived
				}
				if _, err := s.Append(ctx, stream, journal.Entry{Payload: fact("x")}); err != nil {
					errs <- err
					return
				}
				appended[w]++
			}
		}
	}()
	moved, err := s.Archive(ctx, whole(t, s, old...), openArchive(t))
	close(stop)
	<-done
	close(errs)
	for err := range errs {
		t.Fatalf("append during the archive: %v", err)
	}
	if err != nil || len(moved) != len(old) {
		t.Fatalf("Archive: %d moved, %v", len(moved), err)
	}
	sum, err := s.Check(ctx)
	if err != nil {
		t.Fatalf("Check after archiving under appends: %v", err)
	}
	live := 0
	for w := range 3 {
		got := readStream(t, s, journal.Stream(fmt.Sprintf("live-%d", w)), 0)
		for i, rec := range got {
			if rec.Seq != uint64(i+1) {
				t.Fatalf("live-%d: record %d has seq %d", w, i, rec.Seq)
			}
		}
		live += len(got)
	}
	held := 0
	for _, a := range moved {
		held += len(readStream(t, s, a.Stream, a.Through))
	}
	if sum.Records != live+held {
		t.Fatalf("Check counts %d records, the streams read %d live and %d after their archives", sum.Records, live, held)
	}
	wantOrderedRecords(t, readAll(t, s, journal.Position{}))
}

// wantOrderedRecords checks that records read in the global order agree
// with every stream's order.
func wantOrderedRecords(t *testing.T, recs []journal.Record) {
	t.Helper()
	last := map[journal.Stream]uint64{}
	for i, rec := range recs {
		if i > 0 && recs[i-1].Pos.Compare(rec.Pos) >= 0 {
			t.Fatalf("position %s does not follow %s", rec.Pos, recs[i-1].Pos)
		}
		if prev, ok := last[rec.Stream]; ok && prev+1 != rec.Seq {
			t.Fatalf("stream %q: seq %d follows %d in the global order", rec.Stream, rec.Seq, prev)
		}
		last[rec.Stream] = rec.Seq
	}
}

// Archive moves a stream through the seq its judge read and no further:
// the records after it stay, readable after it; a judgement the store has
// archived already moves nothing, and one past the stream's last seq is
// refused.
func TestArchiveMovesThroughTheJudgedSeqOnly(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	appendN(t, s, "s", 1, 5)
	file := openArchive(t)
	moved, err := s.Archive(ctx, []Judged{{Stream: "s", Through: 3}}, file)
	if err != nil || len(moved) != 1 || moved[0].First != 1 || moved[0].Through != 3 || moved[0].Later != 2 {
		t.Fatalf("Archive through seq 3 of 5: %+v %v; want seqs 1 to 3, 2 later", moved, err)
	}
	if got := seqsOf(readStream(t, s, "s", 3)); fmt.Sprint(got) != "[4 5]" {
		t.Fatalf("s after its archived seq holds %v, want [4 5]", got)
	}
	if got := seqsOf(readStream(t, file, "s", 0)); fmt.Sprint(got) != "[1 2 3]" {
		t.Fatalf("the archive holds %v, want [1 2 3]", got)
	}
	if moved, err := s.Archive(ctx, []Judged{{Stream: "s", Through: 2}}, file); err != nil || len(moved) != 0 {
		t.Fatalf("Archive of a judgement archived already: %+v %v; want nothing moved", moved, err)
	}
	if _, err := s.Archive(ctx, []Judged{{Stream: "s", Through: 6}}, file); !errors.Is(err, journal.ErrInvalid) {
		t.Fatalf("Archive through seq 6 of a stream at 5: %v; want ErrInvalid", err)
	}
	if moved, err := s.Archive(ctx, whole(t, s, "s"), file); err != nil || len(moved) != 1 || moved[0].First != 4 || moved[0].Through != 5 {
		t.Fatalf("Archive of the rest: %+v %v", moved, err)
	}
	if sum, err := s.Check(ctx); err != nil || sum.Records != 0 {
		t.Fatalf("Check: %+v %v", sum, err)
	}
}
