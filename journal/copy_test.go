package journal_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/journal"
)

// A copy keeps the seqs and ids of the records it copies: a stream may
// begin at any seq in a new file, and must go on where it ends after that;
// the file reopens and checks as any journal.
func TestAppendCopyKeepsSeqs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "archive.journal")
	s, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p := func(n string) []byte { return []byte(`{"n":"` + n + `"}`) }
	if err := s.AppendCopy(ctx, "a", 7, journal.Entry{ID: "x", Payload: p("7")}, journal.Entry{Payload: p("8")}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendCopy(ctx, "a", 9, journal.Entry{Payload: p("9")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		first uint64
		e     journal.Entry
	}{
		{"a gap", 11, journal.Entry{Payload: p("11")}},
		{"an overlap", 9, journal.Entry{Payload: p("9")}},
		{"a held id", 10, journal.Entry{ID: "x", Payload: p("10")}},
		{"seq 0", 0, journal.Entry{Payload: p("0")}},
	} {
		if err := s.AppendCopy(ctx, "a", c.first, c.e); !errors.Is(err, journal.ErrInvalid) {
			t.Errorf("a copy with %s: %v, want ErrInvalid", c.name, err)
		}
	}
	if seq, err := s.LastSeq(ctx, "a"); err != nil || seq != 9 {
		t.Fatalf("LastSeq after the copies = %d, want 9", seq)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if sum, err := journal.Check(path); err != nil || sum.Records != 3 {
		t.Fatalf("Check: %+v %v", sum, err)
	}
	s, err = journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if seqs, err := s.Append(ctx, "a", journal.Entry{ID: "x", Payload: p("again")}, journal.Entry{Payload: p("10")}); err != nil || seqs[0] != 7 || seqs[1] != 10 {
		t.Fatalf("Append after reopening: %v %v; want the held id's seq 7 and then 10", seqs, err)
	}
	var seqs []uint64
	for rec, err := range s.ReadStream(ctx, "a", 6) {
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, rec.Seq)
	}
	if len(seqs) != 4 || seqs[0] != 7 || seqs[3] != 10 {
		t.Fatalf("the stream reads seqs %v, want 7 to 10", seqs)
	}
}

// A file that holds a copy of a stream from a later seq on (an archive of
// a second run) does not hold the seqs before it: a read from before them
// is an ArchivedError naming the seqs it would miss, not a read that jumps
// over them; a read from the copy's first seq on reads it.
func TestAReadOfACopyFromBeforeItsFirstSeqSaysWhatIsNotHere(t *testing.T) {
	ctx := context.Background()
	s, err := journal.Open(filepath.Join(t.TempDir(), "archive.journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if err := s.AppendCopy(ctx, "a", 7, journal.Entry{Payload: []byte(`{"n":7}`)}, journal.Entry{Payload: []byte(`{"n":8}`)}); err != nil {
		t.Fatal(err)
	}
	for _, after := range []uint64{0, 3, 5} {
		var got []uint64
		var readErr error
		for rec, err := range s.ReadStream(ctx, "a", after) {
			if err != nil {
				readErr = err
				break
			}
			got = append(got, rec.Seq)
		}
		var ae *journal.ArchivedError
		if len(got) != 0 || !errors.As(readErr, &ae) || !errors.Is(readErr, journal.ErrArchived) || ae.Through != 6 {
			t.Fatalf("a read after seq %d of a copy from seq 7: seqs %v, %v; want an ArchivedError through seq 6", after, got, readErr)
		}
	}
	var got []uint64
	for rec, err := range s.ReadStream(ctx, "a", 6) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.Seq)
	}
	if len(got) != 2 || got[0] != 7 {
		t.Fatalf("a read after seq 6: %v, want 7 and 8", got)
	}
}
