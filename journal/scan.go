package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
)

// Errors callers can test for with errors.Is.
var (
	// ErrCorrupt reports damage before the end of a journal: a bad record
	// followed by a valid one, or a valid record out of sequence. Open refuses
	// such a file; nothing in it is skipped.
	ErrCorrupt = errors.New("corrupt")
	// ErrTornTail reports a damaged last record, the mark of a write cut short
	// by a crash. Open cuts it off; readers report it.
	ErrTornTail = errors.New("torn tail")
	// ErrNotJournal reports a file that does not start with the journal header.
	ErrNotJournal = errors.New("not a jobgen journal")
	// ErrClosed reports use of a closed Store.
	ErrClosed = errors.New("journal closed")
)

// A RecordError reports a damaged record and where it starts.
type RecordError struct {
	// Path is the journal file, empty when reading an unnamed stream.
	Path string
	// Offset is the byte offset of the damaged record's first byte.
	Offset int64
	// Kind is ErrCorrupt or ErrTornTail.
	Kind error
	// Reason says what is wrong with the record.
	Reason string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s: record at offset %d: %v: %s", name(e.Path), e.Offset, e.Kind, e.Reason)
}

// Unwrap returns e.Kind.
func (e *RecordError) Unwrap() error { return e.Kind }

// A Summary describes a journal file that was read to its end.
type Summary struct {
	// Records counts the valid records.
	Records int
	// FirstSeq and LastSeq are the seqs of the first and last valid records;
	// both are zero when there are none.
	FirstSeq, LastSeq uint64
	// Good is the offset just past the last valid record (or the header).
	Good int64
}

// ReadFile yields the records of the journal at path, in order. It does not
// repair the file: a torn tail ends the sequence with a *RecordError wrapping
// ErrTornTail (Open would cut it off), damage before the end with one wrapping
// ErrCorrupt. A journal that a Store is appending to may end in a record
// half-written, which reads as a torn tail. Each Payload is the caller's to
// keep.
func ReadFile(path string) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		f, err := openReadOnly(path)
		if err != nil {
			yield(Record{}, err)
			return
		}
		defer f.Close()
		readRecords(f, path, yield)
	}
}

// Read is ReadFile for a journal read from r.
func Read(r io.Reader) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		readRecords(r, "", yield)
	}
}

func readRecords(r io.Reader, path string, yield func(Record, error) bool) {
	stopped := false
	_, err := scan(r, path, func(rec Record) bool {
		rec.Payload = bytes.Clone(rec.Payload)
		if !yield(rec, nil) {
			stopped = true
			return false
		}
		return true
	})
	if err != nil && !stopped {
		yield(Record{}, err)
	}
}

// Check reads the journal at path to its end and reports what it holds. The
// error is nil only when the file is intact: a journal header and whole, valid
// records in sequence. Otherwise it names the offset of the first bad record
// (a *RecordError) or says why the file is not a journal.
func Check(path string) (Summary, error) {
	f, err := openReadOnly(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	return scan(f, path, nil)
}

// openReadOnly opens path for reading, refusing a directory with a clear error.
func openReadOnly(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("journal %s: is a directory", path)
	}
	return f, nil
}

// errEmpty is what scan returns for an empty file; Open turns it into a new
// journal and readers into ErrNotJournal.
var errEmpty = fmt.Errorf("empty file: %w", ErrNotJournal)

// scan reads a journal from r to its end, or until visit returns false,
// calling visit (when not nil) for each valid record; the payload it passes
// aliases scan's buffers. The error is errEmpty, an ErrNotJournal error, a
// *RecordError for damage, or an I/O error. A *RecordError with Offset 0 and
// Kind ErrTornTail is a header cut short.
func scan(r io.Reader, path string, visit func(Record) bool) (Summary, error) {
	s := &scanner{br: bufio.NewReaderSize(r, 64<<10)}
	var sum Summary
	if err := s.header(path); err != nil {
		return sum, err
	}
	sum.Good = s.off
	for {
		ln, err := s.line()
		if err == io.EOF {
			return sum, nil
		}
		if err != nil {
			return sum, ioError(path, err)
		}
		damage := func(kind error, format string, args ...any) *RecordError {
			return &RecordError{Path: path, Offset: ln.start, Kind: kind, Reason: fmt.Sprintf(format, args...)}
		}
		if !ln.complete {
			return sum, damage(ErrTornTail, "no newline before end of file")
		}
		var (
			seq     uint64
			payload []byte
			perr    error
		)
		if ln.keep != ln.start {
			perr = fmt.Errorf("record longer than %d bytes", MaxRecordBytes)
		} else {
			seq, payload, perr = parseRecord(ln.b)
		}
		if perr == nil && sum.Records > 0 && seq != sum.LastSeq+1 {
			return sum, damage(ErrCorrupt, "seq %d does not follow seq %d", seq, sum.LastSeq)
		}
		if perr != nil {
			at, next, err := s.findValid(ln)
			if err != nil {
				return sum, ioError(path, err)
			}
			if at < 0 {
				return sum, damage(ErrTornTail, "%v; no valid record follows", perr)
			}
			return sum, damage(ErrCorrupt, "%v; valid record seq %d follows at offset %d", perr, next, at)
		}
		if sum.Records == 0 {
			sum.FirstSeq = seq
		}
		sum.Records++
		sum.LastSeq = seq
		sum.Good = s.off
		if visit != nil && !visit(Record{Seq: seq, Offset: ln.start, Payload: payload}) {
			return sum, nil
		}
	}
}

