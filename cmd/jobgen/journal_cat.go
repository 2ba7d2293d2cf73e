package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"time"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/journal"
)

// A position is printed, and read by --after, as the string "MAJOR.MINOR"
// whatever the backend (a file's record 17 is "0.17", a PostgreSQL position
// "752.1"): one JSON type in every line, which journal.ParsePosition reads
// back and which sorts as the journal does when compared part by part. See
// decision 0092.

// catFlags registers journal cat's flags.
func catFlags(fs *flag.FlagSet, j *journalRun) {
	j.registerVocabulary(fs)
	fs.BoolVar(&j.follow, "follow", false, "after the last record, wait for more and print them as they come (a file is polled; PostgreSQL is tailed), until interrupted")
	fs.Func("stream", "print only the records of this stream (repeat for several)", func(s string) error {
		j.streams = append(j.streams, journal.Stream(s))
		return nil
	})
	fs.Func("type", "print only facts of this type, such as job/settled (repeat for several); a type no known spec declares is refused", func(s string) error {
		j.types = append(j.types, s)
		return nil
	})
	fs.Func("after", `print only records after this position, as cat prints it ("0.17", "752.1")`, func(s string) error {
		p, err := journal.ParsePosition(s)
		j.after = p
		return err
	})
}

// journalCat prints the records the flags select, their payloads as they
// are: it decodes only the envelope, to filter by type.
func journalCat(j *journalRun, store journalStore) (int, error) {
	if len(j.types) > 0 {
		v, code := j.vocabulary()
		if v == nil {
			return code, nil
		}
		for _, typ := range j.types {
			if !v.Knows(typ) {
				fmt.Fprintf(j.stderr, "jobgen journal cat: --type %s: no spec jobgen knows declares this fact type; name a spec with --spec\n", typ)
				return exitUsage, nil
			}
		}
	}
	ctx := j.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	records := store.read(ctx, j.after, j.follow, j.pollEvery())
	return exitOK, writeCat(j.stdout, j.selected(records), j.follow)
}

// pollEvery is how often a followed file is read again.
func (j *journalRun) pollEvery() time.Duration {
	if j.poll > 0 {
		return j.poll
	}
	return 200 * time.Millisecond
}

// selected are the records the stream and type flags keep.
func (j *journalRun) selected(records iter.Seq2[journal.Record, error]) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		for rec, err := range records {
			if err == nil && !j.keeps(rec) {
				continue
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}

func (j *journalRun) keeps(rec journal.Record) bool {
	if len(j.streams) > 0 && !slices.Contains(j.streams, rec.Stream) {
		return false
	}
	if len(j.types) == 0 {
		return true
	}
	env, err := codec.DecodeEnvelope(rec.Payload)
	return err == nil && slices.Contains(j.types, env.Type)
}

// writeCat writes records as journal.Cat does, each line as
// journal.AppendCatLine writes it, so the library and the command print
// one format. An error ends the output, after the records before it were
// written. Following, each line is written as it comes.
func writeCat(w io.Writer, records iter.Seq2[journal.Record, error], live bool) error {
	if !live {
		return journal.Cat(w, records)
	}
	var line []byte
	for rec, err := range records {
		if err != nil {
			return err
		}
		line = journal.AppendCatLine(line[:0], rec)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// readFile yields the records of the journal file at path after the
// position after; following, it then polls the file's end every poll for
// records appended since, until ctx ends. A torn tail is a record being
// written: following, it is read again at the next poll.
func readFile(ctx context.Context, path string, after journal.Position, follow bool, poll time.Duration) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		t := fileTail{path: path, after: after, at: -1}
		for {
			for rec, err := range t.records() {
				if err != nil && follow && errors.Is(err, journal.ErrTornTail) {
					break
				}
				if !yield(rec, err) || err != nil {
					return
				}
			}
			if !follow {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(poll):
			}
		}
	}
}

// A fileTail reads a journal file again from the last record it read.
type fileTail struct {
	path  string
	after journal.Position // yield only records after this one
	at    int64            // the offset of the last record read; -1 before the first
	pos   journal.Position // its position
}

// records yields the records after t.after not yielded before: the whole
// file the first time, then the file from the last record read, which it
// reads again to check that the file is still the one it read.
func (t *fileTail) records() iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		records, shift, closeFile, err := t.open()
		if err != nil {
			yield(journal.Record{}, err)
			return
		}
		defer closeFile()
		again := t.at >= 0
		for rec, err := range records {
			if err != nil {
				yield(rec, err)
				return
			}
			rec.Offset += shift
			if again {
				again = false
				if rec.Offset != t.at || rec.Pos != t.pos {
					yield(journal.Record{}, fmt.Errorf("journal %s: the record at offset %d is no longer position %s: the file was rewritten or cut while it was followed", t.path, t.at, t.pos))
					return
				}
				continue
			}
			t.at, t.pos = rec.Offset, rec.Pos
			if rec.Pos.Compare(t.after) > 0 && !yield(rec, nil) {
				return
			}
		}
	}
}

// open opens the file at the last record read: the file's header line and
// then its bytes from that record, which journal.Read takes as a journal;
// shift turns the offsets it reports into the file's.
func (t *fileTail) open() (records iter.Seq2[journal.Record, error], shift int64, closeFile func(), err error) {
	if t.at < 0 {
		return journal.ReadFile(t.path), 0, func() {}, nil
	}
	header, size, err := fileBounds(t.path)
	if err != nil {
		return nil, 0, nil, err
	}
	if size < t.at || header == 0 {
		return nil, 0, nil, fmt.Errorf("journal %s: the file no longer holds the record at offset %d: it was cut or rewritten while it was followed", t.path, t.at)
	}
	f, err := os.Open(t.path)
	if err != nil {
		return nil, 0, nil, err
	}
	head := make([]byte, header)
	if _, err := io.ReadFull(f, head); err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	r := io.MultiReader(bytes.NewReader(head), io.NewSectionReader(f, t.at, size-t.at))
	return journal.Read(r), t.at - header, func() { f.Close() }, nil
}
