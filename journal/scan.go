package journal

import (
	"bufio"
	"bytes"
	"encoding/binary"
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
	// Version is the file format's version, 1 or 2.
	Version int
	// Records counts the valid records, and Streams the streams they are in.
	Records, Streams int
	// FirstPos and LastPos are the positions (Position.Minor) of the first
	// and last valid records; both are zero when there are none.
	FirstPos, LastPos uint64
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
	return scan(f, path, newIndex(false), nil)
}

// openReadOnly opens path for reading, refusing a directory with a clear
// error.
// A FIFO or a device is refused before it is opened, since opening or
// reading one can block forever.
func openReadOnly(path string) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := checkRegularFile(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// errEmpty is what scan returns for an empty file; Open turns it into a new
// journal and readers into ErrNotJournal.
var errEmpty = fmt.Errorf("empty file: %w", ErrNotJournal)

// A loc is where a record's line is in a file: its offset and its length,
// newline included.
type loc struct {
	off int64
	n   uint32
}

// A streamIndex is what a scan learned about one stream.
type streamIndex struct {
	name        Stream
	first, last uint64            // the seqs of its first and last records in the file
	locs        locList           // the record of seq first+i is at locs.at(i); kept by a store only
	ids         map[string]uint64 // record id to seq
}

// locChunk is how many locs one chunk of a locList holds.
const locChunk = 4096

// A locList holds a stream's locs in chunks of locChunk, so that appending
// one never copies the whole list (a slice that doubles would copy a
// million-record stream's 16 MB at a time, inside the store's lock). Only
// the first chunk grows by copying, up to locChunk; a stream of a few
// records costs a few locs. A chunk's filled part never changes, so a
// reader may keep a slice of it after the lock is released.
type locList struct {
	chunks [][]loc
	n      int
}

func (l *locList) add(x loc) {
	if k := len(l.chunks); k > 0 && len(l.chunks[k-1]) < locChunk {
		l.chunks[k-1] = append(l.chunks[k-1], x)
	} else if k == 0 {
		l.chunks = append(l.chunks, append(make([]loc, 0, 4), x))
	} else {
		l.chunks = append(l.chunks, append(make([]loc, 0, locChunk), x))
	}
	l.n++
}

// from returns the locs from the i-th to the end of its chunk: at least
// one, at most locChunk. i < l.n.
func (l *locList) from(i int) []loc {
	c := l.chunks[i/locChunk]
	return c[i%locChunk : len(c) : len(c)]
}

// checkpointEvery is how many positions apart the offsets that ReadAll starts
// from are kept.
const checkpointEvery = 256

// An index is what a scan learned about a file: enough to continue it and,
// for a store, to read a stream or the global order from an offset.
type index struct {
	version           int
	firstPos, lastPos uint64 // zero when the file holds no record
	streams           map[Stream]*streamIndex
	keepLocs          bool    // record each record's loc (a store's index)
	checkpoints       []int64 // the offset of position firstPos+i*checkpointEvery
	scratch           []byte  // reused by the checksums of the records scanned (checksumV2In)
}

func newIndex(keepLocs bool) *index {
	return &index{streams: make(map[Stream]*streamIndex), keepLocs: keepLocs}
}

// follows reports why fr cannot be the next record after those ix holds, or
// "" when it can.
func (ix *index) follows(fr *frame) string {
	if ix.lastPos != 0 && fr.pos != ix.lastPos+1 {
		if ix.version == 1 {
			return fmt.Sprintf("seq %d does not follow seq %d", fr.seq, ix.lastPos)
		}
		return fmt.Sprintf("pos %d does not follow pos %d", fr.pos, ix.lastPos)
	}
	st := fr.st
	if st == nil {
		st = ix.streams[fr.stream]
	}
	if st == nil {
		return ""
	}
	if fr.seq != st.last+1 {
		return fmt.Sprintf("stream %q: seq %d does not follow seq %d", fr.stream, fr.seq, st.last)
	}
	if fr.id != "" {
		if seq, ok := st.ids[fr.id]; ok {
			return fmt.Sprintf("stream %q: id %q is held by seq %d already", fr.stream, fr.id, seq)
		}
	}
	return ""
}

// add records fr, at l, as the next record.
func (ix *index) add(fr *frame, l loc) {
	st := fr.st
	if st == nil {
		st = ix.streams[fr.stream]
	}
	ix.addTo(st, fr, l)
}

// stream returns the index of the stream whose name, written without
// escapes, begins b and ends at a quote, and how many bytes of b the name
// and the quote take; nil when ix is nil or holds no such stream.
func (ix *index) stream(b []byte) (*streamIndex, int) {
	if ix == nil {
		return nil, 0
	}
	i := bytes.IndexByte(b[:min(len(b), MaxStreamBytes+1)], '"')
	if i <= 0 || bytes.IndexByte(b[:i], '\\') >= 0 {
		return nil, 0
	}
	st := ix.streams[Stream(b[:i])]
	if st == nil {
		return nil, 0
	}
	return st, i + 1
}

// addTo is add given fr's stream index, or nil when the stream is new, and
// returns the stream index.
func (ix *index) addTo(st *streamIndex, fr *frame, l loc) *streamIndex {
	if ix.lastPos == 0 {
		ix.firstPos = fr.pos
	}
	ix.lastPos = fr.pos
	if (fr.pos-ix.firstPos)%checkpointEvery == 0 {
		ix.checkpoints = append(ix.checkpoints, l.off)
	}
	if st == nil {
		st = &streamIndex{name: fr.stream, first: fr.seq}
		ix.streams[fr.stream] = st
	}
	st.last = fr.seq
	if ix.keepLocs {
		st.locs.add(l)
	}
	if fr.id != "" {
		if st.ids == nil {
			st.ids = make(map[string]uint64)
		}
		st.ids[fr.id] = fr.seq
	}
	return st
}

// record is the Record of fr at offset off.
func (fr *frame) record(off int64) Record {
	return Record{Stream: fr.stream, Seq: fr.seq, Pos: Position{Minor: fr.pos}, ID: fr.id, Offset: off, Payload: fr.payload}
}

// scan reads a journal from r to its end, or until visit returns false,
// filling ix and calling visit (when not nil) for each valid record; the
// payload it passes aliases scan's buffers. The error is errEmpty, an
// ErrNotJournal error, a *RecordError for damage, or an I/O error. A
// *RecordError with Offset 0 and Kind ErrTornTail is a header cut short.
func scan(r io.Reader, path string, ix *index, visit func(Record) bool) (Summary, error) {
	return scanRecords(r, path, ix, true, visit)
}

// scanRecords is scan, checking that each record's fact is one JSON value
// only when checkFacts is set: a reader that decodes every fact with a
// decoder that refuses what is not JSON (FileFacts) checks a fact only when
// the decoder refused it, and reports it then as scan would have. A record
// out of place is the exception, checked here first: of a fact that is not
// JSON and a place that does not follow, scan reports the fact.
func scanRecords(r io.Reader, path string, ix *index, checkFacts bool, visit func(Record) bool) (Summary, error) {
	s := &scanner{br: bufio.NewReaderSize(r, 64<<10)}
	var sum Summary
	version, err := s.header(path)
	if err != nil {
		return sum, err
	}
	ix.version, sum.Version = version, version
	sum.Good = s.off
	summary := func() Summary {
		sum.Streams, sum.FirstPos, sum.LastPos = len(ix.streams), ix.firstPos, ix.lastPos
		return sum
	}
	for {
		ln, err := s.line()
		if err == io.EOF {
			return summary(), nil
		}
		if err != nil {
			return summary(), ioError(path, err)
		}
		damage := func(kind error, format string, args ...any) *RecordError {
			return &RecordError{Path: path, Offset: ln.start, Kind: kind, Reason: fmt.Sprintf(format, args...)}
		}
		if !ln.complete && ln.zero {
			return summary(), nil // the preallocated tail: no record there
		}
		if !ln.complete {
			return summary(), damage(ErrTornTail, "no newline before end of file")
		}
		var (
			fr   frame
			perr error
		)
		if ln.keep != ln.start {
			perr = fmt.Errorf("record longer than %d bytes", MaxRecordBytes)
		} else if fr, perr = parseSummed(ln.b, version, ix); perr == nil && checkFacts {
			perr = checkFact(fr.payload)
		}
		if perr == nil {
			if why := ix.follows(&fr); why != "" {
				if !checkFacts {
					perr = checkFact(fr.payload)
				}
				if perr == nil {
					return summary(), damage(ErrCorrupt, "%s", why)
				}
			}
		}
		if perr != nil && ln.keep == ln.start {
			if _, ferr := parseFrame(ln.b, version); ferr == nil {
				return summary(), wholeRecordDamage(path, ln.start, perr)
			}
		}
		if perr != nil {
			at, next, err := s.findValid(ln, version)
			if err != nil {
				return summary(), ioError(path, err)
			}
			if at < 0 {
				return summary(), damage(ErrTornTail, "%v; no valid record follows", perr)
			}
			return summary(), damage(ErrCorrupt, "%v; valid record pos %d follows at offset %d", perr, next, at)
		}
		ix.add(&fr, loc{off: ln.start, n: uint32(s.off - ln.start)})
		sum.Records++
		sum.Good = s.off
		if visit != nil && !visit(fr.record(ln.start)) {
			return summary(), nil
		}
	}
}

// wholeRecordDamage is the damage of the record at off, whole,
// newline-terminated and framed, whose checksum or fact is bad (perr): it was
// written once in full, so it is damage to a record that may have been
// flushed, not a write cut short.
func wholeRecordDamage(path string, off int64, perr error) *RecordError {
	return &RecordError{Path: path, Offset: off, Kind: ErrCorrupt,
		Reason: fmt.Sprintf("%v (a whole record: cut it only with jobgen journal repair --truncate-at %d)", perr, off)}
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

// header consumes the journal header and returns the file's version.
func (s *scanner) header(path string) (int, error) {
	b, err := s.br.Peek(len(header))
	if err != nil && err != io.EOF {
		return 0, ioError(path, err)
	}
	version := 0
	switch {
	case string(b) == header:
		version = 2
	case string(b) == headerV1:
		version = 1
	case len(b) == 0:
		return 0, fmt.Errorf("%s: %w", name(path), errEmpty)
	case len(b) < len(header) && (bytes.HasPrefix([]byte(header), b) || bytes.HasPrefix([]byte(headerV1), b)):
		return 0, &RecordError{Path: path, Offset: 0, Kind: ErrTornTail, Reason: "journal header cut short"}
	case len(b) == len(header) && b[len(b)-1] == '\r' && (string(b[:len(b)-1]) == header[:len(header)-1] || string(b[:len(b)-1]) == headerV1[:len(headerV1)-1]):
		return 0, fmt.Errorf("%s: %w: its lines end in CRLF (\\r\\n), not LF: the file was converted to another platform's line endings; convert it back (dos2unix) before reading it", name(path), ErrNotJournal)
	case bytes.HasPrefix(b, []byte(headerFamily)):
		return 0, fmt.Errorf("%s: unsupported journal version (written by a newer jobgen?): %w", name(path), ErrNotJournal)
	default:
		return 0, fmt.Errorf("%s: %w: the first line is not %q", name(path), ErrNotJournal, header[:len(header)-1])
	}
	s.off = int64(len(b))
	_, err = s.br.Discard(len(b))
	return version, err
}

// A line is one newline-terminated stretch of the file, or the unterminated
// rest of it.
type line struct {
	start    int64  // offset of the line's first byte
	keep     int64  // offset of b[0]; past start when an overlong line lost its front
	b        []byte // the kept bytes, newline excluded; valid until the next read
	complete bool   // the line ends with a newline
	zero     bool   // every byte of the line, kept or not, is 0x00
}

// line reads the next line, keeping at most MaxRecordBytes of its end: a valid
// record ends at a newline and is no longer than that, so nothing a reader
// needs is dropped. It returns io.EOF when no bytes are left.
func (s *scanner) line() (line, error) {
	ln := line{start: s.off, keep: s.off, zero: true}
	s.acc = s.acc[:0]
	for {
		frag, err := s.br.ReadSlice('\n')
		s.off += int64(len(frag))
		ln.zero = ln.zero && allZero(frag)
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

// allZero reports whether every byte of b is 0x00. It returns at the first
// other byte, so a record line costs it one comparison.
func allZero(b []byte) bool {
	for len(b) >= 8 && binary.LittleEndian.Uint64(b) == 0 {
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// findValid looks for a valid record that begins after the start of the bad
// line bad: inside bad itself, or anywhere in a later complete line. It returns
// the record's offset and seq, or a negative offset when there is none. It
// consumes the rest of the file.
func (s *scanner) findValid(bad line, version int) (int64, uint64, error) {
	from := 1
	if bad.keep != bad.start {
		from = 0
	}
	if i, seq := findRecord(bad.b, from, version); i >= 0 {
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
		if i, seq := findRecord(ln.b, 0, version); i >= 0 {
			return ln.keep + int64(i), seq, nil
		}
	}
}

// findRecord returns the index in b, at or after from, of the first record
// of the given version that runs to the end of b with valid framing and a
// matching checksum, and its position; or -1. It does not ask that the fact
// be JSON: a checksummed record that was once written whole is what tells
// corruption from a torn write.
//
// Its cost is a pass over b plus a few GF(2) multiplications per candidate:
// each candidate's framing is bounded, and the checksum of its fact, which
// runs to the end of b, is derived from the checksum of the prefix before it
// (see suffixCRC), walking the candidates from the last to the first so that
// the power of x each needs comes from the next one's.
func findRecord(b []byte, from, version int) (int, uint64) {
	prefix := []byte(prefixPos)
	if version == 1 {
		prefix = []byte(`{"seq":`)
	}
	if len(b) == 0 || b[len(b)-1] != '}' {
		return -1, 0
	}
	end := len(b) - 1 // the facts of all candidates end here
	type candidate struct {
		at, factAt int
		prefixCRC  uint32
		fr         frame
	}
	var cands []candidate
	pre := prefixCRCs{b: b}
	for from <= len(b) {
		i := bytes.Index(b[from:], prefix)
		if i < 0 {
			break
		}
		at := from + i
		from = at + 1
		fr, err := parseFrame(b[at:], version)
		if err != nil {
			continue
		}
		factAt := end - len(fr.payload)
		cands = append(cands, candidate{at: at, factAt: factAt, prefixCRC: pre.upTo(factAt), fr: fr})
	}
	if len(cands) == 0 {
		return -1, 0
	}
	whole := pre.upTo(end)
	found := -1
	var xpow uint32 // x^(8*(end-factAt)) of the candidate at hand
	steps := map[int]uint32{}
	for k := len(cands) - 1; k >= 0; k-- {
		c := &cands[k]
		if k == len(cands)-1 {
			xpow = shiftBytes(end - c.factAt)
		} else {
			d := cands[k+1].factAt - c.factAt
			step, ok := steps[d]
			if !ok {
				step = shiftBytes(d)
				steps[d] = step
			}
			xpow = multModP(xpow, step)
		}
		crc := whole ^ multModP(xpow, c.prefixCRC)
		if version == 1 {
			crc = withU64(crc, c.fr.seq)
		} else {
			crc = withU64(withU64(extendMeta(crc, c.fr.stream, c.fr.id), c.fr.seq), c.fr.pos)
		}
		if crc == c.fr.crc {
			found = k
		}
	}
	if found < 0 {
		return -1, 0
	}
	return cands[found].at, cands[found].fr.pos
}
