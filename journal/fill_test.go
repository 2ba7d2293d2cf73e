package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A fillFile is a journal file that preallocates as the default file does
// and logs what the store does to it: each Allocate, each WriteAt (the
// fill), each Write (records) and each Sync, in order.
type fillFile struct {
	*os.File
	mu  sync.Mutex
	log []string
	// lastFill is true while the last call was a WriteAt.
	lastFill bool
	// writeAt, when set, runs before each WriteAt and may refuse it.
	writeAt func() error
	// fillSync, when set, runs in place of a sync that follows a fill.
	fillSync func() error
}

func (f *fillFile) Allocate(off, n int64) error {
	f.note(false, "allocate %d+%d", off, n)
	return fallocate(f.File, off, n)
}

func (f *fillFile) WriteAt(p []byte, off int64) (int, error) {
	cur, err := f.File.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	f.note(true, "fill %d+%d zero=%t past=%t", off, len(p), allZero(p), off >= cur)
	if f.writeAt != nil {
		if err := f.writeAt(); err != nil {
			return 0, err
		}
	}
	return f.File.WriteAt(p, off)
}

func (f *fillFile) Write(p []byte) (int, error) {
	f.note(false, "write %d", len(p))
	return f.File.Write(p)
}

func (f *fillFile) Sync() error {
	f.mu.Lock()
	afterFill := f.lastFill
	f.mu.Unlock()
	f.note(false, "sync")
	if afterFill && f.fillSync != nil {
		return f.fillSync()
	}
	return datasync(f.File)
}

func (f *fillFile) note(fill bool, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, fmt.Sprintf(format, args...))
	f.lastFill = fill
}

func (f *fillFile) events() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

// openFill opens the journal at path through ff.
func openFill(t *testing.T, path string, ff *fillFile) *FileStore {
	t.Helper()
	return open(t, path, WithOpenFile(func(p string) (File, error) {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		ff.File = f
		return ff, err
	}))
}

// wantFilled checks that every preallocation in events is filled with
// zeros past the records, exactly to the allocation's end, and synced
// before any record is written over it.
func wantFilled(t *testing.T, events []string) {
	t.Helper()
	allocs := 0
	for i := 0; i < len(events); i++ {
		var off, n int64
		if _, err := fmt.Sscanf(events[i], "allocate %d+%d", &off, &n); err != nil {
			continue
		}
		allocs++
		end := off + n
		var filled int64 = -1
		j := i + 1
		for ; j < len(events) && strings.HasPrefix(events[j], "fill "); j++ {
			var at, k int64
			var zero, past bool
			if _, err := fmt.Sscanf(events[j], "fill %d+%d zero=%t past=%t", &at, &k, &zero, &past); err != nil {
				t.Fatalf("event %q: %v", events[j], err)
			}
			if !zero || !past {
				t.Fatalf("event %d %q: the fill must write zero bytes past the records", j, events[j])
			}
			if filled >= 0 && at != filled {
				t.Fatalf("event %d %q: the fill skips from %d", j, events[j], filled)
			}
			filled = at + k
		}
		if filled != end {
			t.Fatalf("allocation %q filled to %d, want its end %d: %q", events[i], filled, end, events)
		}
		if j == len(events) || events[j] != "sync" {
			t.Fatalf("allocation %q: its fill is not synced before the next step: %q", events[i], events)
		}
	}
	if allocs == 0 {
		t.Fatalf("no preallocation: %q", events)
	}
}

// The preallocated tail is zeros written and synced, not space merely
// allocated: on ext4 a sync over allocated-but-unwritten blocks also
// commits the file system's journal (decision 0246). Each extension fills
// from the end of what was allocated or written before, never over a
// record, also in a journal reopened with records in it.
func TestPreallocatedTailIsFilledAndSynced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fill.journal")
	ff := &fillFile{}
	s := openFill(t, path, ff)
	for i := 1; i <= 3; i++ {
		if _, err := s.append1(payload(t, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantFilled(t, ff.events())
	if err := s.close(); err != nil {
		t.Fatal(err)
	}

	again := &fillFile{}
	r := openFill(t, path, again)
	if seq, err := r.append1(payload(t, 4)); seq != 4 || err != nil {
		t.Fatalf("append after reopening = %d, %v; want seq 4", seq, err)
	}
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantFilled(t, again.events())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if end := r.end; int64(len(b)) < end+minAhead || !allZero(b[end:]) {
		t.Fatalf("file of %d bytes, records end at %d: want at least %d zero bytes after them", len(b), end, minAhead)
	}
	wantPayloads(t, records(t, path), 4)
	if err := r.close(); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, records(t, path), 4)
}

// A sync of the fill covers the records written before it too, so its
// failure is the store's sticky failure, as any failed sync is.
func TestFailedFillSyncIsSticky(t *testing.T) {
	errDisk := errors.New("disk gone")
	ff := &fillFile{fillSync: func() error { return errDisk }}
	s := openFill(t, filepath.Join(t.TempDir(), "fill.journal"), ff)
	if _, err := s.append1(payload(t, 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); !errors.Is(err, ErrFailed) || !errors.Is(err, errDisk) {
		t.Fatalf("Flush = %v; want ErrFailed wrapping the fill's sync failure", err)
	}
	if _, err := s.append1(payload(t, 2)); !errors.Is(err, ErrFailed) {
		t.Fatalf("append after the failed sync = %v; want ErrFailed", err)
	}
	if err := s.Flush(t.Context()); !errors.Is(err, ErrFailed) {
		t.Fatalf("second Flush = %v; want ErrFailed", err)
	}
}

// A fill that cannot be written leaves the space allocated, reading as
// zeros: the store writes records over it as before, stops preallocating,
// and Close still cuts the unfilled tail.
func TestFailedFillFallsBackToAllocatedSpace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fill.journal")
	ff := &fillFile{writeAt: func() error { return errors.New("no space for zeros") }}
	s := openFill(t, path, ff)
	for i := 1; i <= 3; i++ {
		if _, err := s.append1(payload(t, i)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(t.Context()); err != nil {
			t.Fatalf("Flush after a failed fill = %v; want nil", err)
		}
	}
	allocs := 0
	for _, e := range ff.events() {
		if strings.HasPrefix(e, "allocate ") {
			allocs++
		}
	}
	if allocs != 1 {
		t.Fatalf("%d preallocations after a failed fill, want 1: %q", allocs, ff.events())
	}
	wantPayloads(t, records(t, path), 3)
	end := s.end
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != end {
		t.Fatalf("after Close the file has %d bytes, want %d: the tail is left", fi.Size(), end)
	}
	wantPayloads(t, records(t, path), 3)
}
