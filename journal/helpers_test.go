package journal

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
)

// payload returns the encoded envelope of testjobs.Registered(n).
func payload(t testing.TB, n int) []byte {
	t.Helper()
	b, err := jobs.EncodeFact(testjobs.Registered(n))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// quietLog returns a logger that writes into the returned buffer.
func quietLog() (*slog.Logger, *syncBuffer) {
	var buf syncBuffer
	return slog.New(slog.NewTextHandler(&buf, nil)), &buf
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// open opens the journal at path with a quiet logger, failing t on error.
func open(t testing.TB, path string, opts ...Option) *FileStore {
	t.Helper()
	log, _ := quietLog()
	s, err := Open(path, append([]Option{WithLogger(log)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// makeJournal writes a journal of n records, testjobs.Registered(1..n), and
// returns its path and the offset where each record starts, plus the file
// size last.
func makeJournal(t testing.TB, n int) (string, []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.journal")
	s := open(t, path)
	for i := 1; i <= n; i++ {
		if _, err := s.append1(payload(t, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	offsets := []int64{}
	for rec, err := range ReadFile(path) {
		if err != nil {
			t.Fatal(err)
		}
		offsets = append(offsets, rec.Offset)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, append(offsets, fi.Size())
}

// records reads every record of the journal at path, failing t on damage.
func records(t testing.TB, path string) []Record {
	t.Helper()
	var out []Record
	for rec, err := range ReadFile(path) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// wantPayloads checks that recs are testjobs.Registered(1..n) with seqs 1..n.
func wantPayloads(t testing.TB, recs []Record, n int) {
	t.Helper()
	if len(recs) != n {
		t.Fatalf("got %d records, want %d", len(recs), n)
	}
	for i, rec := range recs {
		if rec.Seq != uint64(i+1) || !bytes.Equal(rec.Payload, payload(t, i+1)) {
			t.Fatalf("record %d: seq %d payload %s; want seq %d payload %s", i, rec.Seq, rec.Payload, i+1, payload(t, i+1))
		}
	}
}

// discard returns a logger that drops everything.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func itoa(n int64) string { return fmt.Sprint(n) }

// testStream is the stream the package's single-stream tests write.
const testStream Stream = "test"

// append1 appends payload to testStream and returns its seq, the shape most
// tests of the file format need.
func (s *FileStore) append1(p []byte) (uint64, error) {
	seqs, err := s.Append(context.Background(), testStream, Entry{Payload: p})
	if len(seqs) == 0 {
		return 0, err
	}
	return seqs[0], err
}

// close closes s without a deadline.
func (s *FileStore) close() error { return s.Close(context.Background()) }

// lastSeq is s.LastSeq of stream, failing t on an error.
func lastSeq(t testing.TB, s *FileStore, stream Stream) uint64 {
	t.Helper()
	seq, err := s.LastSeq(context.Background(), stream)
	if err != nil {
		t.Fatalf("LastSeq(%q): %v", stream, err)
	}
	return seq
}

// recLine returns the record line of payload at seq (and position seq) in
// testStream, as the store writes it.
func recLine(seq uint64, p []byte) []byte {
	return appendRecord(nil, seq, testStream, seq, "", p, metaCRC(p, testStream, ""))
}

// toTestStream sends every fact to testStream.
func toTestStream(jobs.Fact) Stream { return testStream }
