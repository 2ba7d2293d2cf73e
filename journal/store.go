package journal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A File is what a FileStore needs of its journal file. *os.File is one;
// tests wrap it to inject faults.
type File interface {
	io.Reader
	// ReadAt reads records back by offset; it may run while Write does.
	io.ReaderAt
	io.Writer
	io.Seeker
	// Sync makes everything written so far durable.
	Sync() error
	// Truncate cuts the file to size bytes.
	Truncate(size int64) error
	Close() error
}

// An Option configures Open.
type Option func(*config)

type config struct {
	log      *slog.Logger
	bufBytes int
	open     func(path string) (File, error)
	obs      Observer
}

// WithLogger sets where Open reports repairs (a torn tail cut off, a header
// completed, a version 1 journal rewritten). Without it, or with nil, nothing is logged: the library logs only to a logger it is given.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// WithBufferSize sets how many bytes of appended records a Store holds before
// it writes them to the file, fsync or not. The default is 64 KiB.
func WithBufferSize(n int) Option {
	return func(c *config) { c.bufBytes = max(n, 1) }
}

// WithOpenFile replaces how Open opens the journal file for reading and
// writing, creating it when absent. The default uses os.OpenFile, locks the
// file against a second writer, and syncs with fdatasync where available.
func WithOpenFile(open func(path string) (File, error)) Option {
	return func(c *config) { c.open = open }
}

// WithObserver sets the Observer that receives the store's metric events;
// the default is none, and then the store makes no call and reads no clock.
func WithObserver(o Observer) Option {
	return func(c *config) { c.obs = o }
}

// A FileStore is a journal in one file, the embedded backend of Store: no
// server, one writer process. The file format and its recovery are described
// in the package documentation.
//
// A FileStore keeps an index of the file in memory, built when it opens: per
// stream the offset and length of each record, its record ids, and every
// 256th position's offset. ReadStream reads a stream's records by offset, so
// it costs in proportion to the stream; ReadAll reads the file from the
// nearest kept offset. The index costs about 16 bytes a record.
type FileStore struct {
	path string
	f    File
	obs  Observer // nil: no metric events

	// wmu serializes writes to f, so records reach the file in order.
	// Lock order: wmu, then mu.
	wmu   sync.Mutex
	spare []byte // the buffer not in use as buf; guarded by wmu

	// rmu is held shared while a reader reads f, and exclusively while Close
	// closes it.
	rmu sync.RWMutex

	mu         sync.Mutex
	ix         *index        // the file's streams and positions, buffered records included
	buf        []byte        // encoded records not yet written
	bufBytes   int           // write buf out when it reaches this size
	end        int64         // the file's size once buf is written
	written    int64         // the file's size: what is written of end
	synced     uint64        // the last position a completed sync covers
	syncing    bool          // a flusher is writing and syncing
	round      chan struct{} // closed when the current sync ends
	err        error         // sticky: the first write or sync failure
	closed     bool          // Close has begun; every method is refused
	fileClosed bool          // f is closed; nothing more is written
}

var _ Store = (*FileStore)(nil)

// Open opens the journal at path, creating it when absent, and makes it ready
// for appends after its last valid record. A torn last record is cut off,
// the cut made durable and reported through the logger. Damage before the
// end is an error wrapping ErrCorrupt, as a *RecordError naming the offset,
// and the file is left as it was. A file that is not a journal is an error
// wrapping ErrNotJournal. A version 1 file is rewritten as version 2 (see the
// package documentation), atomically, by renaming a new file over it.
func Open(path string, opts ...Option) (*FileStore, error) {
	c := config{log: slog.New(slog.DiscardHandler), bufBytes: 64 << 10, open: openFile}
	for _, o := range opts {
		o(&c)
	}
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := c.open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	s := &FileStore{path: path, f: f, bufBytes: c.bufBytes, round: make(chan struct{}), obs: c.obs}
	if err := s.recover(&c); err != nil {
		s.f.Close()
		return nil, err
	}
	return s, nil
}