// name is how errors name the journal at path.
func name(path string) string {
	if path == "" {
		return "journal"
	}
	return "journal " + path
}

func ioError(path string, err error) error {
	return fmt.Errorf("%s: read: %w", name(path), err)
}

type scanner struct {
	br  *bufio.Reader
	off int64 // offset of the next unread byte
	acc []byte
}

// header consumes the journal header.
func (s *scanner) header(path string) error {
	b, err := s.br.Peek(len(header))
	if err != nil && err != io.EOF {
		return ioError(path, err)
	}
	switch {
	case string(b) == header:
		s.off = int64(len(b))
		_, err := s.br.Discard(len(b))
		return err
	case len(b) == 0:
		return fmt.Errorf("%s: %w", name(path), errEmpty)
	case len(b) < len(header) && bytes.HasPrefix([]byte(header), b):
		return &RecordError{Path: path, Offset: 0, Kind: ErrTornTail, Reason: "journal header cut short"}
	case bytes.HasPrefix(b, []byte(headerFamily)):
		return fmt.Errorf("%s: unsupported journal version (written by a newer jobgen?): %w", name(path), ErrNotJournal)
	}
	return fmt.Errorf("%s: %w: the first line is not %q", name(path), ErrNotJournal, header[:len(header)-1])
}

// A line is one newline-terminated stretch of the file, or the unterminated
// rest of it.
type line struct {
	start    int64  // offset of the line's first byte
	keep     int64  // offset of b[0]; past start when an overlong line lost its front
	b        []byte // the kept bytes, newline excluded; valid until the next read
	complete bool   // the line ends with a newline
}

// line reads the next line, keeping at most MaxRecordBytes of its end: a valid
// record ends at a newline and is no longer than that, so nothing a reader
// needs is dropped. It returns io.EOF when no bytes are left.
func (s *scanner) line() (line, error) {
	ln := line{start: s.off, keep: s.off}
	s.acc = s.acc[:0]
	for {
		frag, err := s.br.ReadSlice('\n')
		s.off += int64(len(frag))
		switch {
		case err == nil && len(s.acc) == 0:
			ln.b, ln.complete = frag[:len(frag)-1], true
			return ln, nil
		case err == nil:
			s.acc = append(s.acc, frag[:len(frag)-1]...)
			ln.complete = true
		case err == bufio.ErrBufferFull:
			s.acc = append(s.acc, frag...)
		case err == io.EOF:
			if len(frag) == 0 && len(s.acc) == 0 && ln.keep == ln.start {
				return ln, io.EOF
			}
			s.acc = append(s.acc, frag...)
		default:
			return ln, err
		}
		if over := len(s.acc) - MaxRecordBytes; over > 0 {
			s.acc = s.acc[:copy(s.acc, s.acc[over:])]
			ln.keep += int64(over)
		}
		if err != bufio.ErrBufferFull {
			ln.b = s.acc
			return ln, nil
		}
	}
}

// findValid looks for a valid record that begins after the start of the bad
// line bad: inside bad itself, or anywhere in a later complete line. It returns
// the record's offset and seq, or a negative offset when there is none. It
// consumes the rest of the file.
func (s *scanner) findValid(bad line) (int64, uint64, error) {
	from := 1
	if bad.keep != bad.start {
		from = 0
	}
	if i, seq := findRecord(bad.b, from); i >= 0 {
		return bad.keep + int64(i), seq, nil
	}
	for {
		ln, err := s.line()
		if err == io.EOF {
			return -1, 0, nil
		}
		if err != nil {
			return -1, 0, err
		}
		if !ln.complete {
			continue // a valid record ends with a newline
		}
		if i, seq := findRecord(ln.b, 0); i >= 0 {
			return ln.keep + int64(i), seq, nil
		}
	}
}

// findRecord returns the index in b, at or after from, of the first valid
// record that runs to the end of b, and its seq; or -1.
func findRecord(b []byte, from int) (int, uint64) {
	for from <= len(b) {
		i := bytes.Index(b[from:], []byte(prefixSeq))
		if i < 0 {
			return -1, 0
		}
		at := from + i
		if seq, _, err := parseRecord(b[at:]); err == nil {
			return at, seq
		}
		from = at + 1
	}
	return -1, 0
}
