package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
)

// A journalStore is a journal the journal commands read, a file or a
// PostgreSQL journal, opened once by openJournal.
type journalStore interface {
	// name names the journal in messages: the file, or the schema.
	name() string
	// records are every record, in journal order.
	records() iter.Seq2[journal.Record, error]
	// jobFacts are the facts of every record, in journal order, decoded
	// with decode, which must refuse what is not JSON and keep nothing of
	// its input (journal.FileFacts): journal.Facts of records, read faster
	// where the journal can.
	jobFacts(decode func([]byte) (jobs.Fact, error)) iter.Seq2[jobs.Fact, error]
	// read yields the records after the position after, in journal order,
	// and, following, those appended later, until ctx ends.
	read(ctx context.Context, after journal.Position, follow bool, poll time.Duration) iter.Seq2[journal.Record, error]
	// check verifies the records and returns the line saying they are intact.
	check() (string, error)
	// truncateAt cuts the journal at offset and returns the line saying
	// what it kept.
	truncateAt(offset int64) (string, error)
	close()
}

// openJournal opens the journal arg names: a PostgreSQL journal for a
// postgres:// DSN, a file otherwise. It is the one place that tells them
// apart.
func openJournal(ctx context.Context, arg string, stderr io.Writer) (journalStore, error) {
	if isDSN(arg) {
		return openPGJournal(ctx, arg, stderr)
	}
	return fileJournal(arg), nil
}

// A noJournalError is a journal argument that leads to no journal at all:
// a file that is not there, a schema without a journal. There is nothing to
// read, which is a failure (3), unlike a journal that is damaged or a file
// that is something else (1); see decision 0074.
type noJournalError struct{ error }

func (e noJournalError) Unwrap() error { return e.error }

// A usageError is an argument the command refuses as given, a usage error
// (2): an offset outside the file, a repair of a journal that has nothing
// to repair.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// A fileJournal is a journal file, read afresh by each call.
type fileJournal string

func (f fileJournal) name() string { return string(f) }

func (f fileJournal) records() iter.Seq2[journal.Record, error] { return journal.ReadFile(string(f)) }

func (f fileJournal) jobFacts(decode func([]byte) (jobs.Fact, error)) iter.Seq2[jobs.Fact, error] {
	return journal.FileFacts(string(f), decode)
}

func (f fileJournal) read(ctx context.Context, after journal.Position, follow bool, poll time.Duration) iter.Seq2[journal.Record, error] {
	return readFile(ctx, string(f), after, follow, poll)
}

func (f fileJournal) check() (string, error) {
	sum, err := journal.Check(string(f))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: intact: %s", f, plural(sum.Records, "record"))
	if sum.Records > 0 {
		fmt.Fprintf(&b, " in %s, positions %s to %s", plural(sum.Streams, "stream"), journal.Position{Minor: sum.FirstPos}, journal.Position{Minor: sum.LastPos})
	}
	if sum.Version == 1 {
		fmt.Fprint(&b, " (version 1: opening it for writing rewrites it as version 2)")
	}
	return b.String(), nil
}

// truncateAt refuses, as a usage error, an offset before the end of the
// file's header line or beyond its end, before journal.TruncateAt checks
// that a record ends there.
func (f fileJournal) truncateAt(offset int64) (string, error) {
	header, size, err := fileBounds(string(f))
	if err != nil {
		return "", err
	}
	if offset < header || offset > size {
		return "", usageError{fmt.Errorf("journal %s: --truncate-at %d: want an offset from %d (just the header) to the file's size %d", f, offset, header, size)}
	}
	sum, cut, err := journal.TruncateAt(string(f), offset)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: cut %d bytes at offset %d; kept %s", f, cut, offset, plural(sum.Records, "record")), nil
}

func (fileJournal) close() {}

// fileBounds is the length of path's first line, the journal's header
// (0 when the file has none in its first 4 KiB), and the file's size.
func fileBounds(path string) (header, size int64, err error) {
	file, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return 0, 0, err
	}
	buf := make([]byte, 4<<10)
	n, err := io.ReadFull(file, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return 0, 0, err
	}
	if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
		header = int64(i + 1)
	}
	return header, fi.Size(), nil
}