// checkRegular refuses a path that exists and is not a regular file: a
// directory, or a FIFO or device, whose reads could block forever.
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil // absent: Open creates it; other errors surface at open
	case fi.IsDir():
		return fmt.Errorf("journal %s: is a directory", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("journal %s: not a regular file (%s): %w", path, fi.Mode().Type(), ErrNotJournal)
	}
	return nil
}

// checkRegularFile is checkRegular for a file that is open, in case path
// was replaced between the check and the open.
func checkRegularFile(path string, f *os.File) error {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return fmt.Errorf("journal %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("journal %s: is a directory", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("journal %s: not a regular file (%s): %w", path, fi.Mode().Type(), ErrNotJournal)
	}
	return nil
}

// recover scans the file, cuts a torn tail, and leaves the file's offset at
// the end of its last valid record, with the index of what it holds.
func (s *FileStore) recover(c *config) error {
	ix := newIndex(true)
	sum, err := scan(s.f, s.path, ix, nil)
	var rerr *RecordError
	switch {
	case errors.Is(err, errEmpty):
		return s.create()
	case errors.As(err, &rerr) && rerr.Kind == ErrTornTail && rerr.Offset == 0:
		c.log.Warn("journal: completing a header cut short", "path", s.path)
		return s.create()
	case errors.As(err, &rerr) && rerr.Kind == ErrTornTail:
		end, serr := s.f.Seek(0, io.SeekEnd)
		if serr != nil {
			return s.fail("seek", serr)
		}
		if err := s.f.Truncate(sum.Good); err != nil {
			return s.fail("truncate torn tail", err)
		}
		if err := syncFile(s.f); err != nil {
			return s.fail("sync after truncating torn tail", err)
		}
		c.log.Warn("journal: cut off torn tail", "path", s.path, "offset", sum.Good,
			"bytes", end-sum.Good, "reason", rerr.Reason, "lastPos", sum.LastPos)
	case err != nil:
		return err
	}
	if ix.version == 1 {
		if err := s.migrate(c); err != nil {
			return err
		}
		return s.recover(c)
	}
	if _, err := s.f.Seek(sum.Good, io.SeekStart); err != nil {
		return s.fail("seek", err)
	}
	s.ix, s.end, s.written, s.synced = ix, sum.Good, sum.Good, ix.lastPos
	return nil
}

