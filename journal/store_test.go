package journal

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A faultFile is a journal file whose Sync and Write a test controls.
type faultFile struct {
	*os.File
	syncs atomic.Int32
	// sync, when set, runs in place of the real sync; n counts from 1.
	sync func(n int32) error
	// write, when set, runs before each write and may refuse it.
	write func(p []byte) error
}

func (f *faultFile) Sync() error {
	n := f.syncs.Add(1)
	if f.sync != nil {
		return f.sync(n)
	}
	return f.File.Sync()
}

func (f *faultFile) Write(p []byte) (int, error) {
	if f.write != nil {
		if err := f.write(p); err != nil {
			return 0, err
		}
	}
	return f.File.Write(p)
}

// openFault opens the journal at path through ff, which the returned option
// fills in when Open calls it.
func openFault(t *testing.T, path string, ff *faultFile) *FileStore {
	t.Helper()
	return open(t, path, WithOpenFile(func(p string) (File, error) {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		ff.File = f
		return ff, err
	}))
}

// gate is a sync hook whose calls block until the test lets each through.
type gate struct {
	entered chan int32 // receives a sync's number as it starts
	release chan error // each receive ends one sync with that error
}

func newGate() *gate {
	return &gate{entered: make(chan int32, 16), release: make(chan error)}
}

func (g *gate) sync(n int32) error {
	g.entered <- n
	return <-g.release
}

var errDisk = errors.New("injected EIO")

// TestSyncFailureSticky: a failed fsync fails the flush that ran it, every
// flush waiting on it, and every later flush and append — even once the
// disk would sync again, and without a second fsync.
func TestSyncFailureSticky(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := t.TempDir() + "/sticky.journal"
		ff := &faultFile{}
		s := openFault(t, path, ff)
		syncsAtOpen := ff.syncs.Load()
		g := newGate()
		ff.sync = g.sync

		s.append1(payload(t, 1))
		errs := make(chan error, 3)
		go func() { errs <- s.Flush(context.Background()) }()
		<-g.entered
		// Two more flushers arrive while the first one's sync is in progress.
		s.append1(payload(t, 2))
		for range 2 {
			go func() { errs <- s.Flush(context.Background()) }()
		}
		synctest.Wait() // every flusher is waiting on the sync in progress
		g.release <- errDisk
		for range 3 {
			if err := <-errs; !errors.Is(err, errDisk) {
				t.Fatalf("pending flush = %v, want the sync failure", err)
			}
		}

		ff.sync = nil // the disk would sync now; the store must not believe it
		if err := s.Flush(context.Background()); !errors.Is(err, errDisk) {
			t.Fatalf("later Flush = %v, want the sticky failure", err)
		}
		if _, err := s.append1(payload(t, 3)); !errors.Is(err, errDisk) {
			t.Fatalf("later Append = %v, want the sticky failure", err)
		}
		if err := s.close(); !errors.Is(err, errDisk) {
			t.Fatalf("Close = %v, want the sticky failure", err)
		}
		if n := ff.syncs.Load() - syncsAtOpen; n != 1 {
			t.Fatalf("%d syncs after Open, want exactly 1: no retry", n)
		}
		// What reached the file is still a journal.
		s = open(t, path)
		if lastSeq(t, s, testStream) > 2 {
			t.Fatalf("reopened journal ends at seq %d, want at most 2", lastSeq(t, s, testStream))
		}
		s.close()
	})
}

// A failed write is sticky like a failed sync.
func TestWriteFailureSticky(t *testing.T) {
	path := t.TempDir() + "/sticky.journal"
	ff := &faultFile{}
	s := openFault(t, path, ff)
	ff.write = func([]byte) error { return errDisk }
	s.append1(payload(t, 1))
	if err := s.Flush(context.Background()); !errors.Is(err, errDisk) {
		t.Fatalf("Flush = %v, want the write failure", err)
	}
	ff.write = nil
	s.append1(payload(t, 2))
	if err := s.Flush(context.Background()); !errors.Is(err, errDisk) {
		t.Fatalf("later Flush = %v, want the sticky failure", err)
	}
	s.close()
}

