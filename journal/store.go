package journal

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

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
	// alloc is the file's size with its preallocated tail, zero bytes past
	// written that writes fill in; 0 while nothing is preallocated, and for
	// good once preallocating failed (noAlloc). Guarded by wmu.
	alloc   int64
	noAlloc bool

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
	gc         gathering     // group commit's count of flushers
	err        error         // sticky: the first write or sync failure
	closed     bool          // Close has begun; every method is refused
	fileClosed bool          // f is closed; nothing more is written
}

var _ Store = (*FileStore)(nil)

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

// LastSeq returns the seq of the last record of stream, 0 when there is
// none; see [Store.LastSeq]. It reads the store's index, not the file, and
// counts records still in the write buffer, as ReadStream does.
func (s *FileStore) LastSeq(ctx context.Context, stream Stream) (uint64, error) {
	if err := checkName("stream name", string(stream), MaxStreamBytes); err != nil {
		return 0, s.fail("last seq", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readable(ctx, "last seq"); err != nil {
		return 0, err
	}
	if st := s.ix.streams[stream]; st != nil {
		return st.last, nil
	}
	return 0, nil
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
	if err == nil {
		err = s.dropTailLocked()
	}
	if cerr := s.f.Close(); err == nil && cerr != nil {
		err = s.fail("close", cerr)
	}
	return err
}