// migrate rewrites a version 1 file as version 2: the same records, in
// V1Stream, each keeping its seq as seq and position. The new file is
// written beside the old one, synced and renamed over it, so a crash leaves
// one or the other. It then opens the new file in place of the old.
func (s *FileStore) migrate(c *config) error {
	tmp := s.path + ".v2-migrating"
	out, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return s.fail("migrate to version 2", err)
	}
	defer os.Remove(tmp) // after the rename, there is nothing to remove
	defer out.Close()
	bw := bufio.NewWriterSize(out, 64<<10)
	bw.WriteString(header)
	var line []byte
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return s.fail("seek", err)
	}
	sum, err := scan(s.f, s.path, newIndex(false), func(r Record) bool {
		line = appendRecord(line[:0], r.Pos.Minor, r.Stream, r.Seq, "", r.Payload, metaCRC(r.Payload, r.Stream, ""))
		bw.Write(line)
		return true
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return s.fail("migrate to version 2: write", err)
	}
	if err := datasync(out); err != nil {
		return s.fail("migrate to version 2: sync", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return s.fail("migrate to version 2", err)
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return s.fail("migrate to version 2: sync directory", err)
	}
	c.log.Info("journal: rewrote a version 1 journal as version 2", "path", s.path,
		"records", sum.Records, "stream", string(V1Stream))
	s.f.Close()
	f, err := c.open(s.path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	s.f = f
	return nil
}

// create writes the header into an empty or header-torn file and makes the
// file and its directory entry durable.
func (s *FileStore) create() error {
	if err := s.f.Truncate(0); err != nil {
		return s.fail("truncate", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return s.fail("seek", err)
	}
	if _, err := io.WriteString(s.f, header); err != nil {
		return s.fail("write header", err)
	}
	if err := syncFile(s.f); err != nil {
		return s.fail("sync", err)
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return s.fail("sync directory", err)
	}
	s.ix = newIndex(true)
	s.ix.version = 2
	s.end, s.written, s.synced = int64(len(header)), int64(len(header)), 0
	return nil
}

func (s *FileStore) fail(op string, err error) error {
	return fmt.Errorf("journal %s: %s: %w", s.path, op, err)
}

// Path returns the journal's file name.
func (s *FileStore) Path() string { return s.path }

// LastPos returns the position of the last record appended; the zero
// Position when there is none.
func (s *FileStore) LastPos() Position {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Position{Minor: s.ix.lastPos}
}

// LastSeq returns the seq of the last record appended to stream, zero when
// there is none.
func (s *FileStore) LastSeq(stream Stream) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.ix.streams[stream]; st != nil {
		return st.last
	}
	return 0
}

// Append adds entries to the end of stream and returns their seqs; see
// [Store.Append]. The store keeps copies of the payloads. The records are
// buffered: they are durable only once a Flush that began after Append
// returned has succeeded.
func (s *FileStore) Append(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error) {
	seqs, err := s.append(ctx, stream, entries)
	if err != nil && s.obs != nil {
		s.obs.AppendFailed(err)
	}
	return seqs, err
}

func (s *FileStore) append(ctx context.Context, stream Stream, entries []Entry) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, s.fail("append", err)
	}
	if err := checkName("stream name", string(stream), MaxStreamBytes); err != nil {
		return nil, s.fail("append", err)
	}
	var one [1]uint32
	metas := one[:]
	if len(entries) > 1 {
		metas = make([]uint32, len(entries))
	}
	for i, e := range entries {
		if e.ID != "" {
			if err := checkName("record id", e.ID, MaxIDBytes); err != nil {
				return nil, s.fail("append", err)
			}
		}
		if err := checkPayload(e.Payload); err != nil {
			return nil, s.fail("append", err)
		}
		if n := recordBytes(stream, e.ID, e.Payload); n > MaxRecordBytes {
			return nil, s.fail("append", fmt.Errorf("record of up to %d bytes exceeds %d: %w", n, MaxRecordBytes, ErrTooLarge))
		}
		metas[i] = metaCRC(e.Payload, stream, e.ID) // outside the lock
	}
	seqs := make([]uint64, len(entries))

	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	st := s.ix.streams[stream]
	var last uint64
	if st != nil {
		last = st.last
	}
	fresh := uint64(0)
	var inCall map[string]uint64 // ids first seen in this call
	for i, e := range entries {
		if e.ID != "" {
			if seq, ok := st.id(e.ID); ok {
				seqs[i] = seq
				continue
			}
			if len(entries) > 1 {
				if seq, ok := inCall[e.ID]; ok {
					seqs[i] = seq
					continue
				}
				if inCall == nil {
					inCall = make(map[string]uint64)
				}
				inCall[e.ID] = last + fresh + 1
			}
		}
		fresh++
		seqs[i] = last + fresh
	}
	if fresh > 0 && (last >= MaxSeq || fresh > MaxSeq-last || fresh > math.MaxUint64-s.ix.lastPos) {
		s.mu.Unlock()
		return nil, s.fail("append", fmt.Errorf("stream %q at seq %d, position %d: %w", stream, last, s.ix.lastPos, ErrFull))
	}
	next, end0 := last+1, s.end
	for i, e := range entries {
		if seqs[i] != next {
			continue // a duplicate id
		}
		next++
		fr := frame{pos: s.ix.lastPos + 1, stream: stream, seq: seqs[i], id: e.ID}
		n := len(s.buf)
		s.buf = appendRecord(s.buf, fr.pos, stream, fr.seq, e.ID, e.Payload, metas[i])
		l := loc{off: s.end, n: uint32(len(s.buf) - n)}
		s.end += int64(l.n)
		st = s.ix.addTo(st, &fr, l)
	}
	full, added := len(s.buf) >= s.bufBytes, s.end-end0
	s.mu.Unlock()
	if s.obs != nil && fresh > 0 {
		s.obs.Appended(int(fresh), added)
	}
	if full {
		s.wmu.Lock()
		_, err := s.writeLocked()
		s.wmu.Unlock()
		if err != nil {
			return seqs, err
		}
	}
	return seqs, nil
}