// TestGroupCommit: flushers that arrive while a sync runs share the next one.
func TestGroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ff := &faultFile{}
		s := openFault(t, t.TempDir()+"/group.journal", ff)
		defer s.close()
		g := newGate()
		ff.sync = g.sync
		base := ff.syncs.Load()

		s.append1(payload(t, 1))
		first := make(chan error, 1)
		go func() { first <- s.Flush(context.Background()) }()
		<-g.entered

		const waiters = 10
		for i := range waiters {
			s.append1(payload(t, 2+i))
		}
		var wg sync.WaitGroup
		var failed atomic.Int32
		for range waiters {
			wg.Go(func() {
				if s.Flush(context.Background()) != nil {
					failed.Add(1)
				}
			})
		}
		synctest.Wait()  // every flusher is waiting on the sync in progress
		g.release <- nil // the first sync: it covers record 1 only
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		<-g.entered // one of the waiters leads the next sync
		g.release <- nil
		wg.Wait()
		if failed.Load() != 0 {
			t.Fatalf("%d flushes failed", failed.Load())
		}
		if n := ff.syncs.Load() - base; n != 2 {
			t.Fatalf("%d syncs for 1 + %d concurrent flushers, want 2", n, waiters)
		}
	})
}

// TestFlushWaitsForCoveringSync: a flusher whose record was appended after a
// sync began does not return when that sync ends, but after one covering it.
func TestFlushWaitsForCoveringSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ff := &faultFile{}
		s := openFault(t, t.TempDir()+"/cover.journal", ff)
		defer s.close()
		g := newGate()
		ff.sync = g.sync

		s.append1(payload(t, 1))
		a := make(chan error, 1)
		go func() { a <- s.Flush(context.Background()) }()
		<-g.entered
		s.append1(payload(t, 2))
		b := make(chan error, 1)
		go func() { b <- s.Flush(context.Background()) }()
		synctest.Wait() // every flusher is waiting on the sync in progress
		g.release <- nil
		if err := <-a; err != nil {
			t.Fatal(err)
		}
		<-g.entered // b's own sync, since the first did not cover record 2
		select {
		case err := <-b:
			t.Fatalf("flush returned %v before a sync covered its record", err)
		default:
		}
		g.release <- nil
		if err := <-b; err != nil {
			t.Fatal(err)
		}
	})
}

// A flusher waiting on another's sync gives up when its context ends.
func TestFlushContext(t *testing.T) {
	ff := &faultFile{}
	s := openFault(t, t.TempDir()+"/ctx.journal", ff)
	g := newGate()
	ff.sync = g.sync
	s.append1(payload(t, 1))
	go s.Flush(context.Background())
	<-g.entered
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := s.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flush = %v, want the context's error", err)
	}
	g.release <- nil
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
}

// Appends that overflow the buffer write it out in seq order, whichever
// goroutine writes.
func TestConcurrentAppendsKeepOrder(t *testing.T) {
	path := t.TempDir() + "/order.journal"
	s := open(t, path, WithBufferSize(512))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if _, err := s.append1(payload(t, w*1000+i)); err != nil {
					t.Error(err)
				}
				if i%50 == 0 {
					s.Flush(context.Background())
				}
			}
		})
	}
	wg.Wait()
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	recs := records(t, path) // fails on any seq out of order
	if len(recs) != 1600 || recs[len(recs)-1].Seq != 1600 {
		t.Fatalf("got %d records, want 1600", len(recs))
	}
}

