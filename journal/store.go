package journal

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// A File is what a Store needs of its journal file. *os.File is one; tests
// wrap it to inject faults.
type File interface {
	io.Reader
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
}

// WithLogger sets where Open reports repairs. The default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.log = l }
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

// A Store is an append-only journal file. Append buffers a record; Flush makes
// every record appended before it durable. Its methods are safe for
// concurrent use.
type FileStore struct {
	path string
	f    File

	// wmu serializes writes to f, so records reach the file in seq order.
	// Lock order: wmu, then mu.
	wmu   sync.Mutex
	spare []byte // the buffer not in use as buf; guarded by wmu

	mu         sync.Mutex
	buf        []byte        // encoded records not yet written
	bufBytes   int           // write buf out when it reaches this size
	next       uint64        // the seq of the next append
	synced     uint64        // the last seq a completed sync covers
	syncing    bool          // a flusher is writing and syncing
	round      chan struct{} // closed when the current sync ends
	err        error         // sticky: the first write or sync failure
	closed     bool          // Close has begun; appends are refused
	fileClosed bool          // f is closed; nothing more is written
}

// Open opens the journal at path, creating it when absent, and makes it ready
// for appends after its last valid record. A torn last record is cut off,
// the cut made durable and reported through the logger. Damage before the
// end is an error wrapping ErrCorrupt, as a *RecordError naming the offset,
// and the file is left as it was. A file that is not a journal is an error
// wrapping ErrNotJournal.
func Open(path string, opts ...Option) (*FileStore, error) {
	c := config{log: slog.Default(), bufBytes: 64 << 10, open: openFile}
	for _, o := range opts {
		o(&c)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("journal %s: is a directory", path)
	}
	f, err := c.open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	s := &FileStore{path: path, f: f, bufBytes: c.bufBytes, round: make(chan struct{})}
	if err := s.recover(c.log); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// recover scans the file and leaves its offset at the end of the last valid
// record.
func (s *FileStore) recover(log *slog.Logger) error {
	sum, err := scan(s.f, s.path, nil)
	var rerr *RecordError
	switch {
	case errors.Is(err, errEmpty):
		return s.create()
	case errors.As(err, &rerr) && rerr.Kind == ErrTornTail && rerr.Offset == 0:
		log.Warn("journal: completing a header cut short", "path", s.path)
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
		log.Warn("journal: cut off torn tail", "path", s.path, "offset", sum.Good,
			"bytes", end-sum.Good, "reason", rerr.Reason, "lastSeq", sum.LastSeq)
	case err != nil:
		return err
	}
	if _, err := s.f.Seek(sum.Good, io.SeekStart); err != nil {
		return s.fail("seek", err)
	}
	s.next = sum.LastSeq + 1
	s.synced = sum.LastSeq
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
	s.next, s.synced = 1, 0
	return nil
}

func (s *FileStore) fail(op string, err error) error {
	return fmt.Errorf("journal %s: %s: %w", s.path, op, err)
}

// Path returns the journal's file name.
func (s *FileStore) Path() string { return s.path }

// LastSeq returns the seq of the last record appended, zero when none.
func (s *FileStore) LastSeq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next - 1
}

// Append adds a record holding payload and returns its seq. The payload must
// be one JSON value without newline bytes (the store checks only the newline,
// not that the value is JSON) and at most MaxPayloadBytes long; the store
// keeps a copy. The record is buffered: it is durable only once a Flush that
// began after Append returned has succeeded.
func (s *FileStore) Append(payload []byte) (uint64, error) {
	if err := checkPayload(payload); err != nil {
		return 0, fmt.Errorf("journal %s: append: %w", s.path, err)
	}
	crc := crc32.Update(0, castagnoli, payload) // outside the lock
	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return 0, err
	}
	if s.next > MaxSeq || s.next == 0 { // 0: the seq before it was 2^64-1
		s.mu.Unlock()
		return 0, fmt.Errorf("journal %s: append after seq %d: %w", s.path, s.next-1, ErrFull)
	}
	seq := s.next
	s.next++
	s.buf = appendRecordCRC(s.buf, seq, payload, crc)
	full := len(s.buf) >= s.bufBytes
	s.mu.Unlock()
	if full {
		s.wmu.Lock()
		_, err := s.writeLocked()
		s.wmu.Unlock()
		if err != nil {
			return seq, err
		}
	}
	return seq, nil
}

// usable reports why the store takes no appends, or nil. s.mu is held.
func (s *FileStore) usable() error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	return nil
}

// writeLocked writes the buffered records to the file and returns the last
// seq written. s.wmu is held; s.mu is not.
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
	data, upto := s.buf, s.next-1
	s.buf = s.spare[:0]
	s.mu.Unlock()
	s.spare = nil
	if len(data) > 0 {
		if _, err := s.f.Write(data); err != nil {
			return 0, s.setErr("write", err)
		}
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
		s.err = fmt.Errorf("journal %s: %s failed, the journal takes no more writes: %w", s.path, op, err)
	}
	return s.err
}

// Flush is the durability barrier: it returns nil once every record appended
// before the call is durable. Concurrent flushers share one sync (group
// commit): one of them writes and syncs everything buffered while the others
// wait for it, and each returns once a sync covering its records completed.
//
// A failed write or sync is sticky: the flush that saw it, every flush waiting
// on it and every later flush and append fail with it. The store does not
// retry, since a retried fsync can succeed without the lost pages being on
// disk. Reopen the journal to recover what reached the file.
//
// ctx bounds only the wait for another flusher's sync; a sync in progress is
// not interrupted.
func (s *FileStore) Flush(ctx context.Context) error {
	s.mu.Lock()
	target, closed := s.next-1, s.fileClosed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	return s.flushTo(ctx, target)
}

func (s *FileStore) flushTo(ctx context.Context, target uint64) error {
	if err := ctx.Err(); err != nil {
		return err
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
				return ctx.Err()
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
// or the close's. Appends and flushes after Close fail with ErrClosed.
func (s *FileStore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("journal %s: %w", s.path, ErrClosed)
	}
	s.closed = true
	target := s.next - 1
	s.mu.Unlock()

	err := s.flushTo(context.Background(), target)

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
	if cerr := s.f.Close(); err == nil && cerr != nil {
		err = s.fail("close", cerr)
	}
	return err
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