// id returns the seq of the record of st that holds id.
func (st *streamIndex) id(id string) (uint64, bool) {
	if st == nil {
		return 0, false
	}
	seq, ok := st.ids[id]
	return seq, ok
}

// usable reports why the store takes no appends, or nil. s.mu is held.
func (s *FileStore) usable() error {
	if s.closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	return s.err
}

// writeLocked writes the buffered records to the file and returns the last
// position written. s.wmu is held; s.mu is not.
func (s *FileStore) writeLocked() (uint64, error) {
	s.mu.Lock()
	if s.err != nil || s.fileClosed {
		err := s.err
		if err == nil {
			err = fmt.Errorf("journal %s: %w", s.path, ErrClosed)
		}
		s.mu.Unlock()
		return 0, err
	}
	data, upto := s.buf, s.ix.lastPos
	s.buf = s.spare[:0]
	s.mu.Unlock()
	s.spare = nil
	if len(data) > 0 {
		if _, err := s.f.Write(data); err != nil {
			return 0, s.setErr("write", err)
		}
		s.mu.Lock()
		s.written += int64(len(data))
		s.mu.Unlock()
	}
	s.spare = data[:0]
	return upto, nil
}

// setErr makes err the store's sticky failure, unless one is set, and returns
// the sticky failure.
func (s *FileStore) setErr(op string, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("journal %s: %s failed, the journal takes no more writes: %w: %w", s.path, op, ErrFailed, err)
	}
	return s.err
}

// Flush is the durability barrier: it returns nil once every record appended
// before the call is durable. Concurrent flushers share one sync (group
// commit): one of them writes and syncs everything buffered while the others
// wait for it, and each returns once a sync covering its records completed.
//
// A failed write or sync is sticky: the flush that saw it, every flush waiting
// on it and every later flush and append fail with it (wrapping ErrFailed).
// The store does not retry, since a retried fsync can succeed without the
// lost pages being on disk. Reopen the journal to recover what reached the
// file.
//
// ctx bounds only the wait for another flusher's sync; a sync in progress is
// not interrupted.
func (s *FileStore) Flush(ctx context.Context) error {
	if s.obs == nil {
		return s.flush(ctx)
	}
	start := time.Now()
	err := s.flush(ctx)
	s.obs.Flushed(time.Since(start), err)
	return err
}

func (s *FileStore) flush(ctx context.Context) error {
	s.mu.Lock()
	target, closed := s.ix.lastPos, s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	return s.flushTo(ctx, target)
}

func (s *FileStore) flushTo(ctx context.Context, target uint64) error {
	if err := ctx.Err(); err != nil {
		return s.fail("flush", err)
	}
	s.mu.Lock()
	for {
		switch {
		case s.err != nil:
			err := s.err
			s.mu.Unlock()
			return err
		case s.synced >= target:
			s.mu.Unlock()
			return nil
		case s.fileClosed:
			s.mu.Unlock()
			return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
		case !s.syncing:
			s.syncing = true
			round := s.round
			s.mu.Unlock()
			s.syncRound()
			s.mu.Lock()
			s.syncing = false
			s.round = make(chan struct{})
			close(round)
		default:
			round := s.round
			s.mu.Unlock()
			select {
			case <-round:
			case <-ctx.Done():
				return s.fail("flush", ctx.Err())
			}
			s.mu.Lock()
		}
	}
}

// syncRound writes everything buffered and syncs the file, recording what the
// sync covered or the failure. The caller holds the syncing role.
func (s *FileStore) syncRound() {
	s.wmu.Lock()
	upto, err := s.writeLocked()
	s.wmu.Unlock() // appenders may write more while the sync runs
	if err != nil {
		return
	}
	if err := syncFile(s.f); err != nil {
		s.setErr("sync", err)
		return
	}
	s.mu.Lock()
	s.synced = max(s.synced, upto)
	s.mu.Unlock()
}

