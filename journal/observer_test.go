package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A recordingObserver keeps what a FileStore reported.
type recordingObserver struct {
	mu        sync.Mutex
	records   int
	bytes     int64
	appendErr []error
	flushes   []time.Duration
	flushErr  []error
}

func (o *recordingObserver) Appended(records int, bytes int64) {
	o.mu.Lock()
	o.records += records
	o.bytes += bytes
	o.mu.Unlock()
}

func (o *recordingObserver) AppendFailed(err error) {
	o.mu.Lock()
	o.appendErr = append(o.appendErr, err)
	o.mu.Unlock()
}

func (o *recordingObserver) Flushed(d time.Duration, err error) {
	o.mu.Lock()
	o.flushes = append(o.flushes, d)
	o.flushErr = append(o.flushErr, err)
	o.mu.Unlock()
}

// The bytes an Observer hears of are the bytes the records add to the file;
// an entry whose id the stream holds adds no record.
func TestObserverCountsAppendedRecordsAndTheirFileBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	obs := &recordingObserver{}
	s, err := Open(path, WithLogger(discard()), WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, path)
	if _, err := s.Append(ctx, "a", Entry{ID: "x", Payload: payload(t, 1)}, Entry{Payload: payload(t, 2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "b", Entry{ID: "y", Payload: payload(t, 3)}, Entry{ID: "y", Payload: payload(t, 3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "a", Entry{ID: "x", Payload: payload(t, 1)}); err != nil { // a retry
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if obs.records != 3 {
		t.Fatalf("observed %d records appended; want 3 (duplicate ids add none)", obs.records)
	}
	if grew := fileSize(t, path) - before; obs.bytes != grew {
		t.Fatalf("observed %d bytes appended; the file grew by %d", obs.bytes, grew)
	}
	if len(obs.appendErr) != 0 {
		t.Fatalf("append errors %v on good appends", obs.appendErr)
	}
}

func TestObserverHearsAppendErrors(t *testing.T) {
	obs := &recordingObserver{}
	s, err := Open(filepath.Join(t.TempDir(), "j"), WithLogger(discard()), WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Append(ctx, "", Entry{Payload: payload(t, 1)}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("append to an empty stream name = %v; want ErrInvalid", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "a", Entry{Payload: payload(t, 1)}); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after Close = %v; want ErrClosed", err)
	}
	if len(obs.appendErr) != 2 || !errors.Is(obs.appendErr[0], ErrInvalid) || !errors.Is(obs.appendErr[1], ErrClosed) {
		t.Fatalf("observed append errors %v; want ErrInvalid, then ErrClosed", obs.appendErr)
	}
	if obs.records != 0 {
		t.Fatalf("observed %d records from refused appends", obs.records)
	}
}

// slowSyncFile takes a fixed (fake) time to sync, or fails.
type slowSyncFile struct {
	*os.File
	delay time.Duration
	err   error
}

func (f *slowSyncFile) Sync() error {
	time.Sleep(f.delay)
	return f.err
}

func TestObserverTimesFlushes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &recordingObserver{}
		file := &slowSyncFile{delay: 7 * time.Millisecond}
		open := func(path string) (File, error) {
			f, err := openFile(path)
			if err != nil {
				return nil, err
			}
			file.File = f.(*os.File)
			return file, nil
		}
		s, err := Open(filepath.Join(t.TempDir(), "j"), WithLogger(discard()), WithObserver(obs), WithOpenFile(open))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := s.Append(ctx, "a", Entry{Payload: payload(t, 1)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		file.err = errors.New("EIO")
		if _, err := s.Append(ctx, "a", Entry{Payload: payload(t, 2)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); !errors.Is(err, ErrFailed) {
			t.Fatalf("Flush over a failing sync = %v; want ErrFailed", err)
		}
		s.Close(ctx)
		if len(obs.flushes) != 2 || obs.flushes[0] != 7*time.Millisecond || obs.flushes[1] != 7*time.Millisecond {
			t.Fatalf("observed flushes of %v; want two of 7ms", obs.flushes)
		}
		if obs.flushErr[0] != nil || !errors.Is(obs.flushErr[1], ErrFailed) {
			t.Fatalf("observed flush errors %v; want nil, then ErrFailed", obs.flushErr)
		}
	})
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