// Close flushes; afterwards the store takes nothing.
func TestClose(t *testing.T) {
	path := t.TempDir() + "/close.journal"
	s := open(t, path)
	s.append1(payload(t, 1))
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, records(t, path), 1)
	if _, err := s.append1(payload(t, 2)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := s.Flush(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	if err := s.close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

// Append refuses what cannot be a record's fact.
func TestAppendRefuses(t *testing.T) {
	path := t.TempDir() + "/refuse.journal"
	s := open(t, path)
	largest := MaxRecordBytes - recordBytes(testStream, "", nil)
	for name, tc := range map[string]struct {
		p    []byte
		want error
	}{
		"empty":    {nil, ErrInvalid},
		"newline":  {[]byte("{\"a\":\n1}"), ErrInvalid},
		"not JSON": {[]byte(`{"a":`), ErrInvalid},
		"two JSON": {[]byte(`{} {}`), ErrInvalid},
		"huge":     {[]byte(`"` + strings.Repeat("x", largest-1) + `"`), ErrTooLarge},
	} {
		if _, err := s.append1(tc.p); !errors.Is(err, tc.want) {
			t.Errorf("%s: Append = %v, want %v", name, err, tc.want)
		}
	}
	if seq, err := s.append1([]byte(`"` + strings.Repeat("x", MaxPayloadBytes-2) + `"`)); seq != 1 || err != nil {
		t.Fatalf("Append of MaxPayloadBytes = %d, %v", seq, err)
	}
	if seq, err := s.append1([]byte(`"` + strings.Repeat("x", largest-2) + `"`)); seq != 2 || err != nil {
		t.Fatalf("Append of the largest payload for its stream = %d, %v", seq, err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if recs := records(t, path); len(recs) != 2 || len(recs[0].Payload) != MaxPayloadBytes || len(recs[1].Payload) != largest {
		t.Fatalf("the largest payloads did not read back")
	}
}

// A file whose first record is not at position 1, nor its stream at seq 1 (a
// file continuing an older one, as the format allows), reads from any
// position, and from any seq it holds: a read of the stream from before its
// first seq is an ArchivedError naming the seqs the file does not hold
// (never a read that jumps over them); appends continue both.
func TestReadsOfAFileThatStartsLater(t *testing.T) {
	file := []byte(header)
	for i := range uint64(700) {
		p := payload(t, int(i))
		file = appendRecord(file, 1000+i, testStream, 50+i, "", p, metaCRC(p, testStream, ""))
	}
	path := writeFile(t, "later.journal", file)
	s := open(t, path)
	ctx := context.Background()
	for _, after := range []uint64{0, 999, 1000, 1001, 1255, 1256, 1257, 1511, 1698, 1699, 1700} {
		n := 0
		for rec, err := range s.ReadAll(ctx, Position{Minor: after}) {
			if err != nil {
				t.Fatal(err)
			}
			if want := max(after+1, 1000) + uint64(n); rec.Pos.Minor != want || rec.Seq != want-950 {
				t.Fatalf("ReadAll after %d: record %d at pos %d seq %d, want pos %d", after, n, rec.Pos.Minor, rec.Seq, want)
			}
			n++
		}
		if want := int(1700 - max(after+1, 1000)); n != max(want, 0) {
			t.Fatalf("ReadAll after %d yields %d records, want %d", after, n, want)
		}
	}
	for _, after := range []uint64{0, 48} {
		for _, err := range s.ReadStream(ctx, testStream, after) {
			var ae *ArchivedError
			if !errors.As(err, &ae) || ae.After != after || ae.Through != 49 {
				t.Fatalf("ReadStream after %d of a stream the file holds from seq 50: %v; want an ArchivedError of seqs %d to 49", after, err, after+1)
			}
		}
	}
	for _, after := range []uint64{49, 50, 300, 748, 749, 800} {
		n := 0
		for rec, err := range s.ReadStream(ctx, testStream, after) {
			if err != nil {
				t.Fatal(err)
			}
			if want := max(after+1, 50) + uint64(n); rec.Seq != want {
				t.Fatalf("ReadStream after %d: record %d has seq %d, want %d", after, n, rec.Seq, want)
			}
			n++
		}
		if want := int(750 - max(after+1, 50)); n != max(want, 0) {
			t.Fatalf("ReadStream after %d yields %d records, want %d", after, n, want)
		}
	}
	if seq, err := s.append1(payload(t, 1)); seq != 750 || err != nil || s.LastPos().Minor != 1700 {
		t.Fatalf("append = seq %d, %v, at %s; want seq 750 at position 1700", seq, err, s.LastPos())
	}
	s.close()
}