// Close flushes the store and closes its file. It returns the flush's error,
// or the close's. After Close every method fails with ErrClosed; a second
// Close returns nil. Close always completes: it flushes and closes even when
// ctx has ended, since an abandoned buffer would lose acknowledged appends.
func (s *FileStore) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	target := s.ix.lastPos
	s.mu.Unlock()

	err := s.flushTo(context.WithoutCancel(ctx), target)

	s.mu.Lock()
	for s.syncing {
		round := s.round
		s.mu.Unlock()
		<-round
		s.mu.Lock()
	}
	s.fileClosed = true
	s.mu.Unlock()

	s.wmu.Lock() // wait out a write in progress
	defer s.wmu.Unlock()
	s.rmu.Lock() // and every read
	defer s.rmu.Unlock()
	if cerr := s.f.Close(); err == nil && cerr != nil {
		err = s.fail("close", cerr)
	}
	return err
}

// readChunk is about how many bytes a reader reads from the file at once.
const readChunk = 256 << 10

// readable reports why the store cannot be read (closed, ctx ended), or nil.
// s.mu is held.
func (s *FileStore) readable(ctx context.Context, op string) error {
	if s.closed {
		return fmt.Errorf("journal %s: %s: %w", s.path, op, ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// written makes sure the file holds every byte before end, writing the buffer
// out (without syncing) when it does not yet.
func (s *FileStore) writtenTo(end int64) error {
	s.mu.Lock()
	w := s.written
	s.mu.Unlock()
	if end <= w {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.writeLocked()
	return err
}

// readAt reads len(b) bytes at off, under rmu, refusing once the file is
// closed.
func (s *FileStore) readAt(b []byte, off int64) error {
	s.rmu.RLock()
	defer s.rmu.RUnlock()
	s.mu.Lock()
	closed := s.fileClosed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	if _, err := s.f.ReadAt(b, off); err != nil {
		return ioError(s.path, err)
	}
	return nil
}

// ReadStream yields the records of stream after seq after; see
// [Store.ReadStream]. It reads them by offset from the index, a batch at a
// time, so its cost is the stream's, and records still buffered are written
// to the file (not synced) before they are read.
func (s *FileStore) ReadStream(ctx context.Context, stream Stream, after uint64) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		var buf []byte
		for {
			s.mu.Lock()
			if err := s.readable(ctx, "read stream"); err != nil {
				s.mu.Unlock()
				yield(Record{}, err)
				return
			}
			st := s.ix.streams[stream]
			if st == nil || after >= st.last {
				s.mu.Unlock()
				return
			}
			i := max(after+1, st.first) - st.first
			batch := st.locs[i:len(st.locs):len(st.locs)]
			s.mu.Unlock()
			size := int64(0)
			for k, l := range batch {
				if k > 0 && size+int64(l.n) > readChunk {
					batch = batch[:k]
					break
				}
				size += int64(l.n)
			}
			recs, err := s.readLocs(batch, &buf)
			for k, r := range recs {
				if err == nil && (r.Stream != stream || r.Seq != st.first+i+uint64(k)) {
					err = &RecordError{Path: s.path, Offset: r.Offset, Kind: ErrCorrupt,
						Reason: fmt.Sprintf("index says stream %q seq %d, file holds stream %q seq %d", stream, st.first+i+uint64(k), r.Stream, r.Seq)}
				}
				if err == nil && k > 0 {
					if cerr := ctx.Err(); cerr != nil {
						err = s.fail("read stream", cerr)
					}
				}
				if err != nil {
					break
				}
				if !yield(r, nil) {
					return
				}
				after = r.Seq
			}
			if err != nil {
				yield(Record{}, err)
				return
			}
		}
	}
}

// readLocs reads the records at locs, reading adjacent ones at once.
func (s *FileStore) readLocs(locs []loc, buf *[]byte) ([]Record, error) {
	last := locs[len(locs)-1]
	if err := s.writtenTo(last.off + int64(last.n)); err != nil {
		return nil, err
	}
	recs := make([]Record, 0, len(locs))
	for len(locs) > 0 {
		run := 1
		size := int(locs[0].n)
		for run < len(locs) && locs[run].off == locs[run-1].off+int64(locs[run-1].n) {
			size += int(locs[run].n)
			run++
		}
		if cap(*buf) < size {
			*buf = make([]byte, size)
		}
		b := (*buf)[:size]
		if err := s.readAt(b, locs[0].off); err != nil {
			return recs, err
		}
		for _, l := range locs[:run] {
			rec, err := s.parseAt(b[:l.n], l.off)
			if err != nil {
				return recs, err
			}
			recs = append(recs, rec)
			b = b[l.n:]
		}
		locs = locs[run:]
	}
	return recs, nil
}

// parseAt parses the record line b, newline included, read at off, and
// returns it with a copy of its payload.
func (s *FileStore) parseAt(b []byte, off int64) (Record, error) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return Record{}, &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt, Reason: "record does not end with a newline where the index says"}
	}
	fr, err := parseRecord(b[:len(b)-1], 2)
	if err != nil {
		return Record{}, &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt, Reason: err.Error()}
	}
	rec := fr.record(off)
	rec.Payload = bytes.Clone(rec.Payload)
	return rec, nil
}

// ReadAll yields every record after the position after, in global order; see
// [Store.ReadAll]. Every position of a file store has Major zero, so nothing
// is after a position whose Major is not. It reads the file sequentially from
// the nearest kept offset before the position, a chunk at a time, and writes
// records still buffered to the file (not synced) before reading them.
func (s *FileStore) ReadAll(ctx context.Context, after Position) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		if after.Major != 0 || after.Minor == math.MaxUint64 {
			return
		}
		next := after.Minor + 1 // the position to yield next
		var (
			off  int64  = -1 // where to read from; -1 until known
			at   uint64      // the position of the record at off
			buf  []byte
			size = readChunk
		)
		for {
			s.mu.Lock()
			if err := s.readable(ctx, "read"); err != nil {
				s.mu.Unlock()
				yield(Record{}, err)
				return
			}
			ix, end := s.ix, s.end
			if ix.lastPos == 0 || next > ix.lastPos {
				s.mu.Unlock()
				return
			}
			if off < 0 {
				next = max(next, ix.firstPos)
				k := (next - ix.firstPos) / checkpointEvery
				off, at = ix.checkpoints[k], ix.firstPos+k*checkpointEvery
			}
			s.mu.Unlock()
			if err := s.writtenTo(end); err != nil {
				yield(Record{}, err)
				return
			}
			n := int(min(int64(size), end-off))
			if cap(buf) < n {
				buf = make([]byte, n)
			}
			b := buf[:n]
			if err := s.readAt(b, off); err != nil {
				yield(Record{}, err)
				return
			}
			whole := bytes.LastIndexByte(b, '\n') + 1
			if whole == 0 {
				if size < MaxRecordBytes && int64(n) < end-off {
					size = MaxRecordBytes
					continue
				}
				yield(Record{}, &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt, Reason: "no newline where a record should end"})
				return
			}
			for b = b[:whole]; len(b) > 0; {
				nl := bytes.IndexByte(b, '\n') + 1
				if at >= next {
					if err := ctx.Err(); err != nil {
						yield(Record{}, s.fail("read", err))
						return
					}
					rec, err := s.parseAt(b[:nl], off)
					if err == nil && rec.Pos.Minor != at {
						err = &RecordError{Path: s.path, Offset: off, Kind: ErrCorrupt,
							Reason: fmt.Sprintf("pos %d where pos %d should be", rec.Pos.Minor, at)}
					}
					if err != nil {
						yield(Record{}, err)
						return
					}
					if !yield(rec, nil) {
						return
					}
					next = at + 1
				}
				at++
				off += int64(nl)
				b = b[nl:]
			}
		}
	}
}

// openFile is the default way to open a journal file.
func openFile(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// syncFile makes what was written to f durable, with fdatasync where the
// platform has it: the file's data and size, not its timestamps.
func syncFile(f File) error {
	if osf, ok := f.(*os.File); ok {
		return datasync(osf)
	}
	return f.Sync()
}

// syncDir makes a new directory entry in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}
